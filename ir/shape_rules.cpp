// The tensor ops' shape rules (see shape_rules.h) and the typing of calls
// of builtins: a call of a tensor op's builtin is typed by the op's rule, a
// call of another builtin by the result kind builtins.def declares.
#include "ir/shape_rules.h"

#include <algorithm>

#include "ir/builtins.h"
#include "ir/type_rules.h"
#include "support/diagnostics.h"

namespace nn::ir {
namespace {

DimList knownOrUnknown(const std::vector<std::optional<int64_t>>& dims) {
  DimList out;
  for (const auto& d : dims) out.push_back(d ? Dim::known(*d) : Dim::unknown());
  return out;
}

std::optional<int64_t> numelOf(const Type& x) {
  if (!x.shape) return std::nullopt;
  int64_t n = 1;
  for (const Dim& d : *x.shape) {
    // No tensor has more elements than an int64 counts; leave the op with
    // such a shape to the runtime, which reports it.
    if (!d.isKnown() || __builtin_mul_overflow(n, d.size, &n)) return std::nullopt;
  }
  return n;
}

Type reshapeType(const OpArgs& a, const Type& x) {
  auto dims = a.dims("shape");
  if (!dims) return Type::tensor(x.dtype);
  DimList shape;
  int64_t known = 1, inferAt = -1;
  bool allKnown = true;
  for (size_t i = 0; i < dims->size(); ++i) {
    const auto& d = (*dims)[i];
    if (!d) {
      allKnown = false;
      shape.push_back(Dim::unknown());
    } else if (*d == -1 && inferAt < 0) {
      inferAt = static_cast<int64_t>(i);
      shape.push_back(Dim::unknown());
    } else if (*d < 0) {
      return Type::tensor(x.dtype);  // the runtime reports it
    } else {
      if (__builtin_mul_overflow(known, *d, &known)) return Type::tensor(x.dtype);  // the runtime reports it
      shape.push_back(Dim::known(*d));
    }
  }
  std::optional<int64_t> numel = numelOf(x);
  if (allKnown && numel) {
    bool ok = inferAt >= 0 ? known != 0 && *numel % known == 0 : known == *numel;
    if (!ok) {
      std::string target = "[";
      for (size_t i = 0; i < dims->size(); ++i) target += (i ? ", " : "") + std::to_string(*(*dims)[i]);
      fail(a.loc(), "cannot reshape " + x.str() + " into shape " + target + "]");
    }
    if (inferAt >= 0) shape[inferAt] = Dim::known(*numel / known);
  }
  return Type::tensor(x.dtype, shape);
}

Type reversed(const Type& x) {
  if (!x.shape) return Type::tensor(x.dtype);
  return Type::tensor(x.dtype, DimList(x.shape->rbegin(), x.shape->rend()));
}

std::optional<DType> floatingOr(const Type& x, std::optional<DType> otherwise) {
  if (x.dtype && isFloating(*x.dtype)) return x.dtype;
  return otherwise;
}

}  // namespace

namespace shape_rules {

std::optional<Type> tensorOperand(const OpArgs& a, std::string_view name) {
  const Value* v = a.operand(name);
  return v && v->type().isTensor() ? std::optional<Type>(v->type()) : std::nullopt;
}

std::optional<Type> asOp(Op op, SourceLoc loc, const std::vector<const Value*>& operands) {
  const OpInfo& info = opInfo(op);
  if (static_cast<int>(operands.size()) < info.minOperands ||
      (info.maxOperands >= 0 && static_cast<int>(operands.size()) > info.maxOperands))
    return std::nullopt;
  Node probe(op, loc);
  for (const Value* v : operands) {
    if (!v) return std::nullopt;
    probe.addOperand(const_cast<Value*>(v));
  }
  probe.addResult(Type::any());
  return tensorResultType(probe);
}

}  // namespace shape_rules

using shape_rules::asOp;
using shape_rules::tensorOperand;

namespace {

// The type a tensor op's rule gives its arguments: positional (operands
// of a language op or an elementwise op) or bound to its signature.
std::optional<Type> callType(Op op, SourceLoc loc, const std::vector<const Value*>& positional,
                             const std::vector<std::string>& kwnames, const std::vector<const Value*>& kwvalues) {
  if (!isTensorOp(op) || opInfo(op).shapeRule == &shape_rules::Elementwise) {
    if (!kwnames.empty()) return std::nullopt;
    return asOp(op, loc, positional);
  }
  std::optional<OpArgs> args = bindArgs(op, loc, positional, kwnames, kwvalues);
  return args ? opInfo(op).shapeRule(*args) : std::nullopt;
}

// x.sum(axis=1), x.reshape(2, 3), x.exp(): the method's op with x first.
std::optional<Type> methodCallType(const Node& n, const Node& getattr) {
  const Value* x = getattr.operand(0);
  const std::string& name = getattr.strAttr("name");
  // The tensor's own methods that are no op: x.size() is x.shape, x.size(d),
  // x.numel() and x.dim() ints.
  if (x->type().isTensor() && n.strListAttr("kw").empty()) {
    size_t args = n.operands().size() - 1;
    if ((name == "numel" || name == "dim") && args == 0) return Type(TypeKind::Int);
    // x.view_as(y), reshape_as, expand_as: x's dtype in y's shape;
    // x.type_as(y): y's dtype in x's shape (the runtime checks the rest).
    if (args == 1 && n.operand(1)->type().isTensor()) {
      const Type& other = n.operand(1)->type();
      if (name == "type_as") return Type::tensor(other.dtype, x->type().shape);
      if (name == "view_as" || name == "reshape_as" || name == "expand_as") return Type::tensor(x->type().dtype, other.shape);
    }
    if (name == "size" && args <= 1) return Type(args == 0 ? TypeKind::Tuple : TypeKind::Int);
  }
  std::optional<OpName> method = tensorMethod(name);
  if (!x->type().isTensor() || !method) return std::nullopt;
  // PyTorch's x.to(dtype) is astype; x.to(device) is typed as a copy only
  // when the device is a constant name (a variable may hold a dtype), and
  // x.to(device, dtype) at run time.
  if (name == "to") {
    std::vector<std::string> kw = n.strListAttr("kw");
    if (n.operands().size() != 2 || (!kw.empty() && kw[0] != "device" && kw[0] != "dtype")) return std::nullopt;
    std::optional<OpArgs> a = bindArgs(Op::AsType, n.loc(), {x, n.operand(1)}, {}, {});
    if (a && a->attributesKnown()) return opInfo(Op::AsType).shapeRule(*a);
    const Node* d = n.operand(1)->def();
    if (!d || d->op() != Op::Const || !std::holds_alternative<std::string>(*d->attr("value"))) return std::nullopt;
  }
  std::vector<std::string> kw = n.strListAttr("kw");
  size_t npos = n.operands().size() - 1 - kw.size();
  std::vector<const Value*> positional{x};
  positional.insert(positional.end(), n.operands().begin() + 1, n.operands().begin() + 1 + static_cast<std::ptrdiff_t>(npos));
  std::vector<const Value*> kwvalues(n.operands().begin() + 1 + static_cast<std::ptrdiff_t>(npos), n.operands().end());
  // x.float(): astype(x, dtype="f32"), the keyword a constant the rule reads.
  Node keyword(Op::Const, n.loc());
  if (!method->keyword.empty()) {
    keyword.setAttr("value", std::string(method->value));
    kw.emplace_back(method->keyword);
    kwvalues.push_back(keyword.addResult(TypeKind::Str));
  }
  return callType(method->op, n.loc(), positional, kw, kwvalues);
}

}  // namespace

namespace shape_rules {

std::optional<Type> Untyped(const OpArgs&) { return std::nullopt; }

std::optional<Type> Elementwise(const OpArgs& a) { return asOp(a.op(), a.loc(), a.operands()); }

std::optional<Type> Creation(const OpArgs& a) {
  bool present;
  std::optional<DType> dt = a.dtypeAttr("dtype", present);
  if (!present) dt = DType::F32;
  auto dims = a.dims("shape");
  if (!dims) return Type::tensor(dt);
  for (const auto& d : *dims)
    if (d && *d < 0) return Type::tensor(dt);  // the runtime reports it
  return Type::tensor(dt, knownOrUnknown(*dims));
}

std::optional<Type> Like(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  if (!x) return std::nullopt;
  bool present;
  std::optional<DType> dt = a.dtypeAttr("dtype", present);
  return present ? Type::tensor(dt, x->shape) : *x;
}

Type fullReduction(Op op, const Type& x) {
  // argmax/argmin give indices, all/any bools; the rest keep a floating
  // dtype (integer sums widen, means become floats: left open).
  std::optional<DType> dt = op == Op::ArgMax || op == Op::ArgMin ? std::optional<DType>(DType::I64)
                            : op == Op::All || op == Op::Any     ? std::optional<DType>(DType::Bool)
                                                                 : floatingOr(x, std::nullopt);
  return Type::tensor(dt, DimList{});
}

std::optional<Type> Reduce(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  if (!x) return std::nullopt;
  Type whole = fullReduction(a.op(), *x);
  const BoundArg& axis = a.arg("axis");
  std::optional<bool> keep = a.boolAttr("keepdims");
  if (a.isNone("axis")) return keep == false ? whole : Type::tensor(whole.dtype);
  auto axes = a.dims("axis");
  bool known = axes && !axes->empty();
  for (size_t i = 0; known && i < axes->size(); ++i) known = (*axes)[i].has_value();
  if (!known) {
    // Axes not known: the result's sizes are not. Anything else (max(a, b)
    // of two tensors is elementwise) is not this rule's.
    TypeKind kind = axis.value ? axis.value->type().kind : TypeKind::Tuple;
    bool axisLike = axis.constant || kind == TypeKind::Int || kind == TypeKind::Tuple || kind == TypeKind::List;
    return axisLike ? std::optional<Type>(Type::tensor(whole.dtype)) : std::nullopt;
  }
  if (!x->shape || !keep) return Type::tensor(whole.dtype);
  int64_t rank = static_cast<int64_t>(x->shape->size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (const auto& k : *axes) {
    int64_t at = *k < 0 ? *k + rank : *k;
    // Out of range or repeated: the runtime reports it.
    if (at < 0 || at >= rank || reduced[static_cast<size_t>(at)]) return Type::tensor(whole.dtype);
    reduced[static_cast<size_t>(at)] = true;
  }
  DimList dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[static_cast<size_t>(d)]) dims.push_back((*x->shape)[static_cast<size_t>(d)]);
    else if (*keep) dims.push_back(Dim::known(1));
  return Type::tensor(whole.dtype, dims);
}

std::optional<Type> Reshape(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  return x ? std::optional<Type>(reshapeType(a, *x)) : std::nullopt;
}

namespace {

// x with its dims in the order `perm` gives.
Type permutedDims(const Type& x, const std::vector<int64_t>& perm) {
  DimList dims;
  for (int64_t d : perm) dims.push_back((*x.shape)[d]);
  return Type::tensor(x.dtype, dims);
}

// transpose and permute: the dims of x permuted as permutationOf says,
// failing at the node on axes that do not fit.
std::optional<Type> permuted(const OpArgs& a, const char* param, bool swap) {
  std::optional<Type> x = tensorOperand(a, "x");
  if (!x) return std::nullopt;
  auto axes = a.dims(param);
  if (axes && axes->empty()) return reversed(*x);
  if (!axes || !x->shape) return Type::tensor(x->dtype);
  std::vector<int64_t> known;
  for (const auto& ax : *axes) {
    if (!ax) return Type::tensor(x->dtype);
    known.push_back(*ax);
  }
  std::string error;
  auto perm = permutationOf(static_cast<int64_t>(x->shape->size()), known, swap, error);
  if (!perm) fail(a.loc(), std::string(opInfo(a.op()).name) + "(): " + error + " for " + x->str());
  return permutedDims(*x, *perm);
}

}  // namespace

std::optional<Type> Transpose(const OpArgs& a) { return permuted(a, "axes", true); }
std::optional<Type> Permute(const OpArgs& a) { return permuted(a, "dims", false); }

std::optional<Type> Flatten(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  if (!x) return std::nullopt;
  std::optional<int64_t> start = a.intAttr("start_dim"), end = a.intAttr("end_dim");
  if (!x->shape || !start || !end) return Type::tensor(x->dtype);
  std::vector<int64_t> dims;
  for (const Dim& d : *x->shape) dims.push_back(d.isKnown() ? d.size : -1);
  std::string error;
  auto shape = flattenedShape(dims, *start, *end, error);
  if (!shape) fail(a.loc(), "flatten(): " + error + " for " + x->str());
  if (dims.empty()) return Type::tensor(x->dtype, DimList{Dim::known(1)});
  // The dims before and after the range stay as they are (symbols too);
  // one dim "flattened" alone keeps its own.
  int64_t rank = static_cast<int64_t>(dims.size());
  int64_t s = *start < 0 ? *start + rank : *start, e = *end < 0 ? *end + rank : *end;
  DimList out(x->shape->begin(), x->shape->begin() + s);
  out.push_back(s == e ? (*x->shape)[s] : (*shape)[s] >= 0 ? Dim::known((*shape)[s]) : Dim::unknown());
  out.insert(out.end(), x->shape->begin() + e + 1, x->shape->end());
  return Type::tensor(x->dtype, out);
}

std::optional<std::vector<int64_t>> permutationOf(int64_t rank, const std::vector<int64_t>& axes, bool swap,
                                                  std::string& error) {
  auto normalize = [&](int64_t a) { return a < 0 ? a + rank : a; };
  std::vector<int64_t> perm;
  if (axes.empty()) {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
    return perm;
  }
  if (swap && axes.size() == 2) {
    int64_t a = normalize(axes[0]), b = normalize(axes[1]);
    if (a < 0 || a >= rank || b < 0 || b >= rank) {
      error = "dim " + std::to_string(a < 0 || a >= rank ? axes[0] : axes[1]) + " is out of range";
      return std::nullopt;
    }
    for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
    std::swap(perm[a], perm[b]);
    return perm;
  }
  if (static_cast<int64_t>(axes.size()) != rank) {
    error = swap ? "takes two dims to swap or a permutation of all " + std::to_string(rank) + ", not " +
                       std::to_string(axes.size())
                 : "a permutation of " + std::to_string(axes.size()) + " dims";
    return std::nullopt;
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t ax : axes) {
    int64_t a = normalize(ax);
    if (a < 0 || a >= rank || seen[a]) {
      error = a < 0 || a >= rank ? "dim " + std::to_string(ax) + " is out of range" : "dim " + std::to_string(ax) + " is repeated";
      return std::nullopt;
    }
    seen[a] = true;
    perm.push_back(a);
  }
  return perm;
}

std::optional<std::vector<int64_t>> flattenedShape(const std::vector<int64_t>& shape, int64_t start, int64_t end,
                                                   std::string& error) {
  int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) {
    // A 0-d tensor flattens to one element, as PyTorch, for dims 0 and -1.
    if ((start != 0 && start != -1) || (end != 0 && end != -1)) {
      error = "dim out of range for a 0-d tensor";
      return std::nullopt;
    }
    return std::vector<int64_t>{1};
  }
  int64_t s = start < 0 ? start + rank : start, e = end < 0 ? end + rank : end;
  if (s < 0 || s >= rank || e < 0 || e >= rank) {
    error = "dim " + std::to_string(s < 0 || s >= rank ? start : end) + " is out of range";
    return std::nullopt;
  }
  if (s > e) {
    error = "start_dim " + std::to_string(start) + " comes after end_dim " + std::to_string(end);
    return std::nullopt;
  }
  std::vector<int64_t> out(shape.begin(), shape.begin() + s);
  int64_t n = 1;
  for (int64_t i = s; i <= e; ++i) n = n < 0 || shape[i] < 0 ? -1 : n * shape[i];
  out.push_back(n);
  out.insert(out.end(), shape.begin() + e + 1, shape.end());
  return out;
}

// linear(x, w, b=None) = x @ w.T + b, with the errors matmul and + give.
std::optional<Type> Linear(const OpArgs& a) {
  const Value* x = a.operand("x");
  const Value* w = a.operand("w");
  const Value* b = a.operand("b");
  if (!x || !w || !x->type().isTensor() || !w->type().isTensor()) return std::nullopt;
  const Type& wt = w->type();
  if (wt.shape && wt.shape->size() != 2) fail(a.loc(), "linear: weight must be 2-D [out, in], got " + wt.str());
  Value transposed(reversed(wt), nullptr, nullptr);
  auto y = asOp(Op::MatMul, a.loc(), {x, &transposed});
  if (!y || !b) return y;
  Value product(*y, nullptr, nullptr);
  return asOp(Op::Add, a.loc(), {&product, b});
}

std::optional<Type> Softmax(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  if (!x) return std::nullopt;
  return Type::tensor(floatingOr(*x, DType::F32), x->shape);
}

// An `ints` attribute of one int or a (height, width) pair; nullopt when
// not known at compile time or of another length.
std::optional<std::pair<int64_t, int64_t>> heightWidth(const OpArgs& a, std::string_view name) {
  auto d = a.dims(name);
  if (!d || d->empty() || d->size() > 2) return std::nullopt;
  for (const auto& x : *d)
    if (!x) return std::nullopt;
  return std::pair(*d->front(), *d->back());
}

// The length of a window sweep over `in` (windowCount) when everything is
// known and valid; unknown otherwise (the runtime then reports what is
// wrong).
Dim sweep(const Dim& in, const Dim& k, std::optional<int64_t> stride, std::optional<int64_t> pad,
          std::optional<int64_t> dil, bool ceilMode = false) {
  if (!in.isKnown() || !k.isKnown() || !stride || !pad || !dil || *stride < 1 || *pad < 0 || *dil < 1)
    return Dim::unknown();
  int64_t n = windowCount(in.size, k.size, *stride, *pad, *dil, ceilMode);
  return n > 0 ? Dim::known(n) : Dim::unknown();
}

// conv2d(x [N, C, H, W], w [OC, C/groups, KH, KW]): [N, OC, OH, OW] in the
// promoted floating dtype. Inconsistent known sizes are the runtime's to
// report (with its wording, so both modes say the same).
std::optional<Type> Conv2d(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x"), w = tensorOperand(a, "w");
  if (!x || !w || !x->shape || !w->shape || x->shape->size() != 4 || w->shape->size() != 4) return std::nullopt;
  const DimList &xs = *x->shape, &ws = *w->shape;
  std::optional<int64_t> groups = a.intAttr("groups");
  if (!groups || *groups < 1) return std::nullopt;
  if (xs[1].isKnown() && ws[1].isKnown() && xs[1].size != ws[1].size * *groups) return std::nullopt;
  if (ws[0].isKnown() && ws[0].size % *groups != 0) return std::nullopt;
  auto stride = heightWidth(a, "stride"), pad = heightWidth(a, "padding"), dil = heightWidth(a, "dilation");
  auto first = [](const auto& p) { return p ? std::optional<int64_t>(p->first) : std::nullopt; };
  auto second = [](const auto& p) { return p ? std::optional<int64_t>(p->second) : std::nullopt; };
  Dim oh = sweep(xs[2], ws[2], first(stride), first(pad), first(dil));
  Dim ow = sweep(xs[3], ws[3], second(stride), second(pad), second(dil));
  if ((xs[2].isKnown() && ws[2].isKnown() && !oh.isKnown() && stride && pad && dil) ||
      (xs[3].isKnown() && ws[3].isKnown() && !ow.isKnown() && stride && pad && dil))
    return std::nullopt;
  std::optional<DType> dt;
  if (x->dtype && w->dtype) dt = promote(*x->dtype, *w->dtype) == DType::F64 ? DType::F64 : DType::F32;
  return Type::tensor(dt, DimList{xs[0], ws[0], oh, ow});
}

int64_t windowCount(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil, bool ceilMode) {
  int64_t span = in + 2 * pad - dil * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (span + (ceilMode ? stride - 1 : 0)) / stride + 1;
  if (ceilMode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// max_pool2d / avg_pool2d(x [N, C, H, W]): [N, C, OH, OW], floating;
// max_pool2d_indices the same shape of i64.
std::optional<Type> Pool2d(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  if (!x || !x->shape || x->shape->size() != 4) return std::nullopt;
  const DimList& xs = *x->shape;
  auto kernel = heightWidth(a, "kernel_size"), pad = heightWidth(a, "padding");
  auto stride = a.isNone("stride") ? kernel : heightWidth(a, "stride");
  auto dil = a.op() != Op::AvgPool2d ? heightWidth(a, "dilation") : std::optional(std::pair<int64_t, int64_t>(1, 1));
  std::optional<bool> ceilMode = a.boolAttr("ceil_mode");
  Dim oh = Dim::unknown(), ow = Dim::unknown();
  if (kernel && stride && pad && dil && ceilMode) {
    if (kernel->first < 1 || kernel->second < 1 || 2 * pad->first > kernel->first || 2 * pad->second > kernel->second)
      return std::nullopt;
    oh = sweep(xs[2], Dim::known(kernel->first), stride->first, pad->first, dil->first, *ceilMode);
    ow = sweep(xs[3], Dim::known(kernel->second), stride->second, pad->second, dil->second, *ceilMode);
    if ((xs[2].isKnown() && !oh.isKnown()) || (xs[3].isKnown() && !ow.isKnown())) return std::nullopt;
  }
  std::optional<DType> dt;
  if (a.op() == Op::MaxPool2dIndices) dt = DType::I64;
  else if (x->dtype) dt = *x->dtype == DType::F64 ? DType::F64 : DType::F32;
  return Type::tensor(dt, DimList{xs[0], xs[1], oh, ow});
}

// interpolate: [N, C] and each resized dim, known where `size` gives it
// (by scale_factor it is only known when the op runs); x's dtype. A call
// the runtime will reject is left to it.
std::optional<Type> Interpolate(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  if (!x || !x->shape || x->shape->size() < 3 || x->shape->size() > 5) return std::nullopt;
  const DimList& xs = *x->shape;
  size_t spatial = xs.size() - 2;
  auto size = a.isNone("size") ? std::nullopt : a.dims("size");
  if (size && size->size() != 1 && size->size() != spatial) return std::nullopt;
  DimList out{xs[0], xs[1]};
  for (size_t d = 0; d < spatial; ++d) {
    std::optional<int64_t> n = size ? (*size)[size->size() == 1 ? 0 : d] : std::nullopt;
    out.push_back(n && *n > 0 ? Dim::known(*n) : Dim::unknown());
  }
  return Type::tensor(x->dtype, out);
}

std::optional<std::string> gridSampleMismatch(const Type& x, const Type& grid) {
  if (x.shape && x.shape->size() == 5)
    return "5-d (volumetric) input is not supported by the builtin (nn.grid_sample samples it)";
  if (x.shape && x.shape->size() != 4) return "the input " + x.str() + " does not have the shape [N, C, H, W]";
  if (x.hasStaticShape() && grid.hasStaticShape()) {
    const DimList &xs = *x.shape, &gs = *grid.shape;
    if (gs.size() != 4 || gs[0].size != xs[0].size || gs[3].size != 2)
      return "the grid " + grid.str() + " does not have the shape [" + std::to_string(xs[0].size) +
             ", Ho, Wo, 2] the input " + x.str() + " needs";
  }
  if (x.dtype && grid.dtype && x.shape && grid.shape && (!isFloating(*x.dtype) || *x.dtype != *grid.dtype))
    return "the input and the grid must be floating tensors of one dtype, got " + x.str() + " and " + grid.str();
  return std::nullopt;
}

// grid_sample: [N, C, Ho, Wo] of the input's dtype; a mismatch of the
// input and the grid it proves fails here as the runtime words it. A 5-d
// input is left to the runtime: an unsupported feature is no shape error.
std::optional<Type> GridSample(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "input");
  std::optional<Type> grid = tensorOperand(a, "grid");
  if (!x || !grid || (x->shape && x->shape->size() == 5)) return std::nullopt;
  if (std::optional<std::string> wrong = gridSampleMismatch(*x, *grid)) fail(a.loc(), "grid_sample(): " + *wrong);
  if (!x->shape || !grid->shape || grid->shape->size() != 4) return Type::tensor(x->dtype);
  const DimList &xs = *x->shape, &gs = *grid->shape;
  return Type::tensor(x->dtype, DimList{xs[0], xs[1], gs[1], gs[2]});
}

// ctc_loss: a 0-d loss of log_probs's dtype, or with reduction 'none' one
// per batch element (0-d for an unbatched [T, C] log_probs).
std::optional<Type> CtcLoss(const OpArgs& a) {
  std::optional<Type> lp = tensorOperand(a, "log_probs");
  if (!lp) return std::nullopt;
  std::optional<std::string> reduction = a.strAttr("reduction");
  if (!reduction) return Type::tensor(lp->dtype);
  if (*reduction != "none" || (lp->shape && lp->shape->size() == 2)) return Type::tensor(lp->dtype, DimList{});
  if (!lp->shape || lp->shape->size() != 3) return Type::tensor(lp->dtype);
  return Type::tensor(lp->dtype, DimList{(*lp->shape)[1]});
}

// cross_entropy: 0-d unless reduction is "none", then the input's shape
// less its class dim (dim 1, or 0 of a 1-d input), floating.
std::optional<Type> CrossEntropy(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "input");
  if (!x) return std::nullopt;
  std::optional<DType> dt = floatingOr(*x, std::nullopt);
  std::optional<std::string> reduction = a.strAttr("reduction");
  if (!reduction) return Type::tensor(dt);
  if (*reduction != "none") return Type::tensor(dt, DimList{});
  if (!x->shape || x->shape->empty()) return Type::tensor(dt);
  DimList shape = *x->shape;
  shape.erase(shape.begin() + (shape.size() >= 2 ? 1 : 0));
  return Type::tensor(dt, shape);
}

std::optional<Type> OneHot(const OpArgs& a) {
  std::optional<Type> labels = tensorOperand(a, "labels");
  // Float labels and a bad class count are the runtime's to report.
  if (!labels || !labels->dtype || !isIntegral(*labels->dtype) || !labels->shape) return std::nullopt;
  std::optional<int64_t> n = a.intAttr("n");
  if (n && *n <= 0) return std::nullopt;
  DimList shape = *labels->shape;
  shape.push_back(n ? Dim::known(*n) : Dim::unknown());
  return Type::tensor(DType::I64, shape);
}

std::optional<Type> Randperm(const OpArgs& a) {
  bool present;
  std::optional<DType> dt = a.dtypeAttr("dtype", present);
  if (!present) dt = DType::I64;
  std::optional<int64_t> n = a.intAttr("n");
  return Type::tensor(dt, DimList{n && *n >= 0 ? Dim::known(*n) : Dim::unknown()});
}

std::optional<Type> Scan(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  if (!x) return std::nullopt;
  std::optional<DType> dt = x->dtype;
  if (dt && !isFloating(*dt)) dt = a.op() == Op::LogCumSumExp ? DType::F32 : DType::I64;
  if (!a.isNone("axis")) return Type::tensor(dt, x->shape);
  std::optional<int64_t> n = numelOf(*x);
  return Type::tensor(dt, DimList{n ? Dim::known(*n) : Dim::unknown()});
}

std::optional<Type> Ordered(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  if (!x) return std::nullopt;
  if (a.op() == Op::ArgSort) return Type::tensor(DType::I64, x->shape);
  return Type(TypeKind::Tuple);
}

std::optional<Type> MaskedFill(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  std::optional<Type> mask = tensorOperand(a, "mask");
  if (!x || !mask) return std::nullopt;
  if (x->shape && mask->shape) {
    const DimList &xs = *x->shape, &ms = *mask->shape;
    bool ok = ms.size() <= xs.size();
    for (size_t i = 1; ok && i <= ms.size(); ++i) {
      const Dim &m = ms[ms.size() - i], &d = xs[xs.size() - i];
      ok = !m.isKnown() || !d.isKnown() || m.size == 1 || m.size == d.size;
    }
    if (!ok) fail(a.loc(), "masked_fill: the mask " + mask->str() + " does not broadcast to " + x->str());
  }
  return *x;
}

std::optional<Type> Outer(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "a");
  std::optional<Type> y = tensorOperand(a, "b");
  if (!x || !y) return std::nullopt;
  DimList dims;
  for (const Type* t : {&*x, &*y}) {
    if (!t->shape) return std::nullopt;
    if (t->shape->size() != 1) fail(a.loc(), "outer(): expects 1-d tensors, got " + x->str() + " and " + y->str());
    dims.push_back((*t->shape)[0]);
  }
  Type out = Type::tensor(std::nullopt, dims);
  if (x->dtype && y->dtype) out.dtype = promote(*x->dtype, *y->dtype);
  return out;
}

