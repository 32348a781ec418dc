// builtin-ops: calls of the tensor builtins become the ops they are.
//
// A call of a builtin that the op table declares as an op (FUNC, or PYTHON
// with a tensor first argument), or of a tensor method that is one
// (METHOD: x.sum(axis=1) is sum(x, axis=1)), is replaced by the op node:
//   - an elementwise op or a language op exposed as a function (relu,
//     maximum, where, pow, matmul) when it has no keywords, the op's arity
//     and at least one tensor operand (known from type inference): its
//     positional arguments become the operands. Builtins of the same name
//     on Python numbers keep Python's semantics by staying calls, except
//     the tensor library's own unary functions (FUNC: sqrt, isnan), which
//     run the op on a number as on a tensor;
//   - any other tensor op when its arguments bind to the op's signature
//     (ir/op_args.h) and every attribute is a constant: the operand
//     parameters become the operands in signature order (an absent one a
//     `const none`), the attributes typed node attributes, defaults filled
//     in: `call %sum, %x, %c1 {kw = ["axis"]}` becomes
//     `sum %x {axis = 1, keepdims = false}`.
// As an op the node is typed by the op's rule, takes part in folding, CSE
// and fusion by its traits, and runs through the op's one execute entry.
// A call that does not bind (a wrong keyword, an attribute known only at
// run time) stays a call, and the runtime binds it the same way.
//
// A method or function name that op_aliases.def declares as another name
// of an op is that op (x.view(2, 3) is reshape, cat is concat), with the
// keyword argument the alias passes (x.float() is astype with dtype f32).
//
// PyTorch's x.view_as(y), x.reshape_as(y), x.expand_as(y) and
// x.type_as(y) become reshape, expand or astype with y's dims or dtype
// when y's type knows them, and x.to(dtype) astype (else they stay calls,
// bound at run time). x.narrow(dim, start, length), x.select(dim, i),
// x.index_select(dim, index) and x.unbind(dim) become the indexing they
// are, x[:, ..., window] (a tuple of x[:, ..., k] for unbind), where dim
// is a constant and x's type knows what PyTorch's checks read (the window
// in the dim, the index a 1-d integer tensor): typed and differentiated
// as indexing is.
//
// frexp(x) and x.frexp() of a float tensor become the tuple of its two
// ops, frexp_mantissa and frexp_exponent (converted to i32).
//
// A method call of a builtin's op that does not become the op becomes a
// call of the op's builtin, so it is typed by the op's rule and no
// bound-method object is made per call.
//
// Algorithm: one walk; each block's node list is rebuilt in one pass (the
// inserted constants go before their user). Invariants: only calls change;
// the result value is kept (uses need no rewiring).
#include <algorithm>
#include <memory>

#include "ir/builtins.h"
#include "ir/op_args.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using Nodes = std::vector<std::unique_ptr<ir::Node>>;

// The tensor method a call calls: `call (getattr %x NAME), args...` on a
// tensor %x whose method NAME is an op (or an alias of one).
std::optional<ir::OpName> calledMethod(const ir::Node& n) {
  if (n.op() != ir::Op::Call) return std::nullopt;
  const ir::Node* attr = n.operand(0)->def();
  if (!attr || attr->op() != ir::Op::GetAttr || !attr->operand(0)->type().isTensor()) return std::nullopt;
  return ir::tensorMethod(attr->strAttr("name"));
}

// call (getattr %x NAME), args... -> call (builtin OP), %x, args... where
// OP is the name of NAME's op (x.view(2, 3) calls reshape).
void methodToBuiltin(ir::Block& b, ir::Node& n, ir::Op op, Nodes& out) {
  const ir::Node* attr = n.operand(0)->def();
  auto builtin = std::make_unique<ir::Node>(ir::Op::Builtin, attr->loc());
  builtin->setAttr("name", std::string(ir::opInfo(op).name));
  builtin->setParent(&b);
  ir::Value* fn = builtin->addResult(ir::TypeKind::Func);
  std::vector<ir::Value*> operands{fn, attr->operand(0)};
  for (size_t k = 1; k < n.operands().size(); ++k) operands.push_back(n.operand(k));
  for (size_t k = 0; k < operands.size(); ++k) {
    if (k < n.operands().size()) n.setOperand(k, operands[k]);
    else n.addOperand(operands[k]);
  }
  out.push_back(std::move(builtin));
}

