// Types of IR values. A small closed set of kinds; `any` is a value whose
// type is known only at run time (type and shape inference refine it).
// Tensor types carry what is known statically: the dtype (or not) and the
// shape (or not), each dimension a size, a symbol such as `N` (equal
// symbols are equal sizes), or `?` (a size that is not known, e.g. one
// that changes across loop iterations).
//
// Text forms: `tensor` (nothing known), `f32[...]` (dtype, rank unknown),
// `f32[2, N, ?]`, `f32[]` (0-d), `tensor[2, 3]` (shape, dtype unknown).
// (`bool` alone is the Python bool; `bool[...]` a bool tensor.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"

namespace nn::ir {

// Token: the order edges of order-effects (no run-time value).
enum class TypeKind { Any, None, Bool, Int, Float, Str, Tuple, List, Dict, Func, Module, Tensor, Token };

struct Dim {
  int64_t size = -1;  // >= 0 when known
  std::string sym;    // non-empty for a named symbolic size

  static Dim known(int64_t n) { return {n, {}}; }
  static Dim symbol(std::string s) { return {-1, std::move(s)}; }
  static Dim unknown() { return {}; }
  bool isKnown() const { return size >= 0; }
  bool operator==(const Dim& o) const { return size == o.size && sym == o.sym; }
  bool operator!=(const Dim& o) const { return !(*this == o); }
  std::string str() const;
};

using DimList = std::vector<Dim>;

struct Type {
  TypeKind kind = TypeKind::Any;
  // Tensors only.
  std::optional<DType> dtype;
  std::optional<DimList> shape;

  Type() = default;
  Type(TypeKind k) : kind(k) {}  // NOLINT: a kind is a type (`Type t = TypeKind::Int`)
  static Type any() { return {TypeKind::Any}; }
  static Type tensor(std::optional<DType> dt = std::nullopt, std::optional<DimList> shape = std::nullopt) {
    Type t(TypeKind::Tensor);
    t.dtype = dt;
    t.shape = std::move(shape);
    return t;
  }
  bool isTensor() const { return kind == TypeKind::Tensor; }
  // A tensor whose every dimension has a known size (its dtype may not be known).
  bool hasStaticShape() const {
    if (!isTensor() || !shape) return false;
    for (const Dim& d : *shape)
      if (!d.isKnown()) return false;
    return true;
  }
  bool operator==(const Type& o) const { return kind == o.kind && dtype == o.dtype && shape == o.shape; }
  bool operator!=(const Type& o) const { return !(*this == o); }
  std::string str() const;
  static std::optional<Type> parse(std::string_view text);
};

// Shapes as users read them in messages: "[2, N]".
std::string shapeStr(const DimList& dims);

}  // namespace nn::ir