std::optional<Type> IsClose(const OpArgs& a) {
  const Value* x = a.operand("a");
  const Value* y = a.operand("b");
  if (!x || !y) return std::nullopt;
  return asOp(Op::Eq, a.loc(), {x, y});
}

// sum_to(x, like): like's shape, x's dtype (like's when like is floating:
// a gradient has its input's dtype); a Python number when like is one.
std::optional<Type> SumTo(const OpArgs& a) {
  const Value* like = a.operand("like");
  const Value* x = a.operand("x");
  if (!like || !x) return std::nullopt;
  const Type& l = like->type();
  if (l.kind == TypeKind::Float || l.kind == TypeKind::Int) return Type(TypeKind::Float);
  if (!l.isTensor()) return std::nullopt;
  std::optional<DType> dt = l.dtype && isFloating(*l.dtype) ? l.dtype : x->type().dtype;
  return Type::tensor(dt, l.shape);
}

// broadcast_like / reshape_like(x, like): like's shape, x's dtype.
std::optional<Type> BroadcastLike(const OpArgs& a) {
  std::optional<Type> x = tensorOperand(a, "x");
  std::optional<Type> like = tensorOperand(a, "like");
  if (!x || !like) return std::nullopt;
  return Type::tensor(x->dtype, like->shape);
}

