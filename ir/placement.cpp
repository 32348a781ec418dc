// The compile-time device analysis (placement.h) and its printed view.
#include "ir/placement.h"

#include <variant>

#include "ir/dtype.h"

namespace nn::ir {

std::string canonicalDevice(const std::string& name) {
  if (name == "cpu:0") return "cpu";
  if (name == "cuda") return "cuda:0";
  return name;
}

const std::string* constantDeviceName(const Value* v) {
  const Node* def = v->def();
  if (!def || def->op() != Op::Const) return nullptr;
  const Attr* a = def->attr("value");
  return a ? std::get_if<std::string>(a) : nullptr;
}

std::optional<std::string> resultDevice(const Node& n, const std::function<const std::string*(const Value*)>& known) {
  if (n.numResults() != 1 || !n.result(0)->type().isTensor() || (n.numBlocks() > 0 && n.op() != Op::Fused))
    return std::nullopt;
  if (n.op() == Op::ToDevice) return canonicalDevice(n.strAttr("device"));
  if (n.op() == Op::Place) {
    const std::string* name = constantDeviceName(n.operand(1));
    return name ? std::optional<std::string>(canonicalDevice(*name)) : std::nullopt;
  }
  if (isTensorOp(n.op()) && hasTrait(n.op(), CREATE)) {
    const Attr* a = n.attr("device");
    const std::string* name = a ? std::get_if<std::string>(a) : nullptr;
    return name ? canonicalDevice(*name) : "cpu";
  }
  if (n.op() == Op::CopyLike) {
    const std::string* d = known(n.operand(1));
    return d ? std::optional<std::string>(*d) : std::nullopt;
  }
  if (!followsOperands(n.op())) return std::nullopt;  // calls, container reads: the run decides
  std::vector<const std::string*> devices;
  for (const Value* v : n.operands()) {
    if (!v->type().isTensor()) {
      devices.push_back(nullptr);
      continue;
    }
    const std::string* d = known(v);
    if (!d) return std::nullopt;
    devices.push_back(d);
  }
  size_t i = decidingOperand(n.op(), devices);
  if (i == devices.size()) return std::nullopt;
  return *devices[i];
}

bool followsOperands(Op op) {
  if (op == Op::ToDevice || op == Op::CopyLike || op == Op::Place) return false;
  if (isTensorOp(op)) return !hasTrait(op, CREATE);
  return hasTrait(op, ELEM) || op == Op::MatMul || op == Op::GetItem || op == Op::SetItem || op == Op::Fused;
}

size_t decidingOperand(Op op, const std::vector<const std::string*>& devices) {
  size_t first = devices.size(), chosen = devices.size();
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!devices[i]) continue;
    if (first == devices.size()) first = i;
    if (chosen == devices.size() && *devices[i] != "cpu") chosen = i;
  }
  // An update stays where the updated value is.
  if (opInfo(op).typeRule == TypeRule::First && !devices.empty() && devices[0]) return 0;
  return chosen != devices.size() ? chosen : first;
}

namespace {

void learnBlock(const Block& b, std::unordered_map<const Value*, std::string>& devices) {
  auto known = [&](const Value* v) -> const std::string* {
    auto it = devices.find(v);
    return it == devices.end() ? nullptr : &it->second;
  };
  for (const auto& n : b.nodes()) {
    for (size_t i = 0; i < n->numBlocks(); ++i) learnBlock(*n->block(i), devices);
    if (std::optional<std::string> d = resultDevice(*n, known)) devices[n->result(0)] = *d;
  }
}

std::string bytesOf(const Type& t) {
  if (!t.hasStaticShape() || !t.dtype) return "size known when it runs";
  size_t n = dtypeSize(*t.dtype);
  for (const Dim& d : *t.shape) n *= static_cast<size_t>(d.size);
  return std::to_string(n) + " bytes";
}

std::string where(const Node& n) {
  return std::to_string(n.loc().line) + ":" + std::to_string(n.loc().col);
}

// The graph-mode compile cache starts a version with `to %param {device}`
// at the function's own location for each tensor parameter whose device the
// version is for: a statement of where the parameter is, not a copy.
bool statesParameter(const Node& n) {
  if (n.op() != Op::ToDevice) return false;
  const Function* f = n.parent() ? n.parent()->function() : nullptr;
  const Value* v = n.operand(0);
  return f && n.parent() == f->body() && !v->def() && v->owner() == f->body() && n.loc().line == f->loc().line &&
         n.loc().col == f->loc().col;
}

void printBlock(const Block& b, const std::unordered_map<const Value*, std::string>& devices, std::ostream& out) {
  for (const auto& n : b.nodes()) {
    // The ops of an if or loop run where they say; a fused node's run as
    // one kernel where it does.
    if (n->op() != Op::Fused)
      for (size_t i = 0; i < n->numBlocks(); ++i) printBlock(*n->block(i), devices, out);
    if (n->numResults() != 1 || !n->result(0)->type().isTensor()) continue;
    auto it = devices.find(n->result(0));
    std::string device = it == devices.end() ? "where its operands are" : it->second;
    if (statesParameter(*n)) {
      out << "  " << where(*n) << "  parameter '" << n->operand(0)->nameHint() << "' " << n->operand(0)->type().str()
          << " on " << device << "\n";
      continue;
    }
    if (n->op() == Op::ToDevice || n->op() == Op::Place || n->op() == Op::CopyLike) {
      const Value* moved = n->operand(0);
      std::string name = moved->nameHint().empty() ? "a value" : "'" + moved->nameHint() + "'";
      auto from = devices.find(moved);
      out << "  " << where(*n) << "  copy " << name << " " << moved->type().str() << " (" << bytesOf(moved->type())
          << ") " << (from == devices.end() ? "" : "from " + from->second + " ") << "to " << device << "\n";
      continue;
    }
    out << "  " << where(*n) << "  " << n->info().name << " on " << device << "\n";
  }
}

}  // namespace

std::unordered_map<const Value*, std::string> knownDevices(const Function& f) {
  std::unordered_map<const Value*, std::string> devices;
  learnBlock(*f.body(), devices);
  return devices;
}

void printPlacement(const Function& f, std::ostream& out) {
  out << "placement of " << f.name() << "(";
  for (size_t i = 0; i < f.numParams(); ++i) out << (i ? ", " : "") << f.body()->arg(i)->type().str();
  out << ")\n";
  printBlock(*f.body(), knownDevices(f), out);
}

}  // namespace nn::ir