// A tensor library's elementwise function of one Python number (sqrt(x),
// isnan(x) of a float): its builtin runs the op as its node does (the
// op's one execute entry), so it may be the node, typed by its rule.
bool numberMath(ir::Op op, const std::vector<ir::Value*>& args) {
  if (!ir::isTensorOp(op) || !ir::hasTrait(op, ir::FUNC) || args.size() != 1) return false;
  ir::TypeKind k = args[0]->type().kind;
  return k == ir::TypeKind::Int || k == ir::TypeKind::Float || k == ir::TypeKind::Bool;
}

// Positional-only ops: elementwise ones and language ops as functions.
std::unique_ptr<ir::Node> positionalOp(ir::Op op, const ir::Node& n, const std::vector<ir::Value*>& args,
                                       const std::vector<std::string>& kw) {
  const ir::OpInfo& info = ir::opInfo(op);
  if (!kw.empty() || static_cast<int>(args.size()) < info.minOperands ||
      static_cast<int>(args.size()) > info.maxOperands)
    return nullptr;
  bool tensor = false;
  for (const ir::Value* v : args) tensor |= v->type().isTensor();
  if (!tensor && !numberMath(op, args)) return nullptr;
  auto node = std::make_unique<ir::Node>(op, n.loc());
  for (ir::Value* v : args) node->addOperand(v);
  return node;
}

std::unique_ptr<ir::Node> boundOp(ir::Op op, ir::Block& b, const ir::Node& n, const std::vector<ir::Value*>& args,
                                  const std::vector<std::string>& kw, Nodes& out) {
  std::vector<const ir::Value*> positional(args.begin(), args.end() - static_cast<std::ptrdiff_t>(kw.size()));
  std::vector<const ir::Value*> kwvalues(args.end() - static_cast<std::ptrdiff_t>(kw.size()), args.end());
  std::optional<ir::OpArgs> bound = ir::bindArgs(op, n.loc(), positional, kw, kwvalues);
  if (!bound || !bound->attributesKnown()) return nullptr;
  auto node = std::make_unique<ir::Node>(op, n.loc());
  const ir::Signature& sig = bound->signature();
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const ir::BoundArg& a = bound->arg(i);
    if (sig.params[i].isAttr) {
      node->setAttr(sig.params[i].name, *a.constant);
    } else if (a.value) {
      node->addOperand(const_cast<ir::Value*>(a.value));
    } else {
      auto none = std::make_unique<ir::Node>(ir::Op::Const, n.loc());
      none->setAttr("value", ir::NoneAttr{});
      none->setParent(&b);
      node->addOperand(none->addResult(ir::TypeKind::None));
      out.push_back(std::move(none));
    }
  }
  return node;
}

// The op node replacing call `n` (of tensor method `method`, if set), or
// null.
std::unique_ptr<ir::Node> opFor(ir::Block& b, ir::Node& n, const std::optional<ir::OpName>& method, Nodes& out) {
  std::optional<ir::Op> op = method ? method->op : ir::calledOp(n);
  if (!op) return nullptr;
  std::vector<ir::Value*> args;  // positional then keyword values
  if (method) args.push_back(n.operand(0)->def()->operand(0));
  args.insert(args.end(), n.operands().begin() + 1, n.operands().end());
  std::vector<std::string> kw = n.strListAttr("kw");
  std::unique_ptr<ir::Node> keyword;  // the alias's keyword (x.float(): dtype="f32")
  if (method && !method->keyword.empty()) {
    keyword = std::make_unique<ir::Node>(ir::Op::Const, n.loc());
    keyword->setAttr("value", std::string(method->value));
    keyword->setParent(&b);
    args.push_back(keyword->addResult(ir::TypeKind::Str));
    kw.emplace_back(method->keyword);
  }
  std::unique_ptr<ir::Node> node = !ir::isTensorOp(*op) || ir::hasTrait(*op, ir::ELEM)
                                       ? positionalOp(*op, n, args, kw)
                                       : boundOp(*op, b, n, args, kw, out);
  if (node && keyword) out.push_back(std::move(keyword));
  return node;
}

