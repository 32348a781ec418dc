// Methods of the builtin container types (list.append, dict.get, ...; a
// str's are in str_methods.cpp), and attribute(), which binds a method to
// its receiver (the call then runs with the receiver as the first
// argument) or, asked of the type (str.lower), to none.
#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/builtins.h"
#include "runtime/dict_views.h"
#include "runtime/module.h"
#include "runtime/scalar_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/host_methods.h"
#include "support/suggest.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

std::vector<Value>& items(std::vector<Value>& args) { return args[0].as<SeqObj>().items; }

// ---- list ----
Value lAppend(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 2);
  c.interp.context().cycles().noteStore(a[0], a[1]);
  a[0].as<SeqObj>().append(std::move(a[1]));
  return Value::none();
}
Value lExtend(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 2);
  std::vector<Value> more = iterate(c, a[1]);
  a[0].as<SeqObj>().reserveMore(more.size());
  for (Value& v : more) {
    c.interp.context().cycles().noteStore(a[0], v);
    items(a).push_back(std::move(v));
  }
  return Value::none();
}
Value lPop(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 2);
  auto& xs = items(a);
  if (xs.empty()) fail(c.loc, "pop from empty list", ErrorClass::IndexError);
  int64_t i = a.size() == 2 ? normalizeIndex(toIndex(a[1], c.loc), static_cast<int64_t>(xs.size()), "pop", c.loc)
                            : static_cast<int64_t>(xs.size()) - 1;
  Value v = xs[i];
  xs.erase(xs.begin() + i);
  return v;
}
Value lInsert(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 3, 3);
  auto& xs = items(a);
  int64_t n = static_cast<int64_t>(xs.size()), i = toIndex(a[1], c.loc);
  if (i < 0) i = std::max<int64_t>(0, i + n);
  i = std::min(i, n);
  a[0].as<SeqObj>().reserveMore(1);
  xs.insert(xs.begin() + i, a[2]);
  c.interp.context().cycles().noteStore(a[0], a[2]);
  return Value::none();
}
Value lIndex(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 2);
  auto& xs = items(a);
  for (size_t i = 0; i < xs.size(); ++i)
    if (equal(xs[i], a[1])) return Value::integer(static_cast<int64_t>(i));
  // Python's wordings, and its class.
  if (a[0].is(Kind::Tuple)) fail(c.loc, "tuple.index(x): x not in tuple", ErrorClass::ValueError);
  fail(c.loc, repr(a[1]) + " is not in list", ErrorClass::ValueError);
}
Value lCount(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 2);
  int64_t n = 0;
  for (const Value& v : items(a)) n += equal(v, a[1]);
  return Value::integer(n);
}
Value lRemove(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 2);
  auto& xs = items(a);
  for (size_t i = 0; i < xs.size(); ++i)
    if (equal(xs[i], a[1])) {
      xs.erase(xs.begin() + static_cast<std::ptrdiff_t>(i));
      return Value::none();
    }
  fail(c.loc, "list.remove(x): x not in list", ErrorClass::ValueError);
}
Value lReverse(CallContext& c, std::vector<Value>& a) { checkArity(c, a, 1, 1); std::reverse(items(a).begin(), items(a).end()); return Value::none(); }
Value lClear(CallContext& c, std::vector<Value>& a) { checkArity(c, a, 1, 1); items(a).clear(); return Value::none(); }
Value lCopy(CallContext& c, std::vector<Value>& a) { checkArity(c, a, 1, 1); return makeList(items(a)); }
Value lSort(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  std::vector<Value> arg{a[0]};
  Value sorted = makeBuiltin("sorted");
  std::vector<std::string> kwnames = c.kwnames;
  std::vector<Value> kwargs = c.kwargs;
  c.markAllUsed();
  Value out = c.interp.call(sorted, arg, kwnames, kwargs, c.loc);
  items(a) = out.as<SeqObj>().items;
  a[0].as<SeqObj>().settle();
  return Value::none();
}

