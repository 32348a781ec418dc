// Graph mode's grad and value_and_grad: the version of a function that
// returns its gradients, built as IR and compiled by the pass pipeline,
// whose autodiff pass (passes/autodiff.cpp) writes the backward pass (see
// CompileCache::getGradient).
//
// The version is a copy of the function whose differentiated parameters
// are rebuilt, at its start, from one extra argument per leaf (tensor or
// float) of their structure, so that reads of the structure forward to
// typed leaves (passes/forward_elements.cpp); before its return it asks
// for the adjoint of the loss with respect to the leaves (an autodiff
// node) and returns them in the structure of the arguments, beside the
// value for value_and_grad, exactly as the tape version
// (stdlib/builtins_grad.cpp) returns them.
#include <algorithm>
#include <chrono>
#include <sstream>

#include "ir/clone.h"
#include "ir/type_rules.h"
#include "passes/reverse_mode.h"
#include "runtime/annotations.h"
#include "runtime/compile_cache.h"
#include "runtime/device.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {
namespace {

using ir::Node;
using ir::Op;

// "@device" for a tensor off the default device (versions are per device
// then: see perDevice below), else "".
std::string onDevice(const Value& v) {
  return CompileCache::offDefaultDevice(v) ? "@" + tensorOf(v).device().name() : std::string();
}

// Appends the leaves of `v` (named `path` and their place in it) to
// `leaves` and describes its structure in `shape`; false when a leaf is not
// a floating tensor, a float or None (the tape then reports it).
struct Leaves {
  Device& cpu;
  std::vector<Value> values;
  std::vector<std::string> names;

  bool flatten(const Value& v, const std::string& path, std::string& shape) {
    switch (v.kind()) {
      case Kind::Tuple:
      case Kind::List: {
        shape += v.is(Kind::Tuple) ? "(" : "[";
        const std::vector<Value>& items = v.as<SeqObj>().items;
        for (size_t i = 0; i < items.size(); ++i)
          if (!flatten(items[i], path + "[" + std::to_string(i) + "]", shape)) return false;
        shape += v.is(Kind::Tuple) ? ")" : "]";
        return true;
      }
      case Kind::Dict: {
        shape += "{";
        for (const auto& [key, item] : v.as<DictObj>().items) {
          shape += std::to_string(key.size()) + "#" + key + ":";  // unambiguous whatever the key holds
          if (!flatten(item, path + "[" + repr(Value::str(key)) + "]", shape)) return false;
        }
        shape += "}";
        return true;
      }
      case Kind::Tensor:
        if (!isFloating(tensorOf(v).dtype())) return false;
        values.push_back(v);
        names.push_back(path);
        shape += staticType(v).str() + onDevice(v) + ",";
        return true;
      case Kind::Float:
        values.push_back(makeTensorValue(fullLike(DType::F64, {}, v.asFloat(), cpu)));
        names.push_back(path);
        shape += "float,";
        return true;
      case Kind::None:  // no leaf: its gradient is None
        shape += "None,";
        return true;
      default: return false;
    }
  }
};

// Builds nodes into one block, each typed by its rule as it is made.
struct Emitter {
  ir::Block& b;
  SourceLoc loc;

  ir::Value* node(Op op, std::vector<ir::Value*> in, std::vector<std::pair<std::string, ir::Attr>> attrs = {}) {
    Node* n = ir::build(&b, op, loc, std::move(in), 1);
    for (auto& [name, value] : attrs) n->setAttr(name, std::move(value));
    n->result(0)->setType(ir::resultType(*n, 0));
    return n->result(0);
  }
  ir::Value* constant(ir::Attr v) { return node(Op::Const, {}, {{"value", std::move(v)}}); }

