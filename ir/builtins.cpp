// The builtin tables' lookups (see builtins.h).
#include "ir/builtins.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <unordered_map>

namespace nn::ir {
namespace {

constexpr BuiltinInfo kBuiltins[] = {
#define BUILTIN(Enum, text, effect, result, keywords) {text, Effect::effect, TypeKind::result, keywords},
#include "ir/builtins.def"
#undef BUILTIN
};
static_assert(std::size(kBuiltins) == kNumBuiltins);

std::optional<Op> opWithTrait(std::string_view name, Trait t) {
  Op op;
  if (opFromName(name, op) && hasTrait(op, t)) return op;
  return std::nullopt;
}

}  // namespace

const BuiltinInfo& builtinInfo(Builtin b) { return kBuiltins[static_cast<size_t>(b)]; }

std::optional<Builtin> builtinFromName(std::string_view name) {
  static const std::unordered_map<std::string_view, Builtin> byName = [] {
    std::unordered_map<std::string_view, Builtin> m;
    for (size_t i = 0; i < kNumBuiltins; ++i) m.emplace(kBuiltins[i].name, static_cast<Builtin>(i));
    return m;
  }();
  auto it = byName.find(name);
  if (it == byName.end()) return std::nullopt;
  return it->second;
}

namespace {

struct OpAlias {
  std::string_view name;
  Op op;
  unsigned kinds;
  std::string_view keyword, value;
};

constexpr OpAlias kAliases[] = {
#define OP_ALIAS(text, Enum, kinds, keyword, value) {text, Op::Enum, kinds, keyword, value},
#include "ir/op_aliases.def"
#undef OP_ALIAS
};

const OpAlias* alias(std::string_view name, Trait kind) {
  // Hashed once, then only read: every call of a tensor builtin asks.
  static const std::unordered_multimap<std::string_view, const OpAlias*> byName = [] {
    std::unordered_multimap<std::string_view, const OpAlias*> m;
    for (const OpAlias& a : kAliases) m.emplace(a.name, &a);
    return m;
  }();
  auto [first, last] = byName.equal_range(name);
  // The first declared of those of this kind, as a scan of the table finds.
  const OpAlias* found = nullptr;
  for (auto it = first; it != last; ++it)
    if ((it->second->kinds & kind) && (!found || it->second < found)) found = it->second;
  return found;
}

}  // namespace

std::optional<Op> functionOp(std::string_view name) {
  if (const OpAlias* a = alias(name, FUNC)) return a->op;
  return opWithTrait(name, FUNC);
}

std::optional<OpName> tensorMethod(std::string_view name) {
  if (const OpAlias* a = alias(name, METHOD)) return OpName{a->op, a->keyword, a->value};
  if (std::optional<Op> op = opWithTrait(name, METHOD)) return OpName{*op, {}, {}};
  return std::nullopt;
}

std::optional<Op> methodOp(std::string_view name) {
  std::optional<OpName> m = tensorMethod(name);
  return m ? std::optional<Op>(m->op) : std::nullopt;
}

std::optional<AttributeOp> tensorAttributeOp(std::string_view name) {
  if (name == "T") return AttributeOp{Op::Transpose, {}};
  if (name == "mT") return AttributeOp{Op::Transpose, {-2, -1}};
  return std::nullopt;
}

std::optional<Op> pairwiseForm(Op op) {
  if (op == Op::Max) return Op::Maximum;
  if (op == Op::Min) return Op::Minimum;
  return std::nullopt;
}

constexpr std::pair<std::string_view, double> kConstants[] = {
    {"inf", std::numeric_limits<double>::infinity()},
    {"nan", std::numeric_limits<double>::quiet_NaN()},
    {"pi", 3.141592653589793},
    {"e", 2.718281828459045},
};

std::optional<double> builtinConstant(std::string_view name) {
  for (const auto& [constant, value] : kConstants)
    if (name == constant) return value;
  return std::nullopt;
}

std::vector<std::string> builtinConstantNames() {
  std::vector<std::string> out;
  for (const auto& c : kConstants) out.emplace_back(c.first);
  return out;
}

std::optional<std::string_view> foreignSpelling(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kSpellings[] = {
      {"array", "tensor"},          {"asarray", "tensor"}, {"from_numpy", "tensor"},
      {"expand_dims", "unsqueeze"}, {"size", "numel"},     {"power", "pow"},
  };
  for (const auto& [foreign, ours] : kSpellings)
    if (name == foreign) return ours;
  return std::nullopt;
}

const std::vector<std::string>& tensorOwnMethodNames() {
  static const std::vector<std::string> names = {
      "size",   "numel",  "dim",    "view_as", "reshape_as",   "expand_as", "type_as",
      "narrow", "select", "unbind", "t",       "index_select", "clamp_max", "new_zeros", "new_ones",
      "new_empty", "new_full", "masked_select", "lerp", "nan_to_num", "count_nonzero", "diff", "movedim",
      "moveaxis", "cross", "kron", "slogdet", "logdet", "matrix_power", "svd", "qr", "unique", "bincount", "histc",
      "bmm", "mv", "dot", "vdot", "inner", "trace", "addmm", "addmv", "addr", "baddbmm", "addbmm", "tile", "fliplr", "flipud", "rot90", "repeat_interleave",
      "take_along_dim", "tensor_split", "hsplit", "vsplit", "dsplit", "unflatten", "unfold", "median", "nanmedian",
      "kthvalue", "quantile", "nanquantile", "nansum", "nanmean", "aminmax", "cummax", "cummin", "trunc", "fix", "frac",
      "deg2rad", "rad2deg", "sinc", "logaddexp", "logaddexp2", "xlogy", "heaviside", "float_power", "logit", "fmax",
      "fmin", "ldexp", "frexp", "polygamma", "index_add", "index_copy", "index_fill", "index_reduce", "take", "put", "index_put",
      "masked_scatter", "diag_embed", "diagflat", "diagonal", "cov", "corrcoef", "addcmul", "addcdiv", "logical_xor",
      "signbit", "isposinf", "isneginf", "isreal", "equal", "is_floating_point", "is_complex", "is_signed",
      "is_nonzero", "is_same_size", "renorm", "mvlgamma", "cholesky_inverse", "cholesky_solve", "mode", "msort",
      "histogram", "unique_consecutive", "lu", "lu_solve", "triangular_solve", "mm", "dist",
      "pinverse", "select_scatter", "slice_scatter", "diagonal_scatter", "ndimension", "nelement", "element_size",
      "is_contiguous", "get_device", "new_tensor", "where", "sum_to_size", "split_with_sizes", "conj", "resolve_conj",
      "resolve_neg", "is_conj", "is_neg"};
  return names;
}

bool isTensorOwnMethod(std::string_view name) {
  const std::vector<std::string>& names = tensorOwnMethodNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

const std::vector<std::string_view>& hostMethodNames() {
  static const std::vector<std::string_view> names = {
      // list
      "append", "extend", "pop", "insert", "index", "count", "remove", "reverse", "clear", "copy", "sort",
      // dict (pop, clear, copy above)
      "keys", "values", "items", "get", "update", "setdefault", "popitem", "fromkeys",
      // str (index and count above; so are a tuple's)
      "join", "split", "rsplit", "splitlines", "strip", "lstrip", "rstrip", "upper", "lower", "swapcase",
      "capitalize", "title", "casefold", "isalpha", "isdigit", "isalnum", "isspace", "isupper", "islower",
      "isdecimal", "isnumeric", "isprintable", "isascii", "isidentifier", "istitle", "expandtabs", "find",
      "rfind", "rindex", "startswith", "endswith", "partition", "rpartition", "replace", "removeprefix",
      "removesuffix", "ljust", "rjust", "center", "zfill", "format"};
  return names;
}

bool isHostMethodName(std::string_view name) {
  const std::vector<std::string_view>& names = hostMethodNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool hasHostMethods(const Type& t) {
  return t.kind == TypeKind::List || t.kind == TypeKind::Dict || t.kind == TypeKind::Str || t.kind == TypeKind::Tuple;
}

std::vector<std::string> tensorMethodNames() {
  std::vector<std::string> out;
  for (size_t i = 0; i < kNumOps; ++i)
    if (hasTrait(static_cast<Op>(i), METHOD)) out.emplace_back(opInfo(static_cast<Op>(i)).name);
  for (const OpAlias& a : kAliases)
    if (a.kinds & METHOD) out.emplace_back(a.name);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string_view> functionAliases() {
  std::vector<std::string_view> out;
  for (const OpAlias& a : kAliases)
    if (a.kinds & FUNC) out.push_back(a.name);
  return out;
}

std::string_view calledBuiltinName(const Node& call) {
  if (call.op() != Op::Call) return {};
  const Node* def = call.operand(0)->def();
  return def && def->op() == Op::Builtin ? std::string_view(def->strAttr("name")) : std::string_view();
}

std::optional<Op> calledOp(const Node& call) {
  std::string_view name = calledBuiltinName(call);
  if (name.empty()) return std::nullopt;
  if (auto op = functionOp(name)) return op;
  if (auto op = opWithTrait(name, PYTHON); op && call.operands().size() > 1 && call.operand(1)->type().isTensor()) {
    bool twoTensors = call.operands().size() == 3 && call.strListAttr("kw").empty() && call.operand(2)->type().isTensor();
    if (std::optional<Op> pair = pairwiseForm(*op); pair && twoTensors) return pair;
    return op;
  }
  return std::nullopt;
}

std::optional<Builtin> calledFunction(const Node& call) {
  std::string_view name = calledBuiltinName(call);
  if (name.empty() || calledOp(call)) return std::nullopt;
  return builtinFromName(name);
}

}  // namespace nn::ir
