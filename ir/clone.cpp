// Function cloning: one recursive walk that maps every value of the source
// to its copy before any use of it is copied (definitions precede uses in
// program order, and nested blocks only use values defined before them).
#include "ir/clone.h"

#include <optional>
#include <unordered_map>

namespace nn::ir {
namespace {

class Cloner {
 public:
  void block(const Block& src, Block& dst) {
    for (size_t i = 0; i < src.numArgs(); ++i) map_[src.arg(i)] = dst.addArg(src.arg(i)->type());
    nodes(src, dst);
  }
  void nodes(const Block& src, Block& dst) {
    for (const auto& n : src.nodes()) node(*n, dst);
  }
  // Values defined outside what is copied stay themselves (a loop body's
  // reads of the enclosing block) instead of being an error.
  explicit Cloner(bool outerStays = false) : outerStays_(outerStays) {}
  void map(const Value* from, Value* to) { map_[from] = to; }
  Value* mapped(const Value* v) const {
    auto it = map_.find(v);
    if (it != map_.end() || !outerStays_) return map_.at(v);
    return const_cast<Value*>(v);
  }

  // Copies one node to the end of dst (or before `before` when given).
  void node(const Node& src, Block& dst, std::optional<size_t> before = std::nullopt) {
    auto owned = std::make_unique<Node>(src.op(), src.loc());
    Node* n = owned.get();
    if (before) {
      owned->setParent(&dst);
      dst.mutableNodes().insert(dst.mutableNodes().begin() + static_cast<std::ptrdiff_t>(*before), std::move(owned));
    } else {
      dst.append(std::move(owned));
    }
    for (const Value* v : src.operands()) n->addOperand(mapped(v));
    for (const auto& [name, value] : src.attrs()) n->setAttr(name, value);
    n->setInlinedAt(src.inlinedAt());
    if (src.backward()) n->setBackward();
    for (size_t i = 0; i < src.numResults(); ++i) {
      Value* r = n->addResult(src.result(i)->type());
      r->setOwner(&dst);
      r->setNameHint(src.result(i)->nameHint());
      map_[src.result(i)] = r;
    }
    for (size_t i = 0; i < src.numBlocks(); ++i) block(*src.block(i), *n->addBlock());
  }

 private:
  bool outerStays_;
  std::unordered_map<const Value*, Value*> map_;
};

void addSites(Node& n, const std::vector<SourceLoc>& outer) {
  std::vector<SourceLoc> sites = n.inlinedAt();
  sites.insert(sites.end(), outer.begin(), outer.end());
  n.setInlinedAt(std::move(sites));
  for (size_t i = 0; i < n.numBlocks(); ++i)
    for (const auto& inner : n.block(i)->nodes()) addSites(*inner, outer);
}

}  // namespace

Function* cloneFunction(const Function& src, Graph& dst) { return cloneFunction(src, dst, src.name()); }

Function* cloneFunction(const Function& src, Graph& dst, const std::string& name) {
  Function* f = dst.addFunction(name, src.loc());
  Cloner c;
  const Block& body = *src.body();
  for (size_t i = 0; i < src.numParams(); ++i) c.map(body.arg(i), f->addParam(src.paramNames()[i], body.arg(i)->type(), src.paramKind(i)));
  for (size_t i = 0; i < src.numCaptures(); ++i)
    c.map(body.arg(src.numParams() + i), f->addCapture(src.captureNames()[i], body.arg(src.numParams() + i)->type()));
  for (size_t i = 0; i < src.numParams(); ++i)
    if (src.paramAnnotation(i)) f->setParamAnnotation(i, *src.paramAnnotation(i));
  if (src.returnAnnotation()) f->setReturnAnnotation(*src.returnAnnotation());
  c.nodes(body, *f->body());
  f->number();
  return f;
}

Value* inlineBody(const Function& callee, Block& into, size_t pos, const std::vector<Value*>& args,
                  const Node& call) {
  const Block& body = *callee.body();
  const auto& nodes = body.nodes();
  if (nodes.empty() || nodes.back()->op() != Op::Return || args.size() != body.numArgs()) return nullptr;
  for (size_t i = 0; i + 1 < nodes.size(); ++i)
    if (nodes[i]->op() == Op::Return) return nullptr;
  Cloner c;
  for (size_t i = 0; i < args.size(); ++i) c.map(body.arg(i), args[i]);
  for (size_t i = 0; i + 1 < nodes.size(); ++i) c.node(*nodes[i], into, pos + i);
  std::vector<SourceLoc> outer{call.loc()};
  outer.insert(outer.end(), call.inlinedAt().begin(), call.inlinedAt().end());
  for (size_t i = 0; i + 1 < nodes.size(); ++i) addSites(*into.nodes()[pos + i], outer);
  return c.mapped(nodes.back()->operand(0));
}

std::vector<Value*> appendBlockCopy(const Block& src, Block& into, const std::vector<Value*>& args) {
  Cloner c(/*outerStays=*/true);
  for (size_t i = 0; i < args.size() && i < src.numArgs(); ++i) c.map(src.arg(i), args[i]);
  const auto& nodes = src.nodes();
  size_t n = nodes.empty() ? 0 : nodes.size() - 1;
  for (size_t i = 0; i < n; ++i) c.node(*nodes[i], into);
  std::vector<Value*> out;
  if (const Node* term = src.terminator())
    for (const Value* v : term->operands()) out.push_back(c.mapped(v));
  return out;
}

}  // namespace nn::ir
