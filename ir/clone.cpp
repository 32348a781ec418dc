// Function cloning: one recursive walk that maps every value of the source
// to its copy before any use of it is copied (definitions precede uses in
// program order, and nested blocks only use values defined before them).
#include "ir/clone.h"

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
  void map(const Value* from, Value* to) { map_[from] = to; }

 private:
  void node(const Node& src, Block& dst) {
    Node* n = dst.append(std::make_unique<Node>(src.op(), src.loc()));
    for (const Value* v : src.operands()) n->addOperand(map_.at(v));
    for (const auto& [name, value] : src.attrs()) n->setAttr(name, value);
    for (size_t i = 0; i < src.numResults(); ++i) {
      Value* r = n->addResult(src.result(i)->type());
      r->setNameHint(src.result(i)->nameHint());
      map_[src.result(i)] = r;
    }
    for (size_t i = 0; i < src.numBlocks(); ++i) block(*src.block(i), *n->addBlock());
  }

  std::unordered_map<const Value*, Value*> map_;
};

}  // namespace

Function* cloneFunction(const Function& src, Graph& dst) {
  Function* f = dst.addFunction(src.name(), src.loc());
  Cloner c;
  const Block& body = *src.body();
  for (size_t i = 0; i < src.numParams(); ++i) c.map(body.arg(i), f->addParam(src.paramNames()[i], body.arg(i)->type()));
  for (size_t i = 0; i < src.numCaptures(); ++i)
    c.map(body.arg(src.numParams() + i), f->addCapture(src.captureNames()[i], body.arg(src.numParams() + i)->type()));
  c.nodes(body, *f->body());
  f->number();
  return f;
}

}  // namespace nn::ir