// reduce_grad(g, x, ...): x's shape, g's dtype.
std::optional<Type> ReduceGrad(const OpArgs& a) {
  std::optional<Type> g = tensorOperand(a, "g");
  std::optional<Type> x = tensorOperand(a, "x");
  if (!g || !x) return std::nullopt;
  return Type::tensor(g->dtype, x->shape);
}

std::optional<Type> IndexGrad(const OpArgs& a) { return ReduceGrad(a); }
std::optional<Type> Conv2dGradInput(const OpArgs& a) { return ReduceGrad(a); }
std::optional<Type> Pool2dGrad(const OpArgs& a) { return ReduceGrad(a); }
std::optional<Type> InterpolateGrad(const OpArgs& a) { return ReduceGrad(a); }

std::optional<Type> CtcLossGrad(const OpArgs& a) { return tensorOperand(a, "log_probs"); }
std::optional<Type> CrossEntropyGrad(const OpArgs& a) { return tensorOperand(a, "logits"); }

// grid_sample_grad_input: the input's type; grid_sample_grad_grid: the grid's.
std::optional<Type> GridSampleGrad(const OpArgs& a) {
  return tensorOperand(a, a.op() == Op::GridSampleGradInput ? "input" : "grid");
}

std::optional<Type> Conv2dGradWeight(const OpArgs& a) {
  std::optional<Type> g = tensorOperand(a, "g");
  std::optional<Type> w = tensorOperand(a, "w");
  if (!g || !w) return std::nullopt;
  return Type::tensor(g->dtype, w->shape);
}