// The op node replacing x.view_as(y) (reshape_as, expand_as, type_as) in
// call `n`, with y's dims or dtype as constants before it, or x.to(dtype);
// or null.
std::unique_ptr<ir::Node> likeOtherOp(ir::Block& b, ir::Node& n, Nodes& out) {
  const ir::Node* attr = n.operand(0)->def();
  if (!attr || attr->op() != ir::Op::GetAttr || !attr->operand(0)->type().isTensor() || n.operands().size() != 2)
    return nullptr;
  const std::string& name = attr->strAttr("name");
  if (name == "to") {  // x.to(f32), x.to(dtype=f32)
    std::vector<std::string> kw = n.strListAttr("kw");
    if (!kw.empty() && kw[0] != "dtype") return nullptr;
    return boundOp(ir::Op::AsType, b, n, {attr->operand(0), n.operand(1)}, {}, out);
  }
  const ir::Type& other = n.operand(1)->type();
  if (!n.strListAttr("kw").empty()) return nullptr;
  bool typeAs = name == "type_as";
  if (!typeAs && name != "view_as" && name != "reshape_as" && name != "expand_as") return nullptr;
  if (typeAs ? !other.isTensor() || !other.dtype : !other.hasStaticShape() || other.shape->empty()) return nullptr;
  Nodes constants;
  std::vector<ir::Value*> args{attr->operand(0)};
  auto constant = [&](ir::Attr value, ir::TypeKind kind) {
    auto c = std::make_unique<ir::Node>(ir::Op::Const, n.loc());
    c->setAttr("value", std::move(value));
    c->setParent(&b);
    args.push_back(c->addResult(kind));
    constants.push_back(std::move(c));
  };
  if (typeAs) constant(std::string(ir::dtypeName(*other.dtype)), ir::TypeKind::Str);
  else
    for (const ir::Dim& d : *other.shape) constant(d.size, ir::TypeKind::Int);
  ir::Op op = typeAs ? ir::Op::AsType : name == "expand_as" ? ir::Op::Expand : ir::Op::Reshape;
  std::unique_ptr<ir::Node> node = boundOp(op, b, n, args, {}, out);
  if (node)
    for (std::unique_ptr<ir::Node>& c : constants) out.push_back(std::move(c));
  return node;
}

// The op node replacing x.t() of a tensor of at most 2 dims (more fail at
// run time, as PyTorch's do) or x.clamp_max(max) in call `n`; or null.
std::unique_ptr<ir::Node> shorthandOp(ir::Block& b, ir::Node& n, Nodes& out) {
  const ir::Node* attr = n.operand(0)->def();
  if (!attr || attr->op() != ir::Op::GetAttr) return nullptr;
  const std::string& name = attr->strAttr("name");
  const ir::Type& xt = attr->operand(0)->type();
  if (!xt.isTensor()) return nullptr;
  std::vector<std::string> kw = n.strListAttr("kw");
  if (name == "t") {
    if (n.operands().size() != 1 || !xt.shape || xt.shape->size() > 2) return nullptr;
    return boundOp(ir::Op::Transpose, b, n, {attr->operand(0)}, {}, out);
  }
  if (name != "clamp_max" || n.operands().size() != 2 || (!kw.empty() && kw != std::vector<std::string>{"max"}))
    return nullptr;
  return boundOp(ir::Op::Clip, b, n, {attr->operand(0), n.operand(1)}, {"max"}, out);
}

