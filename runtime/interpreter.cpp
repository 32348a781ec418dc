// Node-by-node execution of the IR (eager mode). Values live in a frame of
// slots indexed by Value::id(); structured `if`/`loop` nodes execute their
// blocks and copy the yielded values into their results.
#include "runtime/interpreter.h"

#include <new>
#include <stdexcept>

#include "runtime/format.h"
#include "runtime/scalar_ops.h"

namespace nn::rt {

using ir::Op;

const Value* CallContext::kw(const std::string& name) {
  for (size_t i = 0; i < kwnames.size(); ++i)
    if (kwnames[i] == name) {
      used[i] = true;
      return &kwargs[i];
    }
  return nullptr;
}

void CallContext::checkKeywordsUsed(const char* fn) const {
  for (size_t i = 0; i < kwnames.size(); ++i)
    if (!used[i]) fail(loc, std::string(fn) + "() got an unexpected keyword argument '" + kwnames[i] + "'");
}

struct Interpreter::Frame {
  std::vector<Value> slots;
  ModuleInstance* module;
  const Value* self;
  Value& operator[](const ir::Value* v) { return slots[v->id()]; }
};

Interpreter::Interpreter(Host& host, InterpreterLimits limits) : host_(host), limits_(limits) {}

void Interpreter::checkInterrupt(SourceLoc loc) {
  if (interrupt_.exchange(false)) fail(loc, "interrupted");
}

void Interpreter::runMain(ModuleInstance& module, const ir::Graph& g) {
  const ir::Function* main = g.function("__main__");
  if (!main) fail({}, "internal error: module has no __main__");
  runFunction(*main, module, nullptr, {});
}

Value Interpreter::runFunction(const ir::Function& fn, ModuleInstance& module, const Value* self,
                               std::vector<Value> args) {
  Frame f{std::move(args), &module, self};
  f.slots.resize(fn.numValues());
  std::vector<Value> out;
  exec(*fn.body(), f, out);
  return out.empty() ? Value::none() : out[0];
}

// Executes a block; returns its terminator with the terminator's operand
// values in `out`.
const ir::Node* Interpreter::exec(const ir::Block& b, Frame& f, std::vector<Value>& out) {
  for (const auto& owned : b.nodes()) {
    const ir::Node& n = *owned;
    if (hasTrait(n.op(), ir::TERM)) {
      out.clear();
      for (const ir::Value* v : n.operands()) out.push_back(f[v]);
      return &n;
    }
    try {
      node(n, f);
    } catch (const std::bad_alloc&) {
      fail(n.loc(), "out of memory");
    } catch (const std::length_error&) {
      fail(n.loc(), "out of memory");
    }
  }
  return nullptr;
}

static void checkDefined(const Value& v, SourceLoc loc) {
  if (v.is(Kind::Undef)) fail(loc, "name '" + v.asStr() + "' is not defined");
}

static Value iterable(const Value& v, SourceLoc loc) {
  switch (v.kind()) {
    case Kind::Range:
    case Kind::List:
    case Kind::Tuple: return v;
    case Kind::Str: {
      std::vector<Value> chars;
      for (char c : v.asStr()) chars.push_back(Value::str(std::string(1, c)));
      return makeTuple(std::move(chars));
    }
    case Kind::Dict: {
      std::vector<Value> keys;
      for (const auto& kv : v.as<DictObj>().items) keys.push_back(Value::str(kv.first));
      return makeTuple(std::move(keys));
    }
    default: fail(loc, std::string("'") + typeName(v) + "' object is not iterable");
  }
}

void Interpreter::node(const ir::Node& n, Frame& f) {
  Op op = n.op();
  SourceLoc loc = n.loc();
  auto in = [&](size_t i) -> const Value& {
    const Value& v = f[n.operand(i)];
    checkDefined(v, loc);
    return v;
  };
  auto set = [&](Value v) { f[n.result(0)] = std::move(v); };

  switch (op) {
    case Op::Const: {
      const ir::Attr* a = n.attr("value");
      if (!a || std::holds_alternative<ir::NoneAttr>(*a)) set(Value::none());
      else if (auto* i = std::get_if<int64_t>(a)) set(Value::integer(*i));
      else if (auto* d = std::get_if<double>(a)) set(Value::real(*d));
      else if (auto* b = std::get_if<bool>(a)) set(Value::boolean(*b));
      else if (auto* s = std::get_if<std::string>(a)) set(Value::str(*s));
      else fail(loc, "internal error: bad constant");
      return;
    }
    case Op::Undef: set(Value::undef(n.strAttr("name"))); return;
    case Op::Builtin: {
      std::string name = n.strAttr("name");
      set(name == "Ellipsis" ? Value::ellipsis() : host_.builtin(name, loc));
      return;
    }
    case Op::SelfClosure:
      if (!f.self) fail(loc, "internal error: no enclosing function");
      set(*f.self);
      return;
    case Op::MakeClosure: {
      auto fo = std::make_shared<FunctionObj>();
      fo->name = n.strAttr("name");
      fo->module = f.module;
      // The callee is defined in the same graph as the function making it.
      std::string target = n.strAttr("func");
      fo->fn = n.parent()->function()->graph()->function(target);
      if (!fo->fn) fail(loc, "internal error: unknown function @" + target);
      size_t ndefaults = static_cast<size_t>(n.intAttr("ndefaults"));
      size_t ncap = n.operands().size() - ndefaults;
      for (size_t i = 0; i < ncap; ++i) fo->captures.push_back(f[n.operand(i)]);
      for (size_t i = ncap; i < n.operands().size(); ++i) fo->defaults.push_back(in(i));
      set(Value::object(Kind::Function, std::move(fo)));
      return;
    }
    case Op::MakeTuple:
    case Op::MakeList: {
      std::vector<Value> items;
      items.reserve(n.operands().size());
      for (size_t i = 0; i < n.operands().size(); ++i) items.push_back(in(i));
      set(op == Op::MakeTuple ? makeTuple(std::move(items)) : makeList(std::move(items)));
      return;
    }
    case Op::MakeDict: {
      Value d = makeDict();
      for (size_t i = 0; i + 1 < n.operands().size(); i += 2) {
        const Value& k = in(i);
        if (!k.is(Kind::Str)) fail(loc, std::string("dict keys must be str, not ") + typeName(k));
        d.as<DictObj>().set(k.asStr(), in(i + 1));
      }
      set(d);
      return;
    }
    case Op::MakeSlice: {
      auto s = std::make_shared<SliceObj>();
      s->start = in(0);
      s->stop = in(1);
      s->step = in(2);
      set(Value::object(Kind::Slice, std::move(s)));
      return;
    }
    case Op::Format: {
      Value v = in(0);
      std::string conv = n.strAttr("conv");
      if (conv == "r") v = Value::str(repr(v));
      else if (conv == "s") v = Value::str(str(v));
      set(Value::str(formatValue(v, n.strAttr("spec"), loc)));
      return;
    }
    case Op::StrConcat: {
      std::string s;
      for (size_t i = 0; i < n.operands().size(); ++i) s += str(in(i));
      set(Value::str(std::move(s)));
      return;
    }
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Mod:
    case Op::Pow: case Op::MatMul: case Op::BitAnd: case Op::BitOr: case Op::BitXor:
    case Op::LShift: case Op::RShift:
      set(binaryOp(op, in(0), in(1), loc));
      return;
    case Op::Neg: case Op::Pos: case Op::Invert: case Op::Not: case Op::Truth:
      set(unaryOp(op, in(0), loc));
      return;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
    case Op::Is: case Op::IsNot: case Op::In: case Op::NotIn:
      set(compareOp(op, in(0), in(1), loc));
      return;
    case Op::GetItem: set(getItem(in(0), in(1), loc)); return;
    case Op::SetItem: set(setItem(in(0), in(1), in(2), loc)); return;
    case Op::GetAttr: {
      const Value& obj = in(0);
      std::string name = n.strAttr("name");
      if (obj.is(Kind::Module)) {
        ModuleInstance* m = obj.as<ModuleObj>().module;
        Value* v = m->findGlobal(name);
        if (!v) fail(loc, "module '" + m->name() + "' has no attribute '" + name + "'");
        set(*v);
        return;
      }
      set(host_.attribute(obj, name, loc));
      return;
    }
    case Op::Unpack: {
      Value v = in(0);
      size_t want = n.numResults();
      if (v.is(Kind::Str) || v.is(Kind::Range) || v.is(Kind::Dict)) v = iterable(v, loc);
      if (v.is(Kind::Range)) {
        const auto& r = v.as<RangeObj>();
        std::vector<Value> items;
        for (int64_t i = 0; i < r.length(); ++i) items.push_back(Value::integer(r.at(i)));
        v = makeTuple(std::move(items));
      }
      if (!v.is(Kind::Tuple) && !v.is(Kind::List))
        fail(loc, std::string("cannot unpack non-iterable ") + typeName(v) + " object");
      const auto& items = v.as<SeqObj>().items;
      if (items.size() < want)
        fail(loc, "not enough values to unpack (expected " + std::to_string(want) + ", got " +
                      std::to_string(items.size()) + ")");
      if (items.size() > want) fail(loc, "too many values to unpack (expected " + std::to_string(want) + ")");
      for (size_t i = 0; i < want; ++i) f[n.result(i)] = items[i];
      return;
    }
    case Op::Call: {
      std::vector<std::string> kwnames = n.strListAttr("kw");
      size_t nargs = n.operands().size() - 1 - kwnames.size();
      std::vector<Value> args, kwargs;
      args.reserve(nargs);
      for (size_t i = 0; i < nargs; ++i) args.push_back(in(1 + i));
      for (size_t i = 0; i < kwnames.size(); ++i) kwargs.push_back(in(1 + nargs + i));
      set(call(in(0), std::move(args), kwnames, std::move(kwargs), loc));
      return;
    }
    case Op::Iter: set(iterable(in(0), loc)); return;
    case Op::IterLen: {
      const Value& s = in(0);
      set(Value::integer(s.is(Kind::Range) ? s.as<RangeObj>().length()
                                           : static_cast<int64_t>(s.as<SeqObj>().items.size())));
      return;
    }
    case Op::IterItem: {
      const Value& s = in(0);
      int64_t i = in(1).asInt();
      if (s.is(Kind::Range)) {
        set(Value::integer(s.as<RangeObj>().at(i)));
      } else {
        const auto& items = s.as<SeqObj>().items;
        if (i >= static_cast<int64_t>(items.size())) fail(loc, "list changed size during iteration");
        set(items[i]);
      }
      checkInterrupt(loc);
      return;
    }
    case Op::ListAppend: in(0).as<SeqObj>().items.push_back(in(1)); return;
    case Op::LoadGlobal: {
      std::string name = n.strAttr("name");
      if (Value* v = f.module->findGlobal(name)) {
        set(*v);
        return;
      }
      set(host_.builtin(name, loc));
      return;
    }
    case Op::StoreGlobal: f.module->setGlobal(n.strAttr("name"), in(0)); return;
    case Op::Import: set(host_.importModule(n.strAttr("module"), n.attr("bind_top") != nullptr, *f.module, loc)); return;
    case Op::Assert:
      if (!truthy(in(0))) {
        if (n.operands().size() > 1) fail(loc, "assertion failed: " + str(in(1)));
        fail(loc, "assertion failed");
      }
      return;
    case Op::Raise: {
      if (n.operands().empty()) fail(loc, "'raise' needs an exception: raise Error(\"message\")");
      const Value& e = in(0);
      if (e.is(Kind::Exception) || e.is(Kind::Str)) fail(loc, "Error: " + str(e));
      fail(loc, std::string("exceptions must be Error(...), not ") + typeName(e));
    }
    case Op::Echo: {
      const Value& v = in(0);
      if (!v.is(Kind::None)) host_.out() << repr(v) << "\n";
      return;
    }
    case Op::If: {
      std::vector<Value> out;
      const ir::Block* b = truthy(in(0)) ? n.block(0) : n.block(1);
      exec(*b, f, out);
      for (size_t i = 0; i < n.numResults(); ++i) f[n.result(i)] = std::move(out[i]);
      return;
    }
    case Op::Loop: {
      std::vector<Value> carried;
      for (const ir::Value* v : n.operands()) carried.push_back(f[v]);
      const ir::Block& cond = *n.block(0);
      const ir::Block& body = *n.block(1);
      std::vector<Value> out;
      while (true) {
        for (size_t i = 0; i < carried.size(); ++i) f[cond.arg(i)] = carried[i];
        exec(cond, f, out);
        checkDefined(out[0], loc);
        if (!truthy(out[0])) break;
        for (size_t i = 0; i < carried.size(); ++i) f[body.arg(i)] = std::move(carried[i]);
        exec(body, f, out);
        carried.swap(out);
        checkInterrupt(loc);
      }
      for (size_t i = 0; i < n.numResults(); ++i) f[n.result(i)] = std::move(carried[i]);
      return;
    }
    case Op::Yield:
    case Op::Condition:
    case Op::Return: return;  // handled by exec()
  }
}

Value Interpreter::call(const Value& callee, std::vector<Value> args, const std::vector<std::string>& kwnames,
                        std::vector<Value> kwargs, SourceLoc loc) {
  switch (callee.kind()) {
    case Kind::Function: return callFunction(callee, args, kwnames, kwargs, loc);
    case Kind::Builtin: {
      CallContext ctx{*this, loc, kwnames, kwargs, callee.as<BuiltinObj>().name};
      return callee.as<BuiltinObj>().fn(ctx, args);
    }
    case Kind::Method: {
      const auto& m = callee.as<MethodObj>();
      args.insert(args.begin(), m.self);
      CallContext ctx{*this, loc, kwnames, kwargs, m.name};
      return m.fn(ctx, args);
    }
    default: fail(loc, std::string("'") + typeName(callee) + "' object is not callable");
  }
}

Value Interpreter::callFunction(const Value& fnValue, std::vector<Value>& args,
                                const std::vector<std::string>& kwnames, std::vector<Value>& kwargs,
                                SourceLoc loc) {
  const FunctionObj& fo = fnValue.as<FunctionObj>();
  const ir::Function& fn = *fo.fn;
  size_t nparams = fn.numParams();
  const auto& names = fn.paramNames();
  if (args.size() > nparams)
    fail(loc, fo.name + "() takes " + std::to_string(nparams) + " positional argument" +
                  (nparams == 1 ? "" : "s") + " but " + std::to_string(args.size()) + " were given");
  std::vector<Value> slots(fn.numValues());
  std::vector<bool> bound(nparams, false);
  for (size_t i = 0; i < args.size(); ++i) {
    slots[fn.body()->arg(i)->id()] = std::move(args[i]);
    bound[i] = true;
  }
  for (size_t k = 0; k < kwnames.size(); ++k) {
    size_t i = 0;
    while (i < nparams && names[i] != kwnames[k]) ++i;
    if (i == nparams) fail(loc, fo.name + "() got an unexpected keyword argument '" + kwnames[k] + "'");
    if (bound[i]) fail(loc, fo.name + "() got multiple values for argument '" + kwnames[k] + "'");
    slots[fn.body()->arg(i)->id()] = std::move(kwargs[k]);
    bound[i] = true;
  }
  size_t firstDefault = nparams - fo.defaults.size();
  for (size_t i = 0; i < nparams; ++i) {
    if (bound[i]) continue;
    if (i < firstDefault) fail(loc, fo.name + "() missing required argument '" + names[i] + "'");
    slots[fn.body()->arg(i)->id()] = fo.defaults[i - firstDefault];
  }
  for (size_t c = 0; c < fo.captures.size(); ++c) slots[fn.body()->arg(nparams + c)->id()] = fo.captures[c];

  if (depth_ >= limits_.maxCallDepth) fail(loc, "maximum recursion depth exceeded");
  ++depth_;
  try {
    Value r = runFunction(fn, *fo.module, &fnValue, std::move(slots));
    --depth_;
    return r;
  } catch (NnError& e) {
    --depth_;
    e.diag().callers.push_back(loc);
    throw;
  }
}

}  // namespace nn::rt