// mse_loss, binary_cross_entropy: 0-d, or with reduction "none" the
// elementwise result of input and target.
std::optional<Type> Loss(const OpArgs& a) {
  const Value* input = a.operand("input");
  if (!input || !input->type().isTensor()) return std::nullopt;
  std::optional<DType> dt = floatingOr(input->type(), std::nullopt);
  std::optional<std::string> reduction = a.strAttr("reduction");
  if (!reduction) return Type::tensor(dt);
  if (*reduction != "none") return Type::tensor(dt, DimList{});
  const Value* target = a.operand("target");
  std::optional<Type> both = target ? asOp(Op::Sub, a.loc(), {input, target}) : std::nullopt;
  return Type::tensor(dt, both ? both->shape : std::nullopt);
}

std::vector<int64_t> evenSplit(int64_t len, int64_t size) {
  std::vector<int64_t> sizes;
  // Reserving first makes a split into more parts than memory holds a
  // MemoryError at once, not a long loop towards one.
  sizes.reserve(static_cast<size_t>(len / size + (len % size != 0)));
  for (int64_t done = 0; done < len; done += sizes.back()) sizes.push_back(std::min(size, len - done));
  return sizes;
}

int64_t chunkSize(int64_t len, int64_t chunks) {
  return std::max<int64_t>(1, len / chunks + (len % chunks != 0));  // ceil without overflowing len + chunks
}

}  // namespace shape_rules