// ---- dict ----
DictObj& dict(std::vector<Value>& a) { return a[0].as<DictObj>(); }
Value dKeys(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  return makeDictView(a[0], DictPart::Keys);
}
Value dValues(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  return makeDictView(a[0], DictPart::Values);
}
Value dItems(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  return makeDictView(a[0], DictPart::Items);
}
Value dGet(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 3);
  if (!a[1].is(Kind::Str)) return a.size() == 3 ? a[2] : Value::none();
  Value* v = dict(a).find(a[1]);
  return v ? *v : a.size() == 3 ? a[2] : Value::none();
}
Value dPop(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 3);
  const std::string& k = strArg(c, a[1], "dict key");
  Value* v = dict(a).find(k);
  if (!v) {
    if (a.size() == 3) return a[2];
    failMissingKey(a[1], c.loc);
  }
  Value out = *v;
  dict(a).erase(k);
  return out;
}
Value dUpdate(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 2);
  if (a.size() == 2) {
    if (!a[1].is(Kind::Dict)) fail(c.loc, "'" + std::string(typeName(a[1])) + "' object is not a mapping", ErrorClass::TypeError);
    for (const auto& [k, v] : a[1].as<DictObj>().items) {
      c.interp.context().cycles().noteStore(a[0], v);
      dict(a).set(k, v);
    }
  }
  c.markAllUsed();
  for (size_t i = 0; i < c.kwnames.size(); ++i) {
    c.interp.context().cycles().noteStore(a[0], c.kwargs[i]);
    dict(a).set(c.kwnames[i], c.kwargs[i]);
  }
  return Value::none();
}
Value dSetdefault(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 3);
  const std::string& k = strArg(c, a[1], "dict key");
  if (Value* v = dict(a).find(k)) return *v;
  Value v = a.size() == 3 ? a[2] : Value::none();
  c.interp.context().cycles().noteStore(a[0], v);
  dict(a).set(k, v);
  return v;
}
// The last (key, value) pair, removed.
Value dPopitem(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  if (dict(a).items.empty()) fail(c.loc, "popitem(): dictionary is empty", ErrorClass::KeyError);
  auto [k, v] = dict(a).items.back();
  dict(a).erase(k);
  return makeTuple({Value::str(k), v});
}
Value dClear(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  dict(a).clear();
  return Value::none();
}
Value dCopy(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  Value d = makeDict();
  d.as<DictObj>().copyFrom(dict(a));
  return d;
}
// A new dict of the keys, each with the value (None by default).
Value dFromkeys(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 3);
  Value d = makeDict();
  Value value = a.size() == 3 ? a[2] : Value::none();
  c.interp.context().cycles().noteStore(d, value);
  for (const Value& k : iterate(c, a[1])) {
    if (!k.is(Kind::Str)) fail(c.loc, std::string("dict keys must be str, not ") + typeName(k));
    d.as<DictObj>().set(k.asStr(), value);
  }
  return d;
}

// ---- tuple ----
Value tIndex(CallContext& c, std::vector<Value>& a) { return lIndex(c, a); }
Value tCount(CallContext& c, std::vector<Value>& a) { return lCount(c, a); }

using MethodTable = std::vector<HostMethod>;

const MethodTable* methodsOf(Kind k) {
  static const MethodTable list = {
      {"append", lAppend}, {"extend", lExtend}, {"pop", lPop}, {"insert", lInsert}, {"index", lIndex},
      {"count", lCount}, {"remove", lRemove}, {"reverse", lReverse}, {"clear", lClear}, {"copy", lCopy},
      {"sort", lSort, "key reverse"}};
  static const MethodTable dict = {{"keys", dKeys},         {"values", dValues}, {"items", dItems},
                                   {"get", dGet},           {"pop", dPop},       {"update", dUpdate, "*"},
                                   {"copy", dCopy},         {"setdefault", dSetdefault},
                                   {"popitem", dPopitem},   {"clear", dClear},
                                   {"fromkeys", dFromkeys, "", true}};
  static const MethodTable tuple = {{"index", tIndex}, {"count", tCount}};
  switch (k) {
    case Kind::List: return &list;
    case Kind::Dict: return &dict;
    case Kind::Str: return &strMethods();
    case Kind::Tuple: return &tuple;
    default: return nullptr;
  }
}

const HostMethod* hostMethodEntry(Kind receiver, std::string_view name) {
  const MethodTable* table = methodsOf(receiver);
  if (!table) return nullptr;
  for (const HostMethod& m : *table)
    if (m.name == name) return &m;
  return nullptr;
}

// The kind of value the builtin type `obj` makes (str, list, dict, tuple:
// the kinds with methods), or none.
std::optional<Kind> typeKind(const Value& obj) {
  if (!obj.is(Kind::Builtin)) return std::nullopt;
  const std::string& n = obj.as<BuiltinObj>().name;
  if (n == "str") return Kind::Str;
  if (n == "list") return Kind::List;
  if (n == "dict") return Kind::Dict;
  if (n == "tuple") return Kind::Tuple;
  return std::nullopt;
}