  // `v`'s structure built from the values `leaf` gives for its leaves in
  // order (a None stays None, and is no leaf).
  template <class Leaf>
  ir::Value* rebuild(const Value& v, Leaf& leaf) {
    switch (v.kind()) {
      case Kind::Tuple:
      case Kind::List: {
        std::vector<ir::Value*> items;
        for (const Value& item : v.as<SeqObj>().items) items.push_back(rebuild(item, leaf));
        return node(v.is(Kind::Tuple) ? Op::MakeTuple : Op::MakeList, std::move(items));
      }
      case Kind::Dict: {
        std::vector<ir::Value*> items;
        for (const auto& [key, item] : v.as<DictObj>().items) {
          items.push_back(constant(key));
          items.push_back(rebuild(item, leaf));
        }
        return node(Op::MakeDict, std::move(items));
      }
      case Kind::None: return constant(ir::NoneAttr{});
      default: return leaf(v);
    }
  }
};

bool returnsOnlyAtEnd(const ir::Block& b, bool top) {
  for (const auto& n : b.nodes()) {
    if (n->op() == Op::Return && !(top && n.get() == b.terminator())) return false;
    for (size_t k = 0; k < n->numBlocks(); ++k)
      if (!returnsOnlyAtEnd(*n->block(k), false)) return false;
  }
  return true;
}

}  // namespace

