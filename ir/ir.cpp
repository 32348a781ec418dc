// The IR data structures and the op table lookup.
#include "ir/ir.h"

#include <algorithm>
#include <cstring>

#include "ir/liveness.h"
#include "ir/op_signature.h"
#include "ir/shape_rules.h"

namespace nn::ir {

// The gradient rules ops.def names (gradient_rules.cpp).
#define OP(Enum, text, minOps, maxOps, results, blocks, traits, rule, gradient) void gradient(GradientBuilder&);
#define TENSOR_OP(Enum, text, signature, traits, shapeRule, gradient) void gradient(GradientBuilder&);
#include "ir/ops.def"
#undef TENSOR_OP
#undef OP

const OpInfo kOpTable[] = {
#define OP(Enum, text, minOps, maxOps, results, blocks, traits, rule, gradient) \
  {text, minOps, maxOps, results, blocks, traits, TypeRule::rule, "", nullptr, &gradient},
#define TENSOR_OP(Enum, text, signature, traits, shapeRule, gradient)                                    \
  {text, countOperandParams(signature, true), countOperandParams(signature, false), 1, 0, traits, \
   TypeRule::Shape, signature, &shape_rules::shapeRule, &gradient},
#include "ir/ops.def"
#undef TENSOR_OP
#undef OP
};
static_assert(std::size(kOpTable) == kNumOps);

bool opFromName(std::string_view name, Op& out) {
  // Hashed once, then only read: method lookups (x.sum()) run per call in
  // eager mode.
  static const std::unordered_map<std::string_view, Op> byName = [] {
    std::unordered_map<std::string_view, Op> m;
    for (size_t i = 0; i < std::size(kOpTable); ++i) m.emplace(kOpTable[i].name, static_cast<Op>(i));
    return m;
  }();
  auto it = byName.find(name);
  if (it == byName.end()) return false;
  out = it->second;
  return true;
}

Value* Node::addResult(Type t) {
  results_.push_back(std::make_unique<Value>(t, this, parent_));
  return results_.back().get();
}

Block* Node::addBlock() {
  Function* f = parent_ ? parent_->function() : nullptr;
  blocks_.push_back(std::make_unique<Block>(this, f));
  return blocks_.back().get();
}

void Node::setAttr(const std::string& name, Attr value) {
  executorCache_.store(nullptr, std::memory_order_release);
  auto it = std::lower_bound(attrs_.begin(), attrs_.end(), name,
                             [](const auto& a, const std::string& n) { return a.first < n; });
  if (it != attrs_.end() && it->first == name) it->second = std::move(value);
  else attrs_.insert(it, {name, std::move(value)});
}

void Node::removeAttr(std::string_view name) {
  auto it = std::find_if(attrs_.begin(), attrs_.end(), [&](const auto& a) { return a.first == name; });
  if (it == attrs_.end()) return;
  executorCache_.store(nullptr, std::memory_order_release);
  attrs_.erase(it);
}

const Attr* Node::attr(std::string_view name) const {
  for (const auto& a : attrs_)
    if (a.first == name) return &a.second;
  return nullptr;
}

const std::string& Node::strAttr(std::string_view name) const {
  static const std::string empty;
  const Attr* a = attr(name);
  if (a && std::holds_alternative<std::string>(*a)) return std::get<std::string>(*a);
  return empty;
}

int64_t Node::intAttr(std::string_view name, int64_t fallback) const {
  const Attr* a = attr(name);
  if (a && std::holds_alternative<int64_t>(*a)) return std::get<int64_t>(*a);
  return fallback;
}

const std::vector<std::string>& Node::strListAttr(std::string_view name) const {
  static const std::vector<std::string> empty;
  const Attr* a = attr(name);
  if (a && std::holds_alternative<std::vector<std::string>>(*a))
    return std::get<std::vector<std::string>>(*a);
  return empty;
}

const Ints& Node::intsAttr(std::string_view name) const {
  static const Ints empty;
  const Attr* a = attr(name);
  if (a && std::holds_alternative<Ints>(*a)) return std::get<Ints>(*a);
  return empty;
}

Value* Block::addArg(Type t) {
  args_.push_back(std::make_unique<Value>(t, nullptr, this));
  return args_.back().get();
}

Node* Block::append(std::unique_ptr<Node> node) {
  node->setParent(this);
  nodes_.push_back(std::move(node));
  return nodes_.back().get();
}

Function::Function(std::string name, SourceLoc loc)
    : name_(std::move(name)), loc_(loc), body_(std::make_unique<Block>(nullptr, this)) {}

Value* Function::addParam(const std::string& name, Type t, ParamKind kind) {
  // Parameters precede captures in the body's arguments.
  Value* v = body_->addArg(t);
  v->setNameHint(name);
  paramNames_.push_back(name);
  paramKinds_.push_back(kind);
  numPositional_ += kind == ParamKind::Positional;
  if (kind == ParamKind::VarArgs) varArgs_ = static_cast<int>(paramNames_.size() - 1);
  if (kind == ParamKind::VarKeywords) varKeywords_ = static_cast<int>(paramNames_.size() - 1);
  return v;
}

Value* Function::addCapture(const std::string& name, Type t) {
  Value* v = body_->addArg(t);
  v->setNameHint(name);
  captureNames_.push_back(name);
  return v;
}

const void* Block::publishInterpreterPlan(std::shared_ptr<const void> plan) const {
  const void* expected = nullptr;
  if (!interpreterPlan_.compare_exchange_strong(expected, plan.get(), std::memory_order_acq_rel)) return expected;
  // Only the thread that published writes the owner; readers use the pointer.
  interpreterPlanOwner_ = std::move(plan);
  return interpreterPlanOwner_.get();
}

void Block::dropInterpreterPlan() {
  interpreterPlan_.store(nullptr, std::memory_order_release);
  interpreterPlanOwner_.reset();
}

static void numberBlock(Block* b, uint32_t& next) {
  b->dropInterpreterPlan();
  for (const auto& a : b->args()) a->setId(next++);
  for (const auto& n : b->nodes()) {
    for (size_t i = 0; i < n->numResults(); ++i) n->result(i)->setId(next++);
    for (size_t i = 0; i < n->numBlocks(); ++i) numberBlock(n->block(i), next);
  }
}

uint32_t Function::number() {
  uint32_t next = 0;
  numberBlock(body_.get(), next);
  numValues_ = next;
  markLastUses(*this);
  return next;
}

const char* opSymbol(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::FloorDiv: return "//";
    case Op::Mod: return "%";
    case Op::Pow: return "**";
    case Op::MatMul: return "@";
    case Op::BitAnd: return "&";
    case Op::BitOr: return "|";
    case Op::BitXor: return "^";
    case Op::LShift: return "<<";
    case Op::RShift: return ">>";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    default: return opInfo(op).name;
  }
}

