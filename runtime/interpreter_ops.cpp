// The non-recursive ops of the eager interpreter: constants, closures,
// containers, attributes, iteration, globals, imports and the effects
// assert/raise/echo; the value ops (arithmetic, comparisons, math,
// indexing) go through their execute entry in value_op.cpp. Control flow
// and calls are in interpreter.cpp.
#include <span>
#include <string_view>

#include "ir/builtins.h"
#include "runtime/cycle_collector.h"
#include "runtime/device_align.h"
#include "runtime/dict_views.h"
#include "runtime/format.h"
#include "runtime/interpreter.h"
#include "runtime/scalar_ops.h"
#include "runtime/tape.h"
#include "runtime/tensor_ops.h"
#include "runtime/value_op.h"

namespace nn::rt {

using ir::Op;

static Value inplaceListOp(Op op, const Value& list, const Value& rhs, SourceLoc loc) {
  SeqObj& seq = list.as<SeqObj>();
  if (op == Op::Add) {
    std::vector<Value> extra;
    switch (rhs.kind()) {
      case Kind::List:
      case Kind::Tuple: extra = rhs.as<SeqObj>().items; break;
      default: extra = binaryOp(Op::Add, makeList({}), rhs, loc).as<SeqObj>().items;
    }
    seq.reserveMore(extra.size());
    seq.items.insert(seq.items.end(), extra.begin(), extra.end());
    return list;
  }
  Value repeated = binaryOp(Op::Mul, list, rhs, loc);
  seq.items = repeated.as<SeqObj>().items;
  seq.settle();
  return list;
}

void undefinedError(const Value& v, SourceLoc loc) { fail(loc, "name '" + v.asStr() + "' is not defined"); }

Value iterable(const Value& v, SourceLoc loc) {
  switch (v.kind()) {
    case Kind::Range:
    case Kind::List:
    case Kind::Tuple: return v;
    case Kind::Lazy: return v.as<LazySeqObj>().loopView(v);
    case Kind::Tensor:
      if (tensorOf(v).ndim() == 0) fail(loc, "iteration over a 0-d tensor");
      return v;
    case Kind::Str: return makeTuple(charValues(v.asStr()));
    case Kind::Dict: return makeDictIterator(v, DictPart::Keys);
    default: fail(loc, std::string("'") + typeName(v) + "' object is not iterable");
  }
}

int64_t iterLength(const Value& s) {
  switch (s.kind()) {
    case Kind::Range: return s.as<RangeObj>().length();
    case Kind::Tensor: return tensorOf(s).dim(0);
    case Kind::Lazy: return s.as<LazySeqObj>().length();
    default: return static_cast<int64_t>(s.as<SeqObj>().items.size());
  }
}

bool lengthOf(const Value& v, int64_t& out) {
  switch (v.kind()) {
    case Kind::Str: out = static_cast<int64_t>(utf8Length(v.asStr())); return true;
    case Kind::List:
    case Kind::Tuple: out = static_cast<int64_t>(v.as<SeqObj>().items.size()); return true;
    case Kind::Dict: out = static_cast<int64_t>(v.as<DictObj>().items.size()); return true;
    case Kind::Range: out = v.as<RangeObj>().length(); return true;
    case Kind::Lazy: out = v.as<LazySeqObj>().length(); return true;
    case Kind::Tensor:
      if (tensorOf(v).ndim() == 0) return false;
      out = tensorOf(v).dim(0);
      return true;
    default: return false;
  }
}

Value iterItem(const Value& s, int64_t i, SourceLoc loc) {
  switch (s.kind()) {
    case Kind::Range: return Value::integer(s.as<RangeObj>().at(i));
    case Kind::Tensor: return makeTensorValue(tensorGetItem(tensorOf(s), Value::integer(i), loc));
    case Kind::Lazy: return s.as<LazySeqObj>().at(i, loc);
    default: {
      const auto& items = s.as<SeqObj>().items;
      if (i >= static_cast<int64_t>(items.size())) fail(loc, "list changed size during iteration");
      return items[i];
    }
  }
}

bool quickIterItem(const Value& s, int64_t i, Value& out) {
  switch (s.kind()) {
    case Kind::Range: out = Value::integer(s.as<RangeObj>().at(i)); return true;
    case Kind::Lazy: return s.as<LazySeqObj>().quickAt(i, out);
    case Kind::List:
    case Kind::Tuple: {
      const std::vector<Value>& items = s.as<SeqObj>().items;
      if (i < 0 || static_cast<size_t>(i) >= items.size()) return false;
      out = items[static_cast<size_t>(i)];
      return true;
    }
    default: return false;
  }
}

// Whether unpack n has a starred target (`first, *rest = xs`): its
// attributes searched inline, as this runs per item of a `for a, b in`.
static bool starredTarget(const ir::Node& n) {
  for (const auto& attr : n.attrs())
    if (std::string_view(attr.first) == "star") return true;
  return false;
}

bool quickUnpack(const ir::Node& n, std::span<Value> slots) {
  const Value& source = slots[n.operand(0)->id()];
  if (!source.is(Kind::Tuple) && !source.is(Kind::List)) return false;
  // The tuple or list is read where it is.
  const std::vector<Value>& items = source.as<SeqObj>().items;
  if (items.size() != n.numResults() || starredTarget(n)) return false;
  for (size_t i = 0; i < items.size(); ++i) slots[n.result(i)->id()] = items[i];
  return true;
}

bool quickGetItem(const ir::Node& n, std::span<Value> slots) {
  // A node with attributes takes its item (passes/take_items.cpp): valueOp.
  if (!n.attrs().empty()) return false;
  const Value& c = slots[n.operand(0)->id()];
  const Value& key = slots[n.operand(1)->id()];
  const Value* item = nullptr;
  if ((c.is(Kind::List) || c.is(Kind::Tuple)) && key.is(Kind::Int)) {
    const std::vector<Value>& items = c.as<SeqObj>().items;
    int64_t size = static_cast<int64_t>(items.size()), i = key.asInt();
    if (i < 0) i += size;
    if (i < 0 || i >= size) return false;
    item = &items[static_cast<size_t>(i)];
  } else if (c.is(Kind::Dict) && key.is(Kind::Str)) {
    item = c.as<DictObj>().find(key);
    if (!item) return false;
  } else {
    return false;
  }
  // (The container keeps the item alive while the result slot's old value
  // goes: the two are distinct values.)
  slots[n.result(0)->id()] = *item;
  return true;
}

bool quickSetItem(const ir::Node& n, std::span<Value> slots, uint64_t dying) {
  // A node with attributes writes back through a view (write_back): valueOp.
  if (!n.attrs().empty() || n.operands().size() != 3) return false;
  Value& c = slots[n.operand(0)->id()];
  const Value& key = slots[n.operand(1)->id()];
  const Value& v = slots[n.operand(2)->id()];
  if (v.is(Kind::Undef) || CycleCollector::mayReachContainers(v)) return false;
  Value* at = nullptr;
  if (c.is(Kind::List) && key.is(Kind::Int)) {
    std::vector<Value>& items = c.as<SeqObj>().items;
    int64_t size = static_cast<int64_t>(items.size()), i = key.asInt();
    if (i < 0) i += size;
    if (i < 0 || i >= size) return false;
    at = &items[static_cast<size_t>(i)];
  } else if (c.is(Kind::Dict) && key.is(Kind::Str)) {
    at = c.as<DictObj>().find(key);  // a new key grows the dict: valueOp
    if (!at) return false;
  } else {
    return false;
  }
  *at = v;
  // The result is the container itself, handed over where the node is its
  // last reader (`d` rebound to the result, as `d[k] = v` lowers).
  Value& result = slots[n.result(0)->id()];
  if (ir::Node::dies(dying, 0) && n.operand(0) != n.operand(2)) result = std::move(c);
  else result = c;
  return true;
}

bool quickContains(const Value& item, const Value& container, bool& found) {
  if (!item.is(Kind::Str)) return false;
  if (container.is(Kind::Dict)) found = container.as<DictObj>().find(item) != nullptr;
  else if (container.is(Kind::Str)) found = container.asStr().find(item.asStr()) != std::string::npos;
  else return false;
  return true;
}

// The entry of the global that a load_global or store_global node names,
// kept in the node from its first run. A node runs against the module
// whose code it is, and modules live as long as their state, so the entry
// outlives every run of the node; the owner check keeps the lookup right
// should one graph ever run against two modules.
static Global& globalEntry(const ir::Node& n, ModuleInstance& m) {
  // The module owns the entry, and lends it mutable; the cache is untyped.
  auto* g = static_cast<Global*>(const_cast<void*>(n.executorCache()));
  if (g && g->owner() == &m) return *g;
  g = &m.entry(n.strAttr("name"));
  n.setExecutorCache(g);
  return *g;
}

// A loop's next item, a comprehension's append, constants and globals:
// nodes of every iteration or call, each with a small native frame of its
// own (simpleOp's is large).
void Interpreter::execIterItem(const ir::Node& n, Frame& f) {
  const Value& s = f[n.operand(0)];
  const Value& i = f[n.operand(1)];
  checkDefined(s, n.loc());
  Value& out = f[n.result(0)];
  out = iterItem(s, i.asInt(), n.loc());
  if (tape_ && s.is(Kind::Tensor)) tape_->recordOp(Op::GetItem, n.loc(), {s, i}, out);
  checkInterrupt(n.loc());
}

void Interpreter::execListAppend(const ir::Node& n, Frame& f, uint64_t dying) {
  Value& list = f[n.operand(0)];
  Value& item = f[n.operand(1)];
  checkDefined(list, n.loc());
  // A value saved for a backward loop may be a saved if result's
  // placeholder: the branch that reads it back did not run.
  bool saved = !n.attrs().empty() && n.attr("saved");
  if (!saved) checkDefined(item, n.loc());
  bool handOver = !saved && ir::Node::dies(dying, 1) && n.operand(1) != n.operand(0);
  // As list.append: an item that may reach the list (bind-methods makes
  // `xs.append(f)` this node) may close a cycle.
  context_.cycles().noteStore(list, item);
  list.as<SeqObj>().append(handOver ? std::move(item) : item);
}

void Interpreter::execConst(const ir::Node& n, Frame& f) {
  // The node's value attribute, found on its first run.
  const auto* a = static_cast<const ir::Attr*>(n.executorCache());
  if (!a && (a = n.attr("value"))) n.setExecutorCache(a);
  // Most constants are ints (counters, indices): made here, without a call.
  if (const auto* i = a ? std::get_if<int64_t>(a) : nullptr) f[n.result(0)] = Value::integer(*i);
  else f[n.result(0)] = a ? attrValue(*a) : Value::none();
}

void Interpreter::execLoadGlobal(const ir::Node& n, Frame& f) {
  const Global& g = globalEntry(n, *f.module);
  // An unbound global is a builtin of that name, or undefined.
  f[n.result(0)] = g.bound() ? g.value() : host_.builtin(n.strAttr("name"), n.loc());
}

Global& Interpreter::globalOf(const ir::Node& n, Frame& f) { return globalEntry(n, *f.module); }

void Interpreter::execStoreGlobal(const ir::Node& n, Frame& f) {
  Global& g = globalEntry(n, *f.module);
  const Value& v = f[n.operand(0)];
  // `del x` of a global stores its undef: the name is unbound again.
  if (v.is(Kind::Undef)) {
    if (!g.bound()) fail(n.loc(), "name '" + n.strAttr("name") + "' is not defined", ErrorClass::NameError);
    g.unbind();
    return;
  }
  g.set(v);
}

namespace {

// Node n's operand values, each checked defined, as the pointer array that
// the ops' execute entries take: inline for up to four.
class OperandValues {
 public:
  OperandValues(const ir::Node& n, Frame& f) : count_(n.operands().size()) {
    if (count_ > 4) many_.resize(count_);
    const Value** p = data();
    for (size_t i = 0; i < count_; ++i) {
      p[i] = &f[n.operand(i)];
      checkDefined(*p[i], n.loc());
    }
  }
  const Value** data() { return count_ > 4 ? many_.data() : small_; }

