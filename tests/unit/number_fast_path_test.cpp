// The interpreter's inline arithmetic and comparisons of two numbers
// (numberFastPath, runtime/scalar_ops.h) against the generic ops it stands
// in for (binaryOp, compareOp): over every pair of a set of edge values
// (ints at the ends of their range, around zero and -1; floats: both zeros,
// NaN, infinities, huge, tiny; and each kind against the other), whenever
// the inline path answers, it answers what the generic op gives, kind and
// bits; it declines wherever the generic op raises; and it answers the
// common cases, so that the comparison is not vacuous.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/scalar_ops.h"

namespace {

using namespace nn::rt;
using nn::ir::Op;

const Op kNumberOps[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::FloorDiv, Op::Mod,
                         Op::Lt,  Op::Le,  Op::Gt,  Op::Ge,  Op::Eq,       Op::Ne};

bool comparison(Op op) {
  return op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq || op == Op::Ne;
}

std::vector<Value> edgeNumbers() {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  std::vector<Value> out;
  for (int64_t i : {kMin, kMin + 1, int64_t{-7}, int64_t{-3}, int64_t{-2}, int64_t{-1}, int64_t{0}, int64_t{1},
                    int64_t{2}, int64_t{3}, int64_t{7}, int64_t{1} << 53, (int64_t{1} << 53) + 1, kMax - 1, kMax})
    out.push_back(Value::integer(i));
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (double d : {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.0, 1e300, -1e300, 5e-324, kInf, -kInf,
                   std::numeric_limits<double>::quiet_NaN(), 9007199254740992.0})
    out.push_back(Value::real(d));
  return out;
}

// Kind and bits: -0.0 is not 0.0, and a NaN is the same NaN.
bool sameNumber(const Value& x, const Value& y) {
  if (x.kind() != y.kind()) return false;
  if (x.is(Kind::Float)) return std::bit_cast<uint64_t>(x.asFloat()) == std::bit_cast<uint64_t>(y.asFloat());
  return x.asInt() == y.asInt();
}

std::string numberText(const Value& v) {
  return v.is(Kind::Float) ? std::to_string(v.asFloat()) + "f" : std::to_string(v.asInt());
}

TEST(NumberFastPath, AnswersWhatTheGenericOpsAnswerAndDeclinesWhereTheyRaise) {
  std::vector<Value> values = edgeNumbers();
  for (Op op : kNumberOps)
    for (const Value& a : values)
      for (const Value& b : values) {
        Value fast = Value::none();
        bool answered = numberFastPath(op, a, b, fast);
        Value generic;
        bool raised = false;
        try {
          generic = comparison(op) ? compareOp(op, a, b, {}) : binaryOp(op, a, b, {});
        } catch (const nn::NnError&) {
          raised = true;
        }
        std::string what = numberText(a) + " " + nn::ir::opSymbol(op) + " " + numberText(b);
        if (raised) {
          EXPECT_FALSE(answered) << what << ": the generic op raises";
          continue;
        }
        if (answered) {
          EXPECT_TRUE(sameNumber(fast, generic)) << what << ": " << numberText(fast) << " vs " << numberText(generic);
        }
      }
}

TEST(NumberFastPath, TakesTheCommonCases) {
  Value out;
  EXPECT_TRUE(numberFastPath(Op::Mod, Value::integer(-7), Value::integer(3), out));
  EXPECT_EQ(out.asInt(), 2);
  EXPECT_TRUE(numberFastPath(Op::Mod, Value::integer(7), Value::integer(-3), out));
  EXPECT_EQ(out.asInt(), -2);
  EXPECT_TRUE(numberFastPath(Op::FloorDiv, Value::integer(-7), Value::integer(2), out));
  EXPECT_EQ(out.asInt(), -4);
  EXPECT_TRUE(numberFastPath(Op::Div, Value::integer(1), Value::integer(4), out));
  EXPECT_TRUE(out.is(Kind::Float));
  EXPECT_EQ(out.asFloat(), 0.25);
  EXPECT_TRUE(numberFastPath(Op::Mul, Value::integer(3), Value::real(0.5), out));
  EXPECT_EQ(out.asFloat(), 1.5);
  EXPECT_TRUE(numberFastPath(Op::Lt, Value::real(0.5), Value::integer(1), out));
  EXPECT_TRUE(out.is(Kind::Bool) && out.asBool());
  EXPECT_TRUE(numberFastPath(Op::Ne, Value::real(std::nan("")), Value::real(std::nan("")), out));
  EXPECT_TRUE(out.asBool());
  // Left to the generic op: division by zero, // and % by -1, bools.
  EXPECT_FALSE(numberFastPath(Op::Mod, Value::integer(5), Value::integer(0), out));
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_FALSE(numberFastPath(Op::FloorDiv, Value::integer(kMin), Value::integer(-1), out));
  EXPECT_FALSE(numberFastPath(Op::Div, Value::real(1.0), Value::integer(0), out));
  EXPECT_FALSE(numberFastPath(Op::Add, Value::boolean(true), Value::integer(1), out));
}

}  // namespace
