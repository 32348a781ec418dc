// Types of IR values. A small closed set of kinds; `any` is a value whose
// type is known only at run time (type and shape inference refine it).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nn::ir {

enum class TypeKind { Any, None, Bool, Int, Float, Str, Tuple, List, Dict, Func, Module, Tensor };

struct Type {
  TypeKind kind = TypeKind::Any;

  static Type any() { return {TypeKind::Any}; }
  bool operator==(const Type& o) const { return kind == o.kind; }
  bool operator!=(const Type& o) const { return kind != o.kind; }
  std::string str() const;
  static std::optional<Type> parse(std::string_view text);
};

}  // namespace nn::ir