Function* Graph::addFunction(std::string name, SourceLoc loc) {
  functions_.push_back(std::make_unique<Function>(std::move(name), loc));
  Function* f = functions_.back().get();
  f->setGraph(this);
  functionsByName_.emplace(f->name(), f);
  return f;
}

Function* Graph::function(const std::string& name) const {
  auto it = functionsByName_.find(name);
  if (it != functionsByName_.end()) return it->second;
  return base_ ? base_->function(name) : nullptr;
}

Value* Node::setOrder(std::vector<Value*> after) {
  orderAfter_ = std::move(after);
  token_ = std::make_unique<Value>(Type(TypeKind::Token), this, parent_);
  return token_.get();
}

void Node::adoptResults(Node& other) {
  for (auto& r : other.results_) {
    r->setDef(this);
    results_.push_back(std::move(r));
  }
  other.results_.clear();
}

bool replaceOperands(Node& n, const std::unordered_map<const Value*, Value*>& map) {
  bool changed = false;
  for (size_t i = 0; i < n.operands().size(); ++i) {
    auto it = map.find(n.operand(i));
    if (it == map.end()) continue;
    n.setOperand(i, it->second);
    changed = true;
  }
  return changed;
}

bool replaceUses(Block& b, const std::unordered_map<const Value*, Value*>& map) {
  bool changed = false;
  for (const auto& n : b.nodes()) {
    changed |= replaceOperands(*n, map);
    for (size_t i = 0; i < n->numBlocks(); ++i) changed |= replaceUses(*n->block(i), map);
  }
  return changed;
}

void collectUsedValues(const Block& b, std::unordered_set<const Value*>& used) {
  for (const auto& n : b.nodes()) {
    used.insert(n->operands().begin(), n->operands().end());
    for (size_t i = 0; i < n->numBlocks(); ++i) collectUsedValues(*n->block(i), used);
  }
}

bool replaceUses(Function& f, const std::unordered_map<const Value*, Value*>& map) {
  return !map.empty() && replaceUses(*f.body(), map);
}

Node* build(Block* b, Op op, SourceLoc loc, std::vector<Value*> operands, size_t numResults) {
  auto node = std::make_unique<Node>(op, loc);
  for (Value* v : operands) node->addOperand(v);
  Node* n = b->append(std::move(node));
  for (size_t i = 0; i < numResults; ++i) n->addResult(Type::any());
  return n;
}

bool callsItself(const Node& call, const Function& f) {
  if (call.op() != Op::Call || !call.operand(0)->def() || call.operand(0)->def()->op() != Op::SelfClosure ||
      !call.strListAttr("kw").empty())
    return false;
  const Block& body = *f.body();
  if (call.operands().size() != body.numArgs() + 1) return false;
  for (size_t i = 0; i < body.numArgs(); ++i)
    if (call.operand(i + 1)->type() != body.arg(i)->type()) return false;
  return true;
}

bool reducesWhole(const Node& n) {
  if (!hasTrait(n.op(), REDUCE)) return false;
  const Attr* axis = n.attr("axis");
  const Attr* keep = n.attr("keepdims");
  return axis && std::holds_alternative<NoneAttr>(*axis) && keep && *keep == Attr(false);
}

const Node* trailingReduction(const Node& fused) {
  const Node* last = fused.block(0)->terminator()->operand(0)->def();
  return last && hasTrait(last->op(), REDUCE) ? last : nullptr;
}

}  // namespace nn::ir
