// Decoding a block into the interpreter's steps (interpreter_steps.h).
#include "runtime/interpreter_steps.h"

namespace nn::rt {

namespace {

using ir::Op;

// The ops numberFastPath computes for two numbers.
bool numberOp(Op op) {
  switch (op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Mod:
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: return true;
    default: return false;
  }
}

void classify(const ir::Node& n, Step& s) {
  if (n.op() == Op::Const && n.numResults() == 1) {
    const ir::Attr* a = n.attr("value");
    if (const auto* i = a ? std::get_if<int64_t>(a) : nullptr) {
      s.kind = StepKind::ConstInt;
      s.imm.i = *i;
    } else if (const auto* d = a ? std::get_if<double>(a) : nullptr) {
      s.kind = StepKind::ConstFloat;
      s.imm.f = *d;
    }
    return;
  }
  if (n.op() == Op::LoadGlobal) {
    s.kind = StepKind::LoadGlobal;
    return;
  }
  if (n.op() == Op::IterLen && n.operands().size() == 1 && n.numResults() == 1) {
    s.kind = StepKind::IterLen;
    s.a = n.operand(0)->id();
    return;
  }
  if (n.op() == Op::If && n.operands().size() == 1 && n.numBlocks() == 2) {
    s.kind = StepKind::If;
    s.a = n.operand(0)->id();
    return;
  }
  // (A recursive call through self_closure has its result's type checked:
  // execCall's.)
  if (const ir::Node* callee = n.op() == Op::Call ? n.operand(0)->def() : nullptr;
      n.op() == Op::Call && n.attrs().empty() && !(callee && callee->op() == Op::SelfClosure)) {
    s.kind = StepKind::Call;
    s.a = n.operand(0)->id();
    return;
  }
  if (n.op() == Op::GetAttr && n.operands().size() == 1 && n.numResults() == 1) {
    s.kind = StepKind::ModuleAttr;
    s.a = n.operand(0)->id();
    return;
  }
  if (n.operands().size() != 2 || n.numResults() != 1) return;
  if (numberOp(n.op())) s.kind = StepKind::Number;
  else if (n.op() == Op::IterItem) s.kind = StepKind::IterItem;
  else return;
  s.a = n.operand(0)->id();
  s.b = n.operand(1)->id();
}

// Marks the arguments of the block whose ids are [first, first + read.size())
// that the nodes of b read.
void markArgsRead(const ir::Block& b, uint32_t first, std::vector<bool>& read) {
  auto mark = [&](const ir::Value* v) {
    if (v->id() >= first && v->id() - first < read.size()) read[v->id() - first] = true;
  };
  for (const auto& n : b.nodes()) {
    for (const ir::Value* v : n->operands()) mark(v);
    for (size_t k = 0; k < n->numBlocks(); ++k) markArgsRead(*n->block(k), first, read);
  }
}

}  // namespace

BlockSteps decodeSteps(const ir::Block& b) {
  BlockSteps plan;
  plan.steps.reserve(b.nodes().size());
  for (const auto& owned : b.nodes()) {
    const ir::Node& n = *owned;
    if (ir::hasTrait(n.op(), ir::TERM)) {
      plan.terminator = &n;
      break;
    }
    Step s{};
    s.node = &n;
    s.op = n.op();
    s.dying = n.dyingOperands();
    if (n.numResults() > 0) s.result = n.result(0)->id();
    s.killsBegin = static_cast<uint32_t>(plan.kills.size());
    plan.kills.insert(plan.kills.end(), n.kills().begin(), n.kills().end());
    s.killsEnd = static_cast<uint32_t>(plan.kills.size());
    classify(n, s);
    plan.steps.push_back(s);
  }
  if (b.numArgs() > 0) {
    plan.firstArg = b.arg(0)->id();
    std::vector<bool> read(b.numArgs());
    markArgsRead(b, plan.firstArg, read);
    for (uint32_t i = 0; i < read.size(); ++i)
      if (read[i]) plan.argsRead.push_back(i);
  }
  return plan;
}

}  // namespace nn::rt