const ir::Function* CompileCache::getGradient(const ir::Function& fn, ModuleInstance& module, const GradientSpec& spec,
                                              std::vector<Value>& args, Device& cpu, SourceLoc callSite,
                                              std::string& why) {
  std::ostringstream key;
  key << &fn << (spec.tuple ? "T" : "") << (spec.hasAux ? "A" : "") << (spec.withValue ? "V" : "") << ":";
  for (size_t a : spec.argnums) key << a << ",";
  Leaves leaves{cpu, {}, {}};
  for (size_t i = 0; i < args.size(); ++i) {
    bool differentiated = std::find(spec.argnums.begin(), spec.argnums.end(), i) != spec.argnums.end();
    std::string shape;
    if (!differentiated) {
      shape = staticType(args[i]).str() + onDevice(args[i]);
    } else if (!leaves.flatten(args[i], i < fn.numParams() ? fn.paramNames()[i] : "", shape)) {
      why = "an argument holds a value that is not a float or a floating tensor";
      return nullptr;
    }
    key << "|" << shape;
  }
  // As for plain versions: with a tensor off the default device, the
  // version says where each tensor argument and leaf is, so that the copies
  // operations mixing devices need are nodes, and autodiff copies each
  // gradient back to its leaf's device.
  bool perDevice = std::any_of(leaves.values.begin(), leaves.values.end(), offDefaultDevice) ||
                   std::any_of(args.begin(), args.end(), offDefaultDevice);
  GradientVersion& v = gradients_[key.str()];
  if (v.graph && staleBinding(v.bindings, module).empty()) {
    why = v.why;
    if (v.fn) args.insert(args.end(), leaves.values.begin(), leaves.values.end());
    return v.fn;
  }
  if (v.graph && !typedBindingsCurrent(v.bindings, module)) noteTypedStale(fn);

  auto start = std::chrono::steady_clock::now();
  // A stale version is kept, not freed: a call of it may still be running further up.
  if (v.graph) retiredGradients_.push_back(std::move(v.graph));
  v = GradientVersion{};
  v.graph = versionGraph(fn);
  v.name = "grad of " + fn.name();
  ir::Function* copy = ir::cloneFunction(fn, *v.graph);
  ir::Block& body = *copy->body();
  for (size_t i = 0; i < args.size(); ++i) body.arg(i)->setType(staticType(args[i]));
  if (!returnsOnlyAtEnd(body, true) || !body.terminator() || body.terminator()->op() != Op::Return) {
    why = v.why = "the function returns from inside a block";
    return nullptr;
  }

  // The parameters rebuilt from the leaves, ahead of the body.
  auto& nodes = body.mutableNodes();
  std::vector<std::unique_ptr<Node>> original;
  for (auto& n : nodes) original.push_back(std::move(n));
  nodes.clear();
  std::unique_ptr<Node> ret = std::move(original.back());
  original.pop_back();
  Emitter emit{body, callSite};
  std::vector<ir::Value*> leafArgs;
  // Arguments after the captures, printed as captures named by their place.
  for (size_t i = 0; i < leaves.values.size(); ++i)
    leafArgs.push_back(copy->addCapture(leaves.names[i], staticType(leaves.values[i])));
  std::unordered_map<const ir::Value*, ir::Value*> rebuilt;
  size_t next = 0;
  for (size_t a : spec.argnums) {
    auto leaf = [&](const Value& x) {
      ir::Value* l = leafArgs[next++];
      if (!perDevice || !x.is(Kind::Tensor)) return l;
      return emit.node(Op::ToDevice, {l}, {{"device", ir::Attr(tensorOf(x).device().name())}});
    };
    rebuilt[body.arg(a)] = emit.rebuild(args[a], leaf);
  }
  for (auto& n : original) body.append(std::move(n));
  ir::replaceUses(*copy, rebuilt);
  if (perDevice) {
    std::vector<const Device*> devices(args.size(), nullptr);
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].is(Kind::Tensor) && std::find(spec.argnums.begin(), spec.argnums.end(), i) == spec.argnums.end())
        devices[i] = &tensorOf(args[i]).device();
    seedParameterDevices(*copy, devices);
  }

  // The gradients of the loss, in the arguments' structures, before the return.
  ir::Value* result = ret->operand(0);
  ir::Value* loss = result;
  if (spec.hasAux) {
    // (loss, aux) as the function writes it; the tape checks anything else.
    const Node* pair = result->def();
    if (!pair || pair->op() != Op::MakeTuple || pair->operands().size() != 2) {
      why = v.why = "has_aux: the function's result is not written as a pair";
      return nullptr;
    }
    loss = pair->operand(0);
  }
  Node* ad = ir::build(&body, Op::Autodiff, callSite, {loss}, 0);
  for (ir::Value* l : leafArgs) {
    ad->addOperand(l);
    ad->addResult(l->type());
  }
  std::vector<ir::Value*> perArg;
  next = 0;
  for (size_t a : spec.argnums) {
    auto leaf = [&](const Value& x) {
      ir::Value* g = ad->result(next++);
      return x.is(Kind::Float) ? emit.node(Op::Item, {g}) : g;
    };
    perArg.push_back(emit.rebuild(args[a], leaf));
  }
  ir::Value* grads = spec.tuple ? emit.node(Op::MakeTuple, perArg) : perArg[0];
  ir::Value* out = spec.withValue ? emit.node(Op::MakeTuple, {result, grads}) : grads;
  ret->setOperand(0, out);
  body.append(std::move(ret));

  v.bindings = bindGlobals(*copy, fn, module);
  bool typed = false;
  for (Binding& b : typeGlobals(*copy, fn, module)) {
    v.bindings.push_back(std::move(b));
    typed = true;
  }
  copy->number();
  try {
    optimise(*v.graph);
    v.fn = copy;
    if (options_.compiled) options_.compiled(*copy);
  } catch (passes::NotDifferentiable& e) {
    std::ostringstream reason;
    reason << e.what() << " (line " << e.diag().loc.line << ")";
    v.why = reason.str();
  } catch (const NnError& e) {
    // As for a plain version (CompileCache::get): an error the globals'
    // types prove is raised where it runs, here by the tape.
    if (!typed) throw;
    typedStale_[&fn] = kTypedStaleLimit;
    v.why = std::string("the types of the globals it reads prove an error, raised where it runs: ") + e.what();
  }
  v.compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  why = v.why;
  if (v.fn) args.insert(args.end(), leaves.values.begin(), leaves.values.end());
  return v.fn;
}

}  // namespace nn::rt
