// Tensor element types for the runtime: the IR's (ir/dtype.h), so that
// type inference and the kernels promote by one set of rules.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ir/dtype.h"

namespace nn::rt {

using ir::DType;
using ir::dtypeFromName;
using ir::dtypeName;
using ir::dtypeSize;
using ir::isFloating;
using ir::isIntegral;
using ir::promote;
using ir::promoteWithScalar;
using ir::ScalarKind;

// The dtype of the C++ element type T (bool, int32_t, int64_t, float,
// double), for kernels written as templates over T.
template <class T>
constexpr DType dtypeOf() {
  static_assert(std::is_same_v<T, bool> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                    std::is_same_v<T, float> || std::is_same_v<T, double>,
                "no dtype holds this C++ type");
  if constexpr (std::is_same_v<T, float>) return DType::F32;
  else if constexpr (std::is_same_v<T, double>) return DType::F64;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::I64;
  else return DType::Bool;
}

}  // namespace nn::rt