// The node replacing x.narrow/select/index_select/unbind in call `n` by
// indexing along the dim, with the nodes it reads before it; or null.
std::unique_ptr<ir::Node> indexAlongOp(ir::Block& b, ir::Node& n, Nodes& out) {
  const ir::Node* attr = n.operand(0)->def();
  if (!attr || attr->op() != ir::Op::GetAttr) return nullptr;
  const std::string& name = attr->strAttr("name");
  std::vector<std::string> params;  // in PyTorch's order
  if (name == "narrow") params = {"dim", "start", "length"};
  else if (name == "select" || name == "index_select") params = {"dim", "index"};
  else if (name == "unbind") params = {"dim"};
  const ir::Type& xt = attr->operand(0)->type();
  if (params.empty() || !xt.isTensor() || !xt.shape || xt.shape->empty()) return nullptr;
  // The arguments by parameter: positional, then keywords.
  std::vector<std::string> kw = n.strListAttr("kw");
  size_t npos = n.operands().size() - 1 - kw.size();
  if (npos > params.size()) return nullptr;
  std::vector<ir::Value*> arg(params.size(), nullptr);
  for (size_t i = 0; i < npos; ++i) arg[i] = n.operand(1 + i);
  for (size_t k = 0; k < kw.size(); ++k) {
    auto at = std::find(params.begin(), params.end(), kw[k]);
    if (at == params.end() || arg[static_cast<size_t>(at - params.begin())]) return nullptr;
    arg[static_cast<size_t>(at - params.begin())] = n.operand(1 + npos + k);
  }
  int64_t rank = static_cast<int64_t>(xt.shape->size());
  std::optional<int64_t> dim = arg[0] ? ir::constInt(arg[0]) : std::nullopt;
  if (!arg[0] && name == "unbind") dim = 0;
  if (!dim || *dim < -rank || *dim >= rank) return nullptr;
  if (*dim < 0) *dim += rank;
  const ir::Dim& size = (*xt.shape)[static_cast<size_t>(*dim)];
  for (size_t i = 1; i < arg.size(); ++i)
    if (!arg[i]) return nullptr;

  Nodes made;
  auto node = [&](ir::Op op, std::vector<ir::Value*> operands, std::optional<ir::Attr> value = std::nullopt) {
    auto m = std::make_unique<ir::Node>(op, n.loc());
    for (ir::Value* v : operands) m->addOperand(v);
    ir::TypeKind kind = ir::TypeKind::Any;
    if (value) {
      kind = std::holds_alternative<int64_t>(*value) ? ir::TypeKind::Int : ir::TypeKind::None;
      m->setAttr("value", *value);
    }
    m->setParent(&b);
    ir::Value* r = m->addResult(kind);
    made.push_back(std::move(m));
    return r;
  };
  auto constant = [&](ir::Attr value) { return node(ir::Op::Const, {}, value); };  // an int or none
  auto indexWith = [&](ir::Value* index) {
    std::vector<ir::Value*> items;
    for (int64_t d = 0; d < *dim; ++d) {
      ir::Value* none = constant(ir::NoneAttr{});
      items.push_back(node(ir::Op::MakeSlice, {none, none, none}));
    }
    items.push_back(index);
    return node(ir::Op::MakeTuple, items);
  };
  // The replacing node; the nodes it reads go before it.
  auto finish = [&](ir::Op op, std::vector<ir::Value*> operands) {
    auto last = std::make_unique<ir::Node>(op, n.loc());
    for (ir::Value* v : operands) last->addOperand(v);
    for (std::unique_ptr<ir::Node>& m : made) out.push_back(std::move(m));
    return last;
  };
  ir::Value* x = attr->operand(0);
  if (name == "unbind") {
    // One indexing per slice: beyond a few dozen, the call (one node) is
    // cheaper to compile than the tuple it makes.
    constexpr int64_t kMaxUnbound = 64;
    if (!size.isKnown() || size.size > kMaxUnbound) return nullptr;
    std::vector<ir::Value*> parts;
    for (int64_t k = 0; k < size.size; ++k) parts.push_back(node(ir::Op::GetItem, {x, indexWith(constant(k))}));
    return finish(ir::Op::MakeTuple, parts);
  }
  if (name == "select") {
    if (arg[1]->type().kind != ir::TypeKind::Int) return nullptr;
    return finish(ir::Op::GetItem, {x, indexWith(arg[1])});
  }
  if (name == "index_select") {
    const ir::Type& it = arg[1]->type();
    if (!it.isTensor() || !it.dtype || !it.shape || it.shape->size() != 1 ||
        (*it.dtype != ir::DType::I64 && *it.dtype != ir::DType::I32))
      return nullptr;
    return finish(ir::Op::GetItem, {x, indexWith(arg[1])});
  }
  std::optional<int64_t> start = ir::constInt(arg[1]), length = ir::constInt(arg[2]);
  if (!size.isKnown() || !start || !length) return nullptr;
  int64_t s = *start < 0 ? *start + size.size : *start;
  if (*start < -size.size || *start > size.size || *length < 0 || s + *length > size.size) return nullptr;
  ir::Value* window = node(ir::Op::MakeSlice, {constant(s), constant(s + *length), constant(ir::NoneAttr{})});
  return finish(ir::Op::GetItem, {x, indexWith(window)});
}

