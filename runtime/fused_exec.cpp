// Runs a `fused` node (passes/fuse_elementwise.cpp): its body of
// elementwise ops over tiles of the output's leading axis, the tiles
// shared among the cores and each one's ops run one after another on its
// core, so a tile's intermediates stay in that core's cache and the chain
// reads its inputs from memory once. Each tile runs the body's own ops (the
// same kernels, dtype promotion, NaN handling and errors as unfused code),
// so both modes agree bit for bit. Small results, results whose leading
// axis cannot be split, and trailing reductions (whose operands have
// another shape than their result) run the body once over whole tensors.
// Native code for the body (the LLVM JIT) replaces the per-tile ops later;
// this path stays for what the JIT cannot compile.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

#include "runtime/interpreter.h"
#include "runtime/kernels.h"
#include "runtime/tensor.h"

namespace nn::rt {
namespace {

// About a core's L2 cache for the few live f32/f64 intermediates of a tile;
// below kParallelThreshold, so the kernels inside never fork.
constexpr int64_t kTileElements = 8192;

// Rows [r0, r1) of `t` when its leading axis is the output's (length
// `rows`, same rank); otherwise `t` itself, which broadcasts over the tile.
Value tileOf(const Value& v, size_t rank, int64_t rows, int64_t r0, int64_t r1) {
  if (!v.is(Kind::Tensor)) return v;
  const Tensor& t = tensorOf(v);
  if (static_cast<size_t>(t.ndim()) != rank || t.dim(0) != rows) return v;
  Shape shape = t.shape();
  shape[0] = r1 - r0;
  return makeTensorValue(t.view(shape, t.strides(), t.offset() + r0 * t.strides()[0]));
}

Device& deviceOf(const ir::Node& n, Frame& f) {
  for (const ir::Value* v : n.operands())
    if (f[v].is(Kind::Tensor)) return tensorOf(f[v]).device();
  fail(n.loc(), "internal error: fused node without a tensor input");
}

// The first failure in the body's order (as unfused code, which runs each
// op over every tile before the next, would report it), whichever tile.
struct FirstFailure {
  std::mutex mutex;
  std::atomic<bool> failed{false};
  size_t node = SIZE_MAX;
  std::exception_ptr error;
  void record(size_t at) {
    std::lock_guard<std::mutex> lock(mutex);
    if (at < node) {
      node = at;
      error = std::current_exception();
    }
    failed = true;
  }
};

}  // namespace

void Interpreter::execFused(const ir::Node& n, Frame& f, uint64_t dying) {
  const ir::Block& body = *n.block(0);
  // Every result has one shape (the pass groups ops of one shape only,
  // passes/fuse_elementwise.cpp); their dtypes may differ.
  const ir::Type type = n.result(0)->type();
  Shape shape;
  int64_t numel = 1;
  if (type.dtype && type.hasStaticShape())
    for (const ir::Dim& d : *type.shape) {
      shape.push_back(d.size);
      numel *= d.size;
    }
  int64_t rows = shape.empty() ? 0 : shape[0];
  int64_t step = rows > 0 ? std::max<int64_t>(1, kTileElements / std::max<int64_t>(1, numel / rows)) : 0;
  bool reduces = ir::trailingReduction(n);  // its operands are not tiled like its result
  if (reduces || rows < 2 || numel < kParallelThreshold || step >= rows) {
    for (size_t i = 0; i < n.operands().size(); ++i)
      f[body.arg(i)] = ir::Node::dies(dying, i) ? std::move(f[n.operand(i)]) : f[n.operand(i)];
    std::vector<Value> out;
    exec(body, f, out);
    for (size_t i = 0; i < body.numArgs(); ++i) f[body.arg(i)] = Value();
    for (size_t r = 0; r < n.numResults(); ++r) f[n.result(r)] = std::move(out[r]);
    return;
  }

  size_t rank = shape.size();
  // As in eager mode, a single result takes a dying operand's buffer where
  // it can: one of the result's shape and dtype, contiguous and held
  // nowhere else. A tile reads its rows of that operand before it writes
  // the same rows of the result, and no tile reads another's rows of it.
  // (With several results, one result's copy could overwrite rows that a
  // view among the others still reads.)
  std::vector<int> reuse(n.numResults(), -1);
  for (size_t i = 0; i < n.operands().size() && i < ir::Node::kMaxDyingOperands && n.numResults() == 1; ++i) {
    const Value& v = f[n.operand(i)];
    if (!((dying >> i) & 1) || !v.is(Kind::Tensor) || v.useCount() != 1) continue;
    const Tensor& x = tensorOf(v);
    if (x.dtype() == *type.dtype && x.shape() == shape && x.isContiguous() && x.ownsBufferAlone()) {
      reuse[0] = static_cast<int>(i);
      break;
    }
  }
  std::vector<Tensor> results;
  for (size_t r = 0; r < n.numResults(); ++r)
    results.push_back(reuse[r] < 0 ? Tensor::empty(*n.result(r)->type().dtype, shape, deviceOf(n, f))
                                   : tensorOf(f[n.operand(reuse[r])]));
  const ir::Node& yield = *body.terminator();
  int64_t tiles = (rows + step - 1) / step;
  FirstFailure failure;
#pragma omp parallel
  {
    // Each thread's own slots for the body's values (the caller's frame
    // is read for the inputs only).
    std::vector<Value> localSlots(f.slots.size());
    Frame local{localSlots, f.module, f.self, {}};
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      if (failure.failed) continue;
      int64_t r0 = t * step, r1 = std::min(rows, r0 + step);
      for (size_t i = 0; i < n.operands().size(); ++i) local[body.arg(i)] = tileOf(f[n.operand(i)], rank, rows, r0, r1);
      size_t at = 0;
      try {
        for (; at + 1 < body.nodes().size(); ++at) {
          const ir::Node& op = *body.nodes()[at];
          runNode(op, local, op.dyingOperands());
          for (uint32_t id : op.kills()) local.slots[id] = Value();
        }
        Shape tile = shape;
        tile[0] = r1 - r0;
        for (size_t r = 0; r < results.size(); ++r)
          results[r].view(tile, results[r].strides(), r0 * results[r].strides()[0])
              .copyFrom(tensorOf(local[yield.operand(r)]));
      } catch (...) {
        failure.record(at);
      }
      // The ops' kills dropped the rest; what a failure left is overwritten
      // by the next tile and freed with the frame.
      for (size_t i = 0; i < body.numArgs(); ++i) local[body.arg(i)] = Value();
      for (const ir::Value* v : yield.operands()) local[v] = Value();
    }
  }
  if (failure.error) std::rethrow_exception(failure.error);
  for (size_t r = 0; r < results.size(); ++r) {
    if (reuse[r] < 0) f[n.result(r)] = makeTensorValue(std::move(results[r]));
    else f[n.result(r)] = std::move(f[n.operand(reuse[r])]);
  }
}

}  // namespace nn::rt
