// The CPU kernels' walks over non-contiguous operands (runtime/
// kernel_loops.h: row by row through the strides, in tiles for an operand
// transposed in its last two axes, either on all cores from 32,768
// elements): copies (clone, astype, a copy into a view) and unary and
// binary elementwise ops over transposes, permutations, stepped slices and
// broadcasts, of every dtype and of sizes around the tile's, against each
// element read through its own strides.
#include <gtest/gtest.h>

#include "runtime/tensor_ops.h"
#include "runtime/value.h"
#include "test_device.h"

namespace {

using namespace nn::rt;
using nn::ir::Op;

Tensor counting(DType dt, const Shape& shape) {
  Tensor t = Tensor::empty(DType::F64, shape, testDevice());
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = static_cast<double>(i % 251) - 100.0;
  return astype(t, dt);
}

// ::2 along the last of two axes.
Value everySecondColumn() {
  auto all = std::make_shared<SliceObj>(), second = std::make_shared<SliceObj>();
  all->start = all->stop = all->step = Value::none();
  second->start = second->stop = Value::none();
  second->step = Value::integer(2);
  return makeTuple({Value::object(Kind::Slice, all), Value::object(Kind::Slice, second)});
}

// [rows, cols] of two axes: a window away from the origin.
Value window(int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  auto rows = std::make_shared<SliceObj>(), cols = std::make_shared<SliceObj>();
  rows->start = Value::integer(r0), rows->stop = Value::integer(r1), rows->step = Value::none();
  cols->start = Value::integer(c0), cols->stop = Value::integer(c1), cols->step = Value::none();
  return makeTuple({Value::object(Kind::Slice, rows), Value::object(Kind::Slice, cols)});
}

// Views of every layout the loops tell apart, each described for messages.
std::vector<std::pair<std::string, Tensor>> views(DType dt) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (Shape shape : {Shape{8, 8}, Shape{9, 33}, Shape{70, 41}, Shape{300, 200}}) {
    Tensor t = counting(dt, shape);
    out.emplace_back("transpose of " + shapeString(shape), transpose(t, {1, 0}, {}));
  }
  // A transpose's window (an offset, and blocks cut at both ends).
  out.emplace_back("rows 5:45, columns 3:30 of the transpose of 50x41",
                   tensorGetItem(transpose(counting(dt, {50, 41}), {1, 0}, {}), window(5, 45, 3, 30), {}));
  Tensor t3 = counting(dt, {3, 40, 33});
  out.emplace_back("last two axes of 3x40x33 swapped", transpose(t3, {0, 2, 1}, {}));
  out.emplace_back("3x40x33 permuted (2, 0, 1)", transpose(t3, {2, 0, 1}, {}));
  out.emplace_back("3x40x33 permuted (1, 2, 0)", transpose(t3, {1, 2, 0}, {}));
  Tensor wide = counting(dt, {64, 100});
  out.emplace_back("every second column of 64x100", tensorGetItem(wide, everySecondColumn(), {}));
  out.emplace_back("a row broadcast to 50x40", broadcastTo(counting(dt, {40}), {50, 40}, {}));
  out.emplace_back("a column broadcast to 40x50", broadcastTo(counting(dt, {40, 1}), {40, 50}, {}));
  out.emplace_back("a transposed broadcast column",
                   transpose(broadcastTo(counting(dt, {40, 1}), {40, 50}, {}), {1, 0}, {}));
  return out;
}

void expectSameElements(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  for (int64_t i = 0; i < want.numel(); ++i) ASSERT_EQ(got.flatAsDouble(i), want.flatAsDouble(i)) << what << " at " << i;
}

TEST(StridedLoops, CopiesAndConversionsReadEveryElementThroughItsStrides) {
  for (DType dt : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64})
    for (auto& [what, v] : views(dt)) {
      Tensor c = v.clone();
      ASSERT_TRUE(c.isContiguous());
      expectSameElements(c, v, what + " (clone)");
      DType other = dt == DType::F64 ? DType::I32 : DType::F64;
      expectSameElements(astype(v, other), astype(c, other), what + " (astype)");
    }
}

TEST(StridedLoops, CopiesIntoTransposedViews) {
  for (DType dt : {DType::I32, DType::F64})
    for (Shape shape : {Shape{9, 33}, Shape{300, 200}}) {
      Tensor buffer = Tensor::empty(dt, {shape[1], shape[0]}, testDevice());
      Tensor dst = transpose(buffer, {1, 0}, {});
      Tensor src = counting(dt, shape);
      dst.copyFrom(src);
      expectSameElements(dst, src, "into the transpose of " + shapeString(shape));
      dst.copyFrom(transpose(counting(dt, {shape[1], shape[0]}), {1, 0}, {}));
      expectSameElements(dst, transpose(counting(dt, {shape[1], shape[0]}), {1, 0}, {}), "transpose into transpose");
    }
}

TEST(StridedLoops, ElementwiseOpsReadEveryElementThroughItsStrides) {
  for (DType dt : {DType::I64, DType::F32})
    for (auto& [what, v] : views(dt)) {
      Tensor c = v.clone();
      expectSameElements(tensorOf(mathUnary(Op::Neg, makeTensorValue(v), {})),
                         tensorOf(mathUnary(Op::Neg, makeTensorValue(c), {})), what + " (neg)");
      expectSameElements(tensorOf(mathUnary(Op::Pos, makeTensorValue(v), {})), c, what + " (pos: contiguous())");
      // With a contiguous operand, a transposed one and itself.
      Tensor other = counting(dt, c.shape());
      Shape reversed;
      for (int d = c.ndim() - 1; d >= 0; --d) reversed.push_back(c.shape()[d]);
      Tensor otherT = transpose(counting(dt, reversed), {}, {});
      for (const Tensor& w : {other, otherT, v}) {
        Tensor wc = w.clone();
        expectSameElements(tensorOf(tensorBinary(Op::Sub, makeTensorValue(v), makeTensorValue(w), {})),
                           tensorOf(tensorBinary(Op::Sub, makeTensorValue(c), makeTensorValue(wc), {})),
                           what + " (sub)");
        expectSameElements(tensorOf(tensorBinary(Op::Lt, makeTensorValue(w), makeTensorValue(v), {})),
                           tensorOf(tensorBinary(Op::Lt, makeTensorValue(wc), makeTensorValue(c), {})),
                           what + " (lt)");
      }
    }
}

}  // namespace
