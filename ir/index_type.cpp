// The types of indexing a tensor (`x[i]`, `x[1:3, None]`, `x[..., 0]`,
// `x[mask]`) and of iterating over one (`for row in x`), mirroring the
// runtime's basic indexing (runtime/tensor_ops.cpp, select): an integer
// drops its axis, a slice keeps it with the length Python's slice rules
// give (unknown unless the bounds are constants and the size is known),
// None inserts an axis of 1, `...` stands for the axes no other entry
// takes. Advanced indexing (a tensor or list entry) keeps the dtype only.
// Out-of-range indices are the runtime's error, not a type's.
#include "ir/type_rules.h"

namespace nn::ir {
namespace {

enum class Entry { Int, Slice, NewAxis, Ellipsis, Advanced, Unknown };

const Node* defOf(const Value* v) { return v->def(); }

// An int constant, or a bool one (True indexes as 1).
std::optional<int64_t> constIndex(const Value* v) {
  const Node* d = defOf(v);
  if (!d || d->op() != Op::Const) return std::nullopt;
  const Attr* a = d->attr("value");
  if (const auto* i = a ? std::get_if<int64_t>(a) : nullptr) return *i;
  if (const auto* b = a ? std::get_if<bool>(a) : nullptr) return *b ? 1 : 0;
  return std::nullopt;
}

bool isNoneConst(const Value* v) {
  const Node* d = defOf(v);
  return (d && d->op() == Op::Const && d->attr("value") && std::holds_alternative<NoneAttr>(*d->attr("value"))) ||
         v->type().kind == TypeKind::None;
}

Entry entryOf(const Value* v) {
  const Type& t = v->type();
  if (t.kind == TypeKind::Int || t.kind == TypeKind::Bool) return Entry::Int;
  if (isNoneConst(v)) return Entry::NewAxis;
  const Node* d = defOf(v);
  if (d && d->op() == Op::MakeSlice) return Entry::Slice;
  if (d && d->op() == Op::Builtin && d->strAttr("name") == "Ellipsis") return Entry::Ellipsis;
  if (t.isTensor() || t.kind == TypeKind::List) return Entry::Advanced;
  return Entry::Unknown;
}

// The length of slice `s` (a make_slice node) over an axis of size `dim`.
Dim sliceLength(const Node& s, const Dim& dim) {
  std::optional<int64_t> step = isNoneConst(s.operand(2)) ? std::optional<int64_t>(1) : constIndex(s.operand(2));
  if (!dim.isKnown() || !step || *step == 0) return Dim::unknown();
  int64_t len = dim.size;
  auto bound = [&](const Value* v, int64_t dflt) -> std::optional<int64_t> {
    if (isNoneConst(v)) return dflt;
    std::optional<int64_t> i = constIndex(v);
    if (!i) return std::nullopt;
    if (*i < 0) return std::max<int64_t>(*i + len, *step < 0 ? -1 : 0);
    return *i >= len ? (*step < 0 ? len - 1 : len) : *i;
  };
  std::optional<int64_t> start = bound(s.operand(0), *step < 0 ? len - 1 : 0);
  std::optional<int64_t> stop = bound(s.operand(1), *step < 0 ? -1 : len);
  if (!start || !stop) return Dim::unknown();
  int64_t k = *step;
  int64_t count = k > 0 ? (*stop > *start ? (*stop - *start + k - 1) / k : 0)
                        : (*start > *stop ? (*start - *stop - k - 1) / (-k) : 0);
  return Dim::known(count);
}

std::optional<Type> getItemType(const Type& x, const Value* index) {
  Type any = Type::tensor(x.dtype);
  std::vector<const Value*> parts;
  const Node* d = defOf(index);
  if (index->type().kind == TypeKind::Tuple) {
    if (!d || d->op() != Op::MakeTuple) return any;
    parts.assign(d->operands().begin(), d->operands().end());
  } else {
    parts.push_back(index);
  }
  std::vector<Entry> entries;
  size_t consumed = 0;  // axes of x the entries other than ... take
  bool ellipsis = false;
  for (const Value* p : parts) {
    Entry e = entryOf(p);
    if (e == Entry::Advanced || e == Entry::Unknown) return any;
    if (e == Entry::Ellipsis) {
      if (ellipsis) return any;  // the runtime's error
      ellipsis = true;
    }
    if (e == Entry::Int || e == Entry::Slice) ++consumed;
    entries.push_back(e);
  }
  if (!x.shape || consumed > x.shape->size()) return any;
  const DimList& dims = *x.shape;
  DimList out;
  size_t axis = 0;
  for (size_t k = 0; k < entries.size(); ++k) {
    switch (entries[k]) {
      case Entry::Ellipsis:
        for (size_t n = dims.size() - consumed; n > 0; --n) out.push_back(dims[axis++]);
        break;
      case Entry::NewAxis: out.push_back(Dim::known(1)); break;
      case Entry::Int: ++axis; break;
      case Entry::Slice: out.push_back(sliceLength(*defOf(parts[k]), dims[axis++])); break;
      default: return any;
    }
  }
  for (; axis < dims.size(); ++axis) out.push_back(dims[axis]);
  return Type::tensor(x.dtype, out);
}

}  // namespace

std::optional<Type> indexType(const Node& n) {
  if (n.operands().empty() || !n.operand(0)->type().isTensor()) return std::nullopt;
  const Type& x = n.operand(0)->type();
  switch (n.op()) {
    case Op::GetItem: return getItemType(x, n.operand(1));
    case Op::Iter: return x;  // a tensor iterates over itself
    case Op::IterItem: {
      if (!x.shape || x.shape->empty()) return Type::tensor(x.dtype);
      return Type::tensor(x.dtype, DimList(x.shape->begin() + 1, x.shape->end()));
    }
    default: return std::nullopt;
  }
}

}  // namespace nn::ir
