// From an annotation's expression to the type it declares (language.md §2):
// Python's spellings, checked by the runtime where Python only documents.
// Names are read as written, bound or not, so `Optional[int]` means the
// same with or without `from typing import Optional` (typing.nn), and so
// does `typing.Optional[int]`:
//
//   int float bool str None Any object Callable Tensor
//   Tensor[f32]  Tensor[f32, (N, 784)]     dims are sizes or symbols bound on first use
//   list  list[T]  List[T]  dict  dict[str, T]  Dict[str, T]
//   tuple  tuple[A, B]  tuple[T, ...]  tuple[()]  Tuple[...]
//   Optional[T]  Union[A, B]  A | B  Callable[[A], R] (the signature is not checked)
#include "frontend/lower_internal.h"

namespace nn::frontend {

using namespace nn::ast;
using ir::Annotation;
using ir::TypeKind;

namespace {

[[noreturn]] void unsupported(SourceLoc at) {
  fail(at,
       "unsupported type annotation: use int, float, bool, str, None, Tensor or Tensor[dtype, (dims...)], "
       "list[T], dict[str, T], tuple[T, ...], Optional[T], A | B, Callable or Any");
}

// The annotation's name: `Name` or `typing.Name`; empty for anything else.
std::string nameOf(const Expr& e) {
  if (const auto* n = as<NameExpr>(&e)) return n->id;
  if (const auto* a = as<AttributeExpr>(&e))
    if (const auto* m = as<NameExpr>(a->value.get()); m && m->id == "typing") return a->attr;
  return "";
}

std::vector<const Expr*> indexParts(const SubscriptExpr& s) {
  std::vector<const Expr*> parts;
  if (const auto* t = as<TupleExpr>(s.index.get()))
    for (const auto& x : t->elts) parts.push_back(x.get());
  else
    parts.push_back(s.index.get());
  return parts;
}

Annotation located(Annotation a, SourceLoc at) {
  a.loc = at;
  return a;
}

// One of `alternatives`, flattened: Optional[int | str] is int | str | None,
// and a union with Any in it is Any.
Annotation unionOf(std::vector<Annotation> alternatives, SourceLoc at) {
  Annotation u = Annotation::of(ir::Type::any());
  u.form = Annotation::Form::Union;
  for (Annotation& a : alternatives) {
    if (a.form == Annotation::Form::Plain && a.type.kind == TypeKind::Any) return located(std::move(a), at);
    if (a.form == Annotation::Form::Union)
      for (Annotation& inner : a.args) u.args.push_back(std::move(inner));
    else
      u.args.push_back(std::move(a));
  }
  if (u.args.size() == 1) return located(std::move(u.args[0]), at);
  return located(std::move(u), at);
}

Annotation tensorAnnotation(const SubscriptExpr& sub) {
  std::vector<const Expr*> parts = indexParts(sub);
  const auto* dtName = as<NameExpr>(parts[0]);
  std::optional<ir::DType> dt = dtName ? ir::dtypeFromName(dtName->id) : std::nullopt;
  if (!dt || parts.size() > 2) fail(parts[0]->loc, "a Tensor annotation is Tensor[dtype] or Tensor[dtype, (dims...)]");
  if (parts.size() == 1) return Annotation::of(ir::Type::tensor(*dt));
  std::vector<const Expr*> dims;
  if (const auto* t = as<TupleExpr>(parts[1]))
    for (const auto& x : t->elts) dims.push_back(x.get());
  else
    dims.push_back(parts[1]);
  ir::DimList shape;
  for (const Expr* d : dims) {
    if (const auto* i = as<IntExpr>(d)) shape.push_back(ir::Dim::known(i->value));
    else if (const auto* s = as<NameExpr>(d)) shape.push_back(ir::Dim::symbol(s->id));
    else fail(d->loc, "a tensor dimension in an annotation is a size or a name");
  }
  return Annotation::of(ir::Type::tensor(*dt, shape));
}

Annotation containerAnnotation(TypeKind kind, const SubscriptExpr& sub) {
  std::vector<const Expr*> parts = indexParts(sub);
  Annotation a = Annotation::of(kind);
  if (kind == TypeKind::List) {
    if (parts.size() != 1) fail(sub.loc, "a list annotation is list[T]: a list's items have one type");
    a.form = Annotation::Form::Each;
    a.args.push_back(annotationOf(*parts[0]));
    return a;
  }
  if (kind == TypeKind::Dict) {
    if (parts.size() != 2) fail(sub.loc, "a dict annotation is dict[str, T]");
    if (annotationOf(*parts[0]).type.kind != TypeKind::Str) fail(parts[0]->loc, "a dict's keys are always str in nn");
    a.form = Annotation::Form::Each;
    a.args.push_back(annotationOf(*parts[1]));
    return a;
  }
  // tuple[()] is the empty tuple; tuple[T, ...] any number of Ts.
  if (const auto* t = as<TupleExpr>(sub.index.get()); t && t->elts.empty()) {
    a.form = Annotation::Form::Items;
    return a;
  }
  if (parts.size() == 2 && as<EllipsisExpr>(parts[1])) {
    a.form = Annotation::Form::Each;
    a.args.push_back(annotationOf(*parts[0]));
    return a;
  }
  a.form = Annotation::Form::Items;
  for (const Expr* p : parts) {
    if (as<EllipsisExpr>(p))
      fail(p->loc, "'...' in a tuple annotation comes second, after the one item type: tuple[T, ...]");
    a.args.push_back(annotationOf(*p));
  }
  return a;
}

std::optional<TypeKind> containerKind(const std::string& name) {
  if (name == "list" || name == "List") return TypeKind::List;
  if (name == "dict" || name == "Dict") return TypeKind::Dict;
  if (name == "tuple" || name == "Tuple") return TypeKind::Tuple;
  return std::nullopt;
}

}  // namespace

Annotation annotationOf(const Expr& e) {
  if (as<NoneExpr>(&e)) return located(Annotation::of(TypeKind::None), e.loc);
  if (as<StrExpr>(&e)) fail(e.loc, "a string annotation (a forward reference) is not supported: write the type itself");
  if (const auto* b = as<BinaryExpr>(&e); b && b->op == BinOp::BitOr) {
    std::vector<Annotation> both;
    both.push_back(annotationOf(*b->lhs));
    both.push_back(annotationOf(*b->rhs));
    return unionOf(std::move(both), e.loc);
  }
  if (std::string name = nameOf(e); !name.empty()) {
    if (name == "int") return located(Annotation::of(TypeKind::Int), e.loc);
    if (name == "float") return located(Annotation::of(TypeKind::Float), e.loc);
    if (name == "bool") return located(Annotation::of(TypeKind::Bool), e.loc);
    if (name == "str") return located(Annotation::of(TypeKind::Str), e.loc);
    if (name == "Tensor") return located(Annotation::of(ir::Type::tensor()), e.loc);
    if (name == "Any" || name == "object") return located(Annotation::of(ir::Type::any()), e.loc);
    if (name == "Callable") return located(Annotation::of(TypeKind::Func), e.loc);
    if (std::optional<TypeKind> k = containerKind(name)) return located(Annotation::of(*k), e.loc);
    unsupported(e.loc);
  }
  const auto* sub = as<SubscriptExpr>(&e);
  std::string base = sub ? nameOf(*sub->value) : "";
  if (base == "Tensor") return located(tensorAnnotation(*sub), e.loc);
  if (std::optional<TypeKind> k = containerKind(base)) return located(containerAnnotation(*k, *sub), e.loc);
  if (base == "Callable") return located(Annotation::of(TypeKind::Func), e.loc);
  if (base == "Optional" || base == "Union") {
    std::vector<const Expr*> parts = indexParts(*sub);
    if (base == "Optional" && parts.size() != 1) fail(sub->loc, "Optional[T] takes one type");
    std::vector<Annotation> alternatives;
    for (const Expr* p : parts) alternatives.push_back(annotationOf(*p));
    if (base == "Optional") alternatives.push_back(Annotation::of(TypeKind::None));
    return unionOf(std::move(alternatives), e.loc);
  }
  unsupported(e.loc);
}

}  // namespace nn::frontend
