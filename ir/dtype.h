// Tensor element types and the promotion rules of language.md §2 (PyTorch
// style): bool < integer < floating point; within a category the wider type
// wins; a Python scalar adopts the tensor's type unless it is of a higher
// category (a Python float with an integer tensor gives the default f32).
// Declared in the IR because type inference applies the same rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace nn::ir {

enum class DType : uint8_t { Bool, I32, I64, F32, F64 };

constexpr size_t dtypeSize(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::I32: case DType::F32: return 4;
    default: return 8;
  }
}
const char* dtypeName(DType t);
std::optional<DType> dtypeFromName(std::string_view name);
inline bool isFloating(DType t) { return t == DType::F32 || t == DType::F64; }
inline bool isIntegral(DType t) { return t == DType::I32 || t == DType::I64; }

// Result type of a binary op between two tensors.
DType promote(DType a, DType b);

// The kinds of Python scalars that combine with tensors.
enum class ScalarKind { Bool, Int, Float };
// Result type of a binary op between a tensor of type t and a Python scalar.
DType promoteWithScalar(DType t, ScalarKind s);

}  // namespace nn::ir
