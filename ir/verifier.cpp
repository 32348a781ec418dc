// The IR verifier: every operand is defined before its use in the same or
// an enclosing block (SSA dominance for structured control flow); operand,
// result and block counts match the op table; blocks end in the terminator
// their parent expects, with as many values as the parent has results
// (if/loop) or carried values (loop cond/body).
#include <unordered_set>

#include "ir/dtype.h"
#include "ir/op_signature.h"
#include "ir/text.h"

namespace nn::ir {
namespace {

class Verifier {
 public:
  void function(const Function& f) {
    fn_ = &f;
    // block() removes what it adds, so visible_ is empty here. (clear()
    // would zero the bucket array the largest function grew, once per
    // function: quadratic in a module of many lambdas.)
    // Python's order: positional, `*args`, keyword-only, `**kwargs`, with
    // one `*args` and one `**kwargs` at most.
    for (size_t i = 1; i < f.numParams(); ++i) {
      ParamKind a = f.paramKind(i - 1), b = f.paramKind(i);
      if (a > b || (a == b && a != ParamKind::Positional && a != ParamKind::KeywordOnly))
        error(f.loc(), "parameter '" + f.paramNames()[i] + "' is out of Python's signature order");
    }
    block(*f.body(), nullptr);
    const Node* t = f.body()->terminator();
    if (!t || t->op() != Op::Return) error(f.loc(), "function body does not end in return");
  }

 private:
  [[noreturn]] void error(SourceLoc loc, const std::string& msg) {
    fail(loc, "IR verification failed in @" + fn_->name() + ": " + msg);
  }

  void block(const Block& b, const Node* parent) {
    std::vector<const Value*> scope;
    for (const auto& a : b.args()) {
      visible_.insert(a.get());
      scope.push_back(a.get());
    }
    for (size_t i = 0; i < b.nodes().size(); ++i) {
      const Node& n = *b.nodes()[i];
      bool last = i + 1 == b.nodes().size();
      if (hasTrait(n.op(), TERM) && !last) error(n.loc(), std::string(n.info().name) + " is not at the end of its block");
      node(n);
      for (size_t r = 0; r < n.numResults(); ++r) {
        visible_.insert(n.result(r));
        scope.push_back(n.result(r));
      }
      if (n.token()) {
        visible_.insert(n.token());
        scope.push_back(n.token());
      }
    }
    if (parent) terminator(b, *parent);
    for (const Value* v : scope) visible_.erase(v);
  }

  void terminator(const Block& b, const Node& parent) {
    const Node* t = b.terminator();
    bool isLoopCond = parent.op() == Op::Loop && &b == parent.block(0);
    Op want = isLoopCond ? Op::Condition : Op::Yield;
    if (!t || t->op() != want)
      error(parent.loc(), std::string("block of ") + parent.info().name + " must end in " + opInfo(want).name);
    if ((parent.op() == Op::If || parent.op() == Op::Try) && t->operands().size() != parent.numResults())
      error(t->loc(), std::string("yield count does not match the results of ") + parent.info().name);
    if (parent.op() == Op::Try && &b == parent.block(1) &&
        b.numArgs() != 1 + parent.strListAttr("names").size())
      error(parent.loc(), "try handler arguments must be the exception and one per tracked name");
    if (parent.op() == Op::Try && &b == parent.block(1) && parent.operands().size() != parent.strListAttr("names").size())
      error(parent.loc(), "try must have one operand per tracked name");
    if (parent.op() == Op::Fused) {
      if (b.numArgs() != parent.operands().size()) error(parent.loc(), "fused block arguments do not match its inputs");
      if (t->operands().size() != parent.numResults()) error(t->loc(), "yield count does not match the results of fused");
      // A fused body runs on tiles of its inputs: it reads nothing else.
      for (const auto& inner : b.nodes())
        for (const Value* v : inner->operands())
          if (v->owner() != &b) error(inner->loc(), "fused body reads a value defined outside it");
    }
    if (parent.op() == Op::Loop) {
      size_t carried = parent.operands().size();
      if (b.numArgs() != carried) error(parent.loc(), "loop block arguments do not match carried values");
      if (!isLoopCond && t->operands().size() != carried)
        error(t->loc(), "loop body yields a different number of values than it carries");
    }
  }