 private:
  size_t count_;
  const Value* small_[4];
  std::vector<const Value*> many_;
};

}  // namespace

void Interpreter::simpleOp(const ir::Node& n, Frame& f, uint64_t dyingMask) {
  Op op = n.op();
  SourceLoc loc = n.loc();
  auto in = [&](size_t i) -> const Value& {
    const Value& v = f[n.operand(i)];
    checkDefined(v, loc);
    return v;
  };
  auto set = [&](Value v) { f[n.result(0)] = std::move(v); };
  // Operand i's value, handed over at its last use rather than shared: no
  // reference count changes hands (an atomic add and subtract saved).
  auto take = [&](size_t i) -> Value {
    Value& v = f[n.operand(i)];
    checkDefined(v, loc);
    return ir::Node::dies(dyingMask, i) ? std::move(v) : v;
  };

  switch (op) {
    case Op::Undef: set(Value::undef(n.strAttr("name"))); return;
    case Op::Builtin: {
      // A builtin shared by the whole program is looked up once: the node
      // keeps it (a call of math.sqrt runs several such nodes).
      if (const auto* shared = static_cast<const Value*>(n.executorCache())) {
        set(*shared);
        return;
      }
      const std::string& name = n.strAttr("name");
      if (const Value* shared = host_.sharedBuiltin(name)) {
        n.setExecutorCache(shared);
        set(*shared);
        return;
      }
      set(name == "Ellipsis" ? Value::ellipsis() : host_.builtin(name, loc));
      return;
    }
    case Op::HostFunction: set(host_.hostFunction(n.strAttr("name"), loc)); return;
    case Op::SelfClosure:
      if (!f.self) fail(loc, "internal error: no enclosing function");
      set(*f.self);
      return;
    case Op::MakeClosure: {
      auto fo = std::make_shared<FunctionObj>();
      fo->name = n.strAttr("name");
      fo->module = f.module;
      // The callee is defined in the same graph as the function making it,
      // which never drops a function, so the node keeps what it found.
      fo->fn = static_cast<const ir::Function*>(n.executorCache());
      if (!fo->fn) {
        const std::string& target = n.strAttr("func");
        fo->fn = n.parent()->function()->graph()->function(target);
        if (!fo->fn) fail(loc, "internal error: unknown function @" + target);
        n.setExecutorCache(fo->fn);
      }
      size_t ndefaults = static_cast<size_t>(n.intAttr("ndefaults"));
      const std::vector<std::string>& kwDefaults = n.strListAttr("kwdefaults");
      size_t ncap = n.operands().size() - ndefaults - kwDefaults.size();
      for (size_t i = 0; i < ncap; ++i) fo->captures.push_back(f[n.operand(i)]);
      for (size_t i = 0; i < ndefaults; ++i) fo->defaults.push_back(in(ncap + i));
      for (size_t i = 0; i < kwDefaults.size(); ++i)
        fo->kwDefaults.emplace_back(kwDefaults[i], in(ncap + ndefaults + i));
      set(Value::object(Kind::Function, std::move(fo)));
      return;
    }
    case Op::MakeTuple:
    case Op::MakeList: {
      std::vector<Value> items;
      items.reserve(n.operands().size());
      for (size_t i = 0; i < n.operands().size(); ++i) items.push_back(take(i));
      set(op == Op::MakeTuple ? makeTuple(std::move(items)) : makeList(std::move(items)));
      return;
    }
    case Op::MakeDict: {
      Value d = makeDict();
      for (size_t i = 0; i + 1 < n.operands().size(); i += 2) {
        const Value& k = in(i);
        if (!k.is(Kind::Str)) fail(loc, std::string("dict keys must be str, not ") + typeName(k));
        // Not handed over when it is the key itself ({s: s}): `k` must stay.
        d.as<DictObj>().set(k, n.operand(i + 1) == n.operand(i) ? in(i + 1) : take(i + 1));
      }
      set(d);
      return;
    }
    case Op::MakeSlice: set(makeSlice(in(0), in(1), in(2))); return;
    case Op::GetAttr: {
      const Value& obj = in(0);
      // A module's member: its entry, found once per node and module (a
      // module-level loop calling `math.sqrt` reads it every iteration).
      if (obj.is(Kind::Module)) {
        ModuleInstance* m = obj.as<ModuleObj>().module;
        auto* g = static_cast<const Global*>(n.executorCache());
        if ((!g || g->owner() != m) && (g = m->findEntry(n.strAttr("name")))) n.setExecutorCache(g);
        if (g && g->owner() == m && g->bound()) {
          set(g->value());
          return;
        }
      }
      const std::string& name = n.strAttr("name");
      set(attributeOf(obj, name, loc));
      if (tape_ && obj.is(Kind::Tensor) && ir::tensorAttributeOp(name)) {
        const Value* x = &obj;
        tape_->recordNode(n, &x, f[n.result(0)]);
      }
      return;
    }
    case Op::Unpack: {
      // a, b = v; with `star` the target at that index takes the rest as a
      // list (first, *rest = v).
      const Value& source = in(0);
      size_t want = n.numResults();
      int64_t star = n.intAttr("star", -1);
      // (A tuple or list of the right length without a star is read where
      // it is, by node(), before this.)
      std::vector<Value> items = unpackItems(source, loc);
      if (star >= 0) {
        size_t before = static_cast<size_t>(star), after = want - before - 1;
        if (items.size() < want - 1)
          fail(loc, "not enough values to unpack (expected at least " + std::to_string(want - 1) + ", got " +
                        std::to_string(items.size()) + ")");
        std::vector<Value> rest(std::make_move_iterator(items.begin() + before),
                                std::make_move_iterator(items.end() - after));
        for (size_t i = 0; i < before; ++i) f[n.result(i)] = std::move(items[i]);
        f[n.result(before)] = makeList(std::move(rest));
        for (size_t i = 0; i < after; ++i) f[n.result(before + 1 + i)] = std::move(items[items.size() - after + i]);
        return;
      }
      if (items.size() < want)
        fail(loc, "not enough values to unpack (expected " + std::to_string(want) + ", got " +
                      std::to_string(items.size()) + ")");
      if (items.size() > want) fail(loc, "too many values to unpack (expected " + std::to_string(want) + ")");
      for (size_t i = 0; i < want; ++i) f[n.result(i)] = std::move(items[i]);
      return;
    }
    case Op::Iter: set(iterable(in(0), loc)); return;
    case Op::SavedItem: {
      const auto& items = in(0).as<SeqObj>().items;
      int64_t i = in(1).asInt();
      if (i < 0 || i >= static_cast<int64_t>(items.size())) fail(loc, "internal error: no value saved for iteration " + std::to_string(i));
      set(items[i]);
      return;
    }
    case Op::Import: set(host_.importModule(n.strAttr("module"), n.attr("bind_top") != nullptr, *f.module, loc)); return;
    case Op::Assert:
      if (!truthy(in(0), loc)) {
        if (n.operands().size() > 1) fail(loc, "assertion failed: " + str(in(1)), ErrorClass::AssertionError);
        fail(loc, "assertion failed", ErrorClass::AssertionError);
      }
      return;
    case Op::Raise: {
      if (n.operands().empty()) fail(loc, "No active exception to reraise", ErrorClass::RuntimeError);
      const Value& e = in(0);
      if (e.is(Kind::Str)) fail(loc, "Error: " + e.asStr(), ErrorClass::Error);
      // A class raises an instance without a message.
      if (e.is(Kind::Builtin))
        if (auto c = errorClassNamed(e.as<BuiltinObj>().name)) fail(loc, errorClassName(*c), *c);
      if (!e.is(Kind::Exception))
        fail(loc, std::string("exceptions must derive from BaseException, not ") + typeName(e), ErrorClass::TypeError);
      const auto& x = e.as<ExceptionObj>();
      // Raised again (a handler's `raise e`): reported where it first was.
      if (x.raised) throw NnError(*x.raised);
      std::string name = errorClassName(x.errorClass);
      // The report shows str(e) (a KeyError's repr: KeyError: 'k'); a
      // handler gets the message itself back.
      fail(loc, x.message.empty() ? name : name + ": " + str(e), x.errorClass, x.message);
    }
    case Op::Track:
      if (!f.tracked.empty()) f.tracked.back().set(n.strAttr("name"), in(0));
      return;
    case Op::LostUpdate:
      if (f[n.operand(0)].is(Kind::Tensor)) warnLostUpdate(loc);
      return;
    case Op::Echo: {
      const Value& v = in(0);
      if (!v.is(Kind::None)) host_.out() << repr(v) << "\n";
      return;
    }
    case Op::Place: {
      // A tensor entering a `with device(...)` block goes there as x.to
      // would take it; any other value is itself.
      const Value* operands[2] = {&in(0), &in(1)};
      if (!operands[0]->is(Kind::Tensor)) {
        set(*operands[0]);
        return;
      }
      std::vector<Value> params{*operands[0], *operands[1]};
      set(host_.runTensorOp(*this, Op::ToDevice, params, loc));
      if (tape_) tape_->recordNode(n, operands, f[n.result(0)]);
      return;
    }
    default: break;
  }
  // The value ops through their one execute entry (valueOp), the other
  // tensor ops through theirs (the host's runTensorOp).
  if (isValueOp(op)) {
    valueOp(n, f, dyingMask);
    return;
  }
  if (!ir::isTensorOp(op)) fail(loc, std::string("internal error: ") + n.info().name + " is not a simple op");
  OperandValues operands(n, f);
  std::vector<Value> params = tensorOpParams(n, operands.data());
  set(host_.runTensorOp(*this, op, params, loc));
}

// A value op (value_op.h: arithmetic, comparisons, math, indexing of any
// kind of value), on a frame of its own, smaller than simpleOp's: node()
// sends these here straight.
void Interpreter::valueOp(const ir::Node& n, Frame& f, uint64_t dyingMask) {
  Op op = n.op();
  SourceLoc loc = n.loc();
  // The in-place forms first, each recognised by its first operand's kind
  // (so defined); every other operand is checked where it is read.
  switch (op) {
    case Op::Add:
    case Op::Mul:
      // list += iterable and list *= n update the list itself, as in Python.
      if (const Value& first = f[n.operand(0)]; first.is(Kind::List) && n.attr("inplace")) {
        const Value& other = f[n.operand(1)];
        checkDefined(other, loc);
        const std::vector<Value>& items = first.as<SeqObj>().items;
        size_t before = items.size();
        f[n.result(0)] = inplaceListOp(op, first, other, loc);
        for (size_t i = before; i < items.size() && op == Op::Add; ++i) context_.cycles().noteStore(first, items[i]);
        return;
      }
      break;
    case Op::BitOr:
      // dict |= dict updates the dict itself, as in Python.
      if (const Value& first = f[n.operand(0)];
          first.is(Kind::Dict) && f[n.operand(1)].is(Kind::Dict) && n.attr("inplace")) {
        for (const auto& [key, value] : f[n.operand(1)].as<DictObj>().items) {
          context_.cycles().noteStore(first, value);
          first.as<DictObj>().set(key, value);
        }
        f[n.result(0)] = first;
        return;
      }
      break;
    case Op::GetItem: {
      // passes/take_items.cpp: the only read of this index of a container
      // no other node reads; with the frame its only holder, nothing can
      // see the item leave, and the item becomes uniquely held.
      const Value& first = f[n.operand(0)];
      const Value& index = f[n.operand(1)];
      if (n.attr("take") && (first.is(Kind::List) || first.is(Kind::Tuple)) && first.useCount() == 1 &&
          index.is(Kind::Int)) {
        auto& items = first.as<SeqObj>().items;
        int64_t i = index.asInt();
        if (i >= 0 && i < static_cast<int64_t>(items.size())) {
          Value item = std::move(items[i]);
          items[i] = Value::none();
          f[n.result(0)] = std::move(item);
          return;
        }
      }
      break;
    }
    default: break;
  }
  OperandValues list(n, f);
  const Value** operands = list.data();
  size_t count = n.operands().size();
  // Tensor operands on several devices: copies (on the tape) onto the one
  // the op runs on. The tensor ops do the same in runTensorOp.
  std::vector<Value> copies;
  if (count > 1 && onSeveralDevices(operands, count)) {
    alignOperandDevices(op, operands, count, copies, [&](const Value& x, Device& to) {
      std::vector<Value> params{x, Value::str(to.name())};
      return host_.runTensorOp(*this, Op::ToDevice, params, loc);
    });
  }
  // Operands this node reads for the last time: their buffers may take an
  // elementwise result (the slot is their only other holder, and the
  // caller drops it right after).
  unsigned dying = tape_ || !copies.empty() ? 0u
                                            : (dyingMask & 1 ? kConsumeFirst : 0u) | (dyingMask & 2 ? kConsumeSecond : 0u);
  f[n.result(0)] = runValueOp(n, operands, dying);
  if (op == Op::SetItem) context_.cycles().noteStore(*operands[0], *operands[2]);
  if (tape_) tape_->recordNode(n, operands, f[n.result(0)]);
}

void Interpreter::warnLostUpdate(SourceLoc loc) {
  Diagnostic d;
  d.severity = Severity::Warning;
  d.loc = loc;
  d.message = "this updates a local copy: tensors are values; assign the result back or return it";
  warnOnce(d);
}

void Interpreter::warnOnce(const Diagnostic& d) {
  {
    std::lock_guard<std::mutex> lock(warnedMutex_);
    if (!warnedSites_.emplace(d.loc.file, d.loc.line, d.loc.col).second) return;
  }
  host_.report(d);
}

std::vector<Value> Interpreter::unpackItems(Value v, SourceLoc loc) {
  if (v.is(Kind::Str) || v.is(Kind::Range) || v.is(Kind::Dict)) v = iterable(v, loc);
  if (v.is(Kind::Lazy)) return v.as<LazySeqObj>().items(loc);
  if (v.is(Kind::Tensor)) {
    const Tensor& t = tensorOf(v);
    if (t.ndim() == 0) fail(loc, "cannot unpack a 0-d tensor");
    std::vector<Value> rows;
    for (int64_t i = 0; i < t.dim(0); ++i) {
      rows.push_back(makeTensorValue(tensorGetItem(t, Value::integer(i), loc)));
      if (tape_) tape_->recordOp(ir::Op::GetItem, loc, {v, Value::integer(i)}, rows.back());
    }
    return rows;
  }
  if (v.is(Kind::Range)) {
    const auto& r = v.as<RangeObj>();
    std::vector<Value> items;
    for (int64_t i = 0; i < r.length(); ++i) items.push_back(Value::integer(r.at(i)));
    return items;
  }
  if (!v.is(Kind::Tuple) && !v.is(Kind::List))
    fail(loc, std::string("cannot unpack non-iterable ") + typeName(v) + " object");
  return v.as<SeqObj>().items;
}

}  // namespace nn::rt
