// The matrix helpers the linear algebra gradient rules are written in
// (gradient_rules_linalg.cpp, gradient_rules_lu.cpp): the transpose of the
// last two dims and the matrix product, as ops the rules emit.
#pragma once

#include "ir/gradient.h"

namespace nn::ir {

inline Value* transposed(GradientBuilder& b, Value* v) { return b.emit(Op::Transpose, {v}, {{"axes", Ints{-2, -1}}}); }

inline Value* matrixProduct(GradientBuilder& b, Value* x, Value* y) { return b.emit(Op::MatMul, {x, y}); }

}  // namespace nn::ir