// The nodes replacing frexp(x) or x.frexp() in call `n` of a float tensor
// x (else the call stays, and raises at run time): the tuple of
// frexp_mantissa and frexp_exponent as i32, with the nodes it reads
// before it; or null.
std::unique_ptr<ir::Node> frexpOp(ir::Block& b, ir::Node& n, Nodes& out) {
  const ir::Node* callee = n.operand(0)->def();
  if (!callee || !n.strListAttr("kw").empty()) return nullptr;
  ir::Value* x = nullptr;
  if (callee->op() == ir::Op::Builtin && callee->strAttr("name") == "frexp" && n.operands().size() == 2)
    x = n.operand(1);
  else if (callee->op() == ir::Op::GetAttr && callee->strAttr("name") == "frexp" && n.operands().size() == 1)
    x = callee->operand(0);
  if (!x || !x->type().isTensor() || !x->type().dtype || !ir::isFloating(*x->type().dtype)) return nullptr;
  auto node = [&](ir::Op op, ir::Value* operand, std::optional<ir::Attr> dtype = std::nullopt) {
    auto m = std::make_unique<ir::Node>(op, n.loc());
    m->addOperand(operand);
    if (dtype) m->setAttr("dtype", *dtype);
    m->setParent(&b);
    ir::Value* r = m->addResult(ir::TypeKind::Any);
    out.push_back(std::move(m));
    return r;
  };
  ir::Value* mantissa = node(ir::Op::FrexpMantissa, x);
  ir::Value* exponent = node(ir::Op::FrexpExponent, x);
  ir::Value* exponent32 = node(ir::Op::AsType, exponent, std::string(ir::dtypeName(ir::DType::I32)));
  auto tuple = std::make_unique<ir::Node>(ir::Op::MakeTuple, n.loc());
  tuple->addOperand(mantissa);
  tuple->addOperand(exponent32);
  return tuple;
}

bool rewriteBlock(ir::Block& b) {
  bool changed = false;
  Nodes out;
  out.reserve(b.nodes().size());
  for (std::unique_ptr<ir::Node>& owned : b.mutableNodes()) {
    ir::Node& n = *owned;
    for (size_t i = 0; i < n.numBlocks(); ++i) changed |= rewriteBlock(*n.block(i));
    if (n.op() != ir::Op::Call) {
      out.push_back(std::move(owned));
      continue;
    }
    std::optional<ir::OpName> method = calledMethod(n);
    std::unique_ptr<ir::Node> replacement = likeOtherOp(b, n, out);
    if (!replacement) replacement = indexAlongOp(b, n, out);
    if (!replacement) replacement = shorthandOp(b, n, out);
    if (!replacement) replacement = frexpOp(b, n, out);
    if (!replacement) replacement = opFor(b, n, method, out);
    if (replacement) {
      replacement->adoptResults(n);
      replacement->setInlinedAt(n.inlinedAt());  // an error in it names the calls it was inlined through
      replacement->setParent(&b);
      out.push_back(std::move(replacement));
      changed = true;
      continue;
    }
    if (method && method->keyword.empty() && (ir::hasTrait(method->op, ir::FUNC) || ir::hasTrait(method->op, ir::PYTHON))) {
      methodToBuiltin(b, n, method->op, out);
      changed = true;
    }
    out.push_back(std::move(owned));
  }
  b.mutableNodes() = std::move(out);
  return changed;
}

}  // namespace

bool builtinOps(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) { return rewriteBlock(*f.body()); });
}

}  // namespace nn::passes
