// place-devices: the copies of `with device(...)` blocks made explicit.
//
// Lowering puts `place %v, %device` on every variable a block reads
// (frontend/lower_with.cpp). Once types are known:
//   - on a value that is not a tensor (a number, a list, a function), the
//     place is that value;
//   - on a tensor, with a device name known at compile time, it becomes the
//     copy `to %v {device = "..."}`, the node --emit=ir-opt shows and the
//     runtime's copy (a tensor already there is itself); CSE then leaves one
//     copy per value and device, however often the block reads it;
//   - on a tensor the IR shows is on that device already (made there, or
//     computed from tensors all there), the place is that tensor;
//   - anything else (a value of unknown type, a name computed at run time)
//     stays a place, which decides when it runs, as in eager mode.
// And an operation whose tensor operands are on several devices known at
// compile time gets a `to` before each operand not on the device it runs
// on (ir::decidingOperand), so the copies the runtime would make are
// nodes too, visible, shared by CSE and differentiated by autodiff (the
// gradient of a copy is the copy back). Where only the run knows the
// devices the runtime copies by the same rule.
//
// Algorithm: one walk over every block in program order, learning the
// device of each tensor value where the IR says it (ir/placement.h);
// linear. Invariants: a place's result has its operand's type, so
// replacing it by the operand or by a `to` (typed Like its operand) keeps
// every use well typed.
#include <string>
#include <unordered_map>

#include "ir/placement.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using Nodes = std::vector<std::unique_ptr<ir::Node>>;

class PlaceDevices {
 public:
  bool run(ir::Function& f) {
    bool changed = block(*f.body());
    if (!same_.empty()) {
      // A place of a place of x is x: follow the chains first.
      for (auto& [from, to] : same_)
        while (same_.count(to)) to = same_.at(to);
      ir::replaceUses(f, same_);
    }
    return changed;
  }

 private:
  // The device a tensor value is known to be on at compile time, or null.
  const std::string* deviceOf(const ir::Value* v) const {
    auto it = same_.find(v);
    if (it != same_.end()) v = it->second;
    auto d = device_.find(v);
    return d == device_.end() ? nullptr : &d->second;
  }

  // Records where n's result is, when the IR says (ir/placement.h).
  void learn(const ir::Node& n) {
    if (std::optional<std::string> d = ir::resultDevice(n, [this](const ir::Value* v) { return deviceOf(v); }))
      device_[n.result(0)] = *d;
  }

  // Copies n's tensor operands that are not on the device it runs on,
  // when the IR says where each is; the copies go to `out` before n.
  bool align(ir::Node& n, Nodes& out) {
    if (!ir::followsOperands(n.op()) || n.numBlocks() > 0) return false;
    std::vector<const std::string*> devices;
    for (const ir::Value* v : n.operands()) {
      const std::string* d = v->type().isTensor() ? deviceOf(v) : nullptr;
      if (v->type().isTensor() && !d) return false;  // the run decides
      devices.push_back(d);
    }
    size_t decides = ir::decidingOperand(n.op(), devices);
    if (decides == devices.size()) return false;  // no tensor operand
    const std::string target = *devices[decides];
    bool changed = false;
    for (size_t i = 0; i < n.operands().size(); ++i) {
      if (!devices[i] || *devices[i] == target) continue;
      changed = true;
      auto copy = std::make_unique<ir::Node>(ir::Op::ToDevice, n.loc());
      copy->setParent(n.parent());
      copy->addOperand(n.operand(i));
      copy->setAttr("device", target);
      copy->setInlinedAt(n.inlinedAt());
      ir::Value* moved = copy->addResult(n.operand(i)->type());
      moved->setNameHint(n.operand(i)->nameHint());
      n.setOperand(i, moved);
      learn(*copy);
      out.push_back(std::move(copy));
    }
    return changed;
  }

  bool block(ir::Block& b) {
    bool changed = false;
    Nodes out;
    out.reserve(b.nodes().size());
    for (std::unique_ptr<ir::Node>& owned : b.mutableNodes()) {
      ir::Node& n = *owned;
      for (size_t i = 0; i < n.numBlocks(); ++i) changed |= block(*n.block(i));
      if (n.op() != ir::Op::Place) {
        changed |= align(n, out);
        learn(n);
        out.push_back(std::move(owned));
        continue;
      }
      ir::Type t = n.operand(0)->type();
      const std::string* name = ir::constantDeviceName(n.operand(1));
      const std::string* at = deviceOf(n.operand(0));
      if ((t.kind != ir::TypeKind::Any && !t.isTensor()) || (name && at && *at == ir::canonicalDevice(*name))) {
        same_[n.result(0)] = n.operand(0);  // not a tensor, or already there
        changed = true;
        continue;
      }
      if (!t.isTensor() || !name) {
        out.push_back(std::move(owned));
        continue;
      }
      auto copy = std::make_unique<ir::Node>(ir::Op::ToDevice, n.loc());
      copy->addOperand(n.operand(0));
      copy->setAttr("device", *name);
      copy->setInlinedAt(n.inlinedAt());
      copy->adoptResults(n);
      copy->setParent(&b);
      learn(*copy);
      out.push_back(std::move(copy));
      changed = true;
    }
    b.mutableNodes() = std::move(out);
    return changed;
  }

  std::unordered_map<const ir::Value*, ir::Value*> same_;
  std::unordered_map<const ir::Value*, std::string> device_;
};

}  // namespace

bool placeDevices(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) { return PlaceDevices().run(f); });
}

}  // namespace nn::passes