  void node(const Node& n) {
    const OpInfo& info = n.info();
    size_t ops = n.operands().size();
    if (ops < size_t(info.minOperands) || (info.maxOperands >= 0 && ops > size_t(info.maxOperands)))
      error(n.loc(), std::string(info.name) + " has a wrong number of operands");
    if (info.numResults >= 0 && n.numResults() != size_t(info.numResults))
      error(n.loc(), std::string(info.name) + " has a wrong number of results");
    if (n.numBlocks() != size_t(info.numBlocks))
      error(n.loc(), std::string(info.name) + " has a wrong number of blocks");
    if (n.op() == Op::Loop && n.numResults() != ops)
      error(n.loc(), "loop must have one result per carried value");
    if (n.op() == Op::Unpack && n.numResults() != size_t(n.intAttr("n", -1)))
      error(n.loc(), "unpack result count does not match its n attribute");
    if (n.op() == Op::Unpack && n.intAttr("star", -1) >= static_cast<int64_t>(n.numResults()))
      error(n.loc(), "unpack's starred target is not one of its results");
    for (const Value* v : n.operands())
      if (!visible_.count(v)) error(n.loc(), std::string("operand of ") + info.name + " is not defined before its use");
    for (const Value* v : n.orderAfter())
      if (!visible_.count(v) || v->type().kind != TypeKind::Token)
        error(n.loc(), std::string("order edge of ") + info.name + " is not a token defined before it");
    if ((n.op() == Op::Call || n.op() == Op::CallMethod) && n.strListAttr("kw").size() + 1 > ops)
      error(n.loc(), std::string(info.name) + " has more keyword names than arguments");
    if (n.op() == Op::CallMethod && !n.attr("name")) error(n.loc(), "call_method has no method name");
    if (n.op() == Op::CallUnpacked) callUnpacked(n);
    if (isTensorOp(n.op())) attributes(n);
    for (size_t i = 0; i < n.numBlocks(); ++i) block(*n.block(i), &n);
  }

  // One spread kind per argument; one keyword name per keyword argument.
  void callUnpacked(const Node& n) {
    const Ints& spread = n.intsAttr("spread");
    if (spread.size() + 1 != n.operands().size()) error(n.loc(), "call_unpacked needs one spread kind per argument");
    size_t keywords = 0;
    for (int64_t k : spread) {
      if (k < 0 || k > static_cast<int64_t>(CallSpread::Mapping)) error(n.loc(), "call_unpacked has a bad spread kind");
      keywords += k == static_cast<int64_t>(CallSpread::Keyword);
    }
    if (keywords != n.strListAttr("kw").size()) error(n.loc(), "call_unpacked needs one name per keyword argument");
  }

  // A tensor op's attributes are parameters its signature declares as
  // attributes, each of the declared type.
  void attributes(const Node& n) {
    const Signature& sig = signatureOf(n.op());
    for (const auto& [name, value] : n.attrs()) {
      int i = sig.find(name);
      if (i < 0 || !sig.params[i].isAttr)
        error(n.loc(), std::string(n.info().name) + " has no attribute '" + name + "'");
      if (!fits(value, sig.params[i]))
        error(n.loc(), std::string("attribute '") + name + "' of " + n.info().name + " is not of its declared type");
    }
  }

  static bool fits(const Attr& a, const Param& p) {
    if (std::holds_alternative<NoneAttr>(a)) return p.optional;
    switch (p.type) {
      case AttrType::Int: return std::holds_alternative<int64_t>(a);
      case AttrType::Ints: return std::holds_alternative<int64_t>(a) || std::holds_alternative<Ints>(a);
      case AttrType::Float: return std::holds_alternative<double>(a);
      case AttrType::Bool: return std::holds_alternative<bool>(a);
      case AttrType::Str: return std::holds_alternative<std::string>(a);
      case AttrType::DType: return std::holds_alternative<std::string>(a) && dtypeFromName(std::get<std::string>(a));
    }
    return false;
  }

  const Function* fn_ = nullptr;
  std::unordered_set<const Value*> visible_;
};

}  // namespace

void verify(const Graph& g) {
  Verifier v;
  for (const auto& f : g.functions()) v.function(*f);
}

}  // namespace nn::ir