// str.lower, list.append, ...: a method of a type, bound to no receiver;
// its first argument is the receiver (sorted(words, key=str.lower)). Its
// Method value's self is the type; c.name the method's name.
Value callUnbound(CallContext& c, std::vector<Value>& args) {
  Kind kind = *typeKind(args[0]);
  const std::string& type = args[0].as<BuiltinObj>().name;
  const HostMethod* method = hostMethodEntry(kind, c.name);
  if (method->classMethod) return method->fn(c, args);
  if (args.size() < 2)
    fail(c.loc, "unbound method " + type + "." + c.name + "() needs an argument", ErrorClass::TypeError);
  if (!args[1].is(kind))
    fail(c.loc, "descriptor '" + c.name + "' for '" + type + "' objects doesn't apply to a '" + typeName(args[1]) +
                    "' object",
         ErrorClass::TypeError);
  args.erase(args.begin());
  return method->fn(c, args);
}

}  // namespace

rt::BuiltinFn hostMethod(Kind receiver, const std::string& name) {
  const HostMethod* m = hostMethodEntry(receiver, name);
  return m ? m->fn : nullptr;
}

const rt::MethodsNamed* methodsNamed(const std::string& name) {
  // One record per name any list, dict, str or tuple method has (the IR's
  // list of them is that union: OpTable.HostMethodNamesAreTheStdlibMethods).
  static const std::vector<rt::MethodsNamed> records = [] {
    std::vector<rt::MethodsNamed> out;
    auto method = [](Kind receiver, std::string_view name) {
      const HostMethod* m = hostMethodEntry(receiver, name);
      return m ? rt::MethodsNamed::Method{m->fn, m->keywords} : rt::MethodsNamed::Method{};
    };
    for (std::string_view n : ir::hostMethodNames())
      out.push_back({std::string(n), method(Kind::List, n), method(Kind::Dict, n), method(Kind::Str, n),
                     method(Kind::Tuple, n)});
    return out;
  }();
  for (const rt::MethodsNamed& r : records)
    if (r.name == name) return &r;
  return nullptr;
}

std::vector<std::string> attributeNames(const Value& obj) {
  std::vector<std::string> names;
  if (obj.is(Kind::Tensor)) {
    names = ir::tensorMethodNames();
    names.insert(names.end(), tensorAttributeNames().begin(), tensorAttributeNames().end());
  }
  if (obj.is(Kind::Function) || obj.is(Kind::Builtin)) names.push_back("__name__");
  if (obj.is(Kind::Stream)) names = streamAttributeNames();
  if (obj.is(Kind::Tuple)) names.insert(names.end(), obj.as<SeqObj>().fields.begin(), obj.as<SeqObj>().fields.end());
  if (obj.is(Kind::Range)) names.insert(names.end(), {"start", "stop", "step"});
  // A module's names, as Python's dir(module) lists them (its private
  // ones too).
  if (obj.is(Kind::Module) && obj.as<rt::ModuleObj>().module) names = obj.as<rt::ModuleObj>().module->globalNames();
  if (const MethodTable* table = methodsOf(typeKind(obj).value_or(obj.kind())))
    for (const HostMethod& m : *table) names.emplace_back(m.name);
  std::sort(names.begin(), names.end());
  return names;
}

Value attribute(const Value& obj, const std::string& name, SourceLoc loc) {
  if (obj.is(Kind::Tensor)) return tensorAttribute(obj, name, loc);
  if (obj.is(Kind::Stream)) return streamAttribute(obj, name, loc);
  if (obj.is(Kind::Function) && name == "__name__") return Value::str(obj.as<FunctionObj>().name);
  if (obj.is(Kind::Builtin) && name == "__name__") return Value::str(obj.as<BuiltinObj>().name);
  if (obj.is(Kind::Range)) {
    const auto& r = obj.as<RangeObj>();
    if (name == "start") return Value::integer(r.start);
    if (name == "stop") return Value::integer(r.stop);
    if (name == "step") return Value::integer(r.step);
  }
  if (obj.is(Kind::Tuple)) {
    const SeqObj& t = obj.as<SeqObj>();
    for (size_t i = 0; i < t.fields.size(); ++i)
      if (t.fields[i] == name) return t.items[i];
  }
  // A value's method bound to it, or a type's own (str.lower).
  std::optional<Kind> type = typeKind(obj);
  if (const HostMethod* method = hostMethodEntry(type.value_or(obj.kind()), name)) {
    auto m = std::make_shared<MethodObj>();
    m->self = obj;
    m->name = name;
    m->fn = type ? callUnbound : method->fn;
    m->keywords = method->keywords;
    return Value::object(Kind::Method, std::move(m));
  }
  std::string message = type ? "type object '" : "'";
  message += type ? obj.as<BuiltinObj>().name + "'" : std::string(typeName(obj)) + "' object";
  fail(loc, message + " has no attribute '" + name + "'" + didYouMean(name, attributeNames(obj)));
}

}  // namespace nn::stdlib