std::optional<Type> builtinCallType(const Node& n) {
  const Node* callee = n.operand(0)->def();
  if (callee && callee->op() == Op::GetAttr) return methodCallType(n, *callee);
  if (std::optional<Op> op = calledOp(n)) {
    const std::vector<std::string>& kw = n.strListAttr("kw");
    size_t npos = n.operands().size() - 1 - kw.size();
    auto split = n.operands().begin() + 1 + static_cast<std::ptrdiff_t>(npos);
    return callType(*op, n.loc(), {n.operands().begin() + 1, split}, kw, {split, n.operands().end()});
  }
  if (std::optional<Builtin> b = calledFunction(n)) {
    TypeKind result = builtinInfo(*b).result;
    if (result != TypeKind::Any) return Type(result);
  }
  return std::nullopt;
}

std::optional<Type> tensorOpType(const Node& n) {
  const OpInfo& info = n.info();
  if (!isTensorOp(n.op()) || info.shapeRule == &shape_rules::Elementwise) return std::nullopt;
  return info.shapeRule(argsOf(n));
}

std::optional<Type> attributeType(const Node& n) {
  const Type& x = n.operand(0)->type();
  if (!x.isTensor()) return std::nullopt;
  const std::string& name = n.strAttr("name");
  if (std::optional<AttributeOp> a = tensorAttributeOp(name)) {
    if (!x.shape) return Type::tensor(x.dtype);
    std::string error;
    auto perm = shape_rules::permutationOf(static_cast<int64_t>(x.shape->size()), a->axes, /*swap=*/true, error);
    if (!perm) return std::nullopt;  // an error when it runs
    return shape_rules::permutedDims(x, *perm);
  }
  if (name == "ndim") return Type(TypeKind::Int);
  if (name == "shape") return Type(TypeKind::Tuple);
  return std::nullopt;
}

}  // namespace nn::ir
