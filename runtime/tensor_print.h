// NumPy-style text of tensors (see tensor_print.cpp).
#pragma once

#include <string>

#include "runtime/tensor.h"

namespace nn::rt {

std::string tensorStr(const Tensor& t);   // print(): "[[1. 2.]\n [3. 4.]]"
std::string tensorRepr(const Tensor& t);  // REPL echo: "tensor([1., 2.], dtype=f32)"

}  // namespace nn::rt
