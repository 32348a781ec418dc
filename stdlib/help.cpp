// help(), dir() and the builtin reference, from builtin_docs.def, the op
// table's signatures, the exception classes and the dtypes.
#include "stdlib/help.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>

#include "ir/builtins.h"
#include "ir/op_signature.h"
#include "runtime/scalar_ops.h"
#include "runtime/status_line.h"
#include "support/error_class.h"

namespace nn::stdlib {

using rt::CallContext;
using rt::Kind;
using rt::Value;

namespace {

struct DocEntry {
  const char* signature;
  const char* summary;
};

const std::map<std::string, DocEntry>& docTable() {
  static const std::map<std::string, DocEntry> table = {
#define DOC(name, signature, summary) {name, {signature, summary}},
#include "stdlib/builtin_docs.def"
#undef DOC
  };
  return table;
}

// Python's spelling of an op parameter: `*shape`, `axis=-1`.
std::string paramText(const ir::Param& p) {
  std::string s = (p.variadic ? "*" : "") + p.name;
  if (p.defaultLiteral) s += "=" + *p.defaultLiteral;
  return s;
}

// `name(params)` of a tensor op, or `x.name(params)` of its method form
// (the first parameter is the receiver).
std::string opSignature(ir::Op op, const std::string& name, bool method) {
  const auto& params = ir::signatureOf(op).params;
  std::string s = method ? "x." + name + "(" : name + "(";
  for (size_t i = method ? 1 : 0, first = i; i < params.size(); ++i)
    s += (i == first ? "" : ", ") + paramText(params[i]);
  return s + ")";
}

std::optional<BuiltinDoc> functionDoc(const std::string& name) {
  if (!builtinNames().count(name) || name.rfind('_', 0) == 0) return std::nullopt;
  if (std::optional<ErrorClass> c = errorClassNamed(name)) {
    std::string base = errorClassName(errorClassBase(*c));
    return BuiltinDoc{name, name + "(message='', /)",
                      *c == ErrorClass::BaseException ? "The root of the exception classes."
                                                      : "An exception class, a subclass of " + base + "."};
  }
  if (name == "f32" || name == "f64" || name == "i32" || name == "i64") {
    std::string bits = name.substr(1);
    return BuiltinDoc{name, name, "The dtype of " + bits + "-bit " + (name[0] == 'f' ? "floats." : "integers.")};
  }
  auto it = docTable().find(name);
  if (it == docTable().end()) return std::nullopt;
  std::string signature = it->second.signature;
  if (signature.empty())
    if (std::optional<ir::Op> op = ir::functionOp(name)) signature = opSignature(*op, name, false);
  return BuiltinDoc{name, signature, it->second.summary};
}

std::optional<BuiltinDoc> methodDoc(const std::string& method) {
  std::string name = "Tensor." + method;
  std::optional<ir::Op> op = ir::methodOp(method);
  auto it = docTable().find(name);
  if (it != docTable().end()) {
    std::string signature = it->second.signature;
    if (signature.empty() && op) signature = opSignature(*op, method, true);
    return BuiltinDoc{name, signature, it->second.summary};
  }
  if (!op) return std::nullopt;
  // The method form of a function: that function's summary.
  std::optional<BuiltinDoc> fn = functionDoc(method);
  if (!fn) fn = functionDoc(ir::opInfo(*op).name);
  if (!fn) return std::nullopt;
  return BuiltinDoc{name, opSignature(*op, method, true), fn->summary};
}

void printDoc(std::ostream& out, const BuiltinDoc& d) { out << d.signature << "\n    " << d.summary << "\n"; }

// The kinds whose methods builtin_docs.def describes as "list.name" and so
// on, by their type names.
const std::pair<const char*, Kind> kHostKinds[] = {
    {"list", Kind::List}, {"dict", Kind::Dict}, {"str", Kind::Str}, {"tuple", Kind::Tuple}};

// A method of lists, dicts, strs or tuples ("list.append"): its entry, if
// the type has that method.
std::optional<BuiltinDoc> hostMethodDoc(const std::string& name) {
  size_t dot = name.find('.');
  if (dot == std::string::npos) return std::nullopt;
  std::string type = name.substr(0, dot), method = name.substr(dot + 1);
  for (const auto& [label, kind] : kHostKinds) {
    if (type != label || !hostMethod(kind, method)) continue;
    auto it = docTable().find(name);
    if (it == docTable().end()) return std::nullopt;
    return BuiltinDoc{name, it->second.signature, it->second.summary};
  }
  return std::nullopt;
}

// The type whose method m is: its receiver's, or for a method of a type
// itself (str.lower), that type.
std::string methodOwner(const rt::MethodObj& m) {
  return m.self.is(Kind::Builtin) ? m.self.as<rt::BuiltinObj>().name : std::string(typeName(m.self));
}

// help(x): a builtin, a tensor method or a method of a list, dict, str or
// tuple (the value, or its name as a str: "list.append"), or a function of
// the program (its parameters as written).
Value bHelp(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  const Value& x = args[0];
  // The program's output stream, as print's (a host application's, or
  // check mode's record of it).
  c.interp.host().statusLine()->clear();
  std::ostream& out = c.interp.host().out();
  std::optional<BuiltinDoc> doc;
  if (x.is(Kind::Str)) doc = builtinDoc(x.asStr());
  else if (x.is(Kind::Builtin)) doc = builtinDoc(x.as<rt::BuiltinObj>().name);
  else if (x.is(Kind::Method) && x.as<rt::MethodObj>().self.is(Kind::Tensor))
    doc = builtinDoc("Tensor." + x.as<rt::MethodObj>().name);
  else if (x.is(Kind::Method))  // xs.append, str.lower, or a Method of the stdlib's own (grad's)
    doc = hostMethodDoc(methodOwner(x.as<rt::MethodObj>()) + "." + x.as<rt::MethodObj>().name);
  if (doc) {
    printDoc(out, *doc);
    return Value::none();
  }
  if (x.is(Kind::Function)) {
    const auto& fo = x.as<rt::FunctionObj>();
    const ir::Function& fn = *fo.fn;
    std::string s = fo.name + "(";
    bool starred = false;
    size_t firstDefault = fn.numPositional() - fo.defaults.size();
    for (size_t i = 0; i < fn.numParams(); ++i) {
      const std::string& name = fn.paramNames()[i];
      s += i ? ", " : "";
      const Value* d = nullptr;
      switch (fn.paramKind(i)) {
        case ir::ParamKind::Positional:
          if (i >= firstDefault) d = &fo.defaults[i - firstDefault];
          break;
        case ir::ParamKind::VarArgs: s += "*"; starred = true; break;
        case ir::ParamKind::KeywordOnly:
          s += starred ? "" : "*, ";
          starred = true;
          for (const auto& [k, v] : fo.kwDefaults)
            if (k == name) d = &v;
          break;
        case ir::ParamKind::VarKeywords: s += "**"; break;
      }
      s += name;
      if (d) s += '=' + rt::repr(*d);  // (a char: GCC 12 warns falsely of "=" + a temporary)
    }
    out << s << ")\n    A function defined at line " << fn.loc().line << ".\n";
    return Value::none();
  }
  if (x.is(Kind::Str)) fail(c.loc, "help(): no builtin named '" + x.asStr() + "'", ErrorClass::NameError);
  fail(c.loc, std::string("help(): no entry for a value of type ") + rt::typeName(x) +
                  " (dir(x) lists its attributes)", ErrorClass::TypeError);
}

Value bDir(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  std::vector<Value> names;
  for (const std::string& n : attributeNames(args[0])) names.push_back(Value::str(n));
  return rt::makeList(std::move(names));
}

}  // namespace

std::optional<BuiltinDoc> builtinDoc(const std::string& name) {
  if (name.rfind("Tensor.", 0) == 0) return methodDoc(name.substr(7));
  if (std::optional<BuiltinDoc> d = hostMethodDoc(name)) return d;
  return functionDoc(name);
}

std::vector<std::string> documentedNames() {
  std::vector<std::string> out;
  for (const auto& kv : docTable()) out.push_back(kv.first);
  return out;
}

std::vector<BuiltinDoc> builtinReference() {
  std::vector<BuiltinDoc> out;
  for (const std::string& name : builtinNames())
    if (std::optional<BuiltinDoc> d = functionDoc(name)) out.push_back(*d);
  std::vector<std::string> methods = ir::tensorMethodNames();
  methods.insert(methods.end(), tensorAttributeNames().begin(), tensorAttributeNames().end());
  std::sort(methods.begin(), methods.end());
  for (const std::string& m : methods)
    if (std::optional<BuiltinDoc> d = methodDoc(m)) out.push_back(*d);
  for (const auto& [label, kind] : kHostKinds) {
    std::vector<std::string> names = attributeNames(kind == Kind::List    ? rt::makeList({})
                                                    : kind == Kind::Dict  ? rt::makeDict()
                                                    : kind == Kind::Str   ? Value::str("")
                                                                          : rt::makeTuple({}));
    for (const std::string& m : names)
      if (std::optional<BuiltinDoc> d = hostMethodDoc(std::string(label) + "." + m)) out.push_back(*d);
  }
  return out;
}

std::string builtinReferenceMarkdown() {
  std::ostringstream md;
  md << "# Builtin reference\n\n"
     << "Generated from the builtin table by `nn --builtin-reference` (a test fails when\n"
     << "this file is stale). `help(name)` in a script and `:help name` in the REPL print\n"
     << "the same entries. The language itself is described in [language.md](language.md).\n\n"
     << "A builtin takes keyword arguments where Python's does (`s.split(maxsplit=1)`,\n"
     << "`sorted(xs, key=f)`, `print(end='')`) and a tensor op for each of its parameters\n"
     << "(`x.sum(axis=1)`); any other keyword argument is a TypeError raised before the\n"
     << "call does anything, as in Python (`d.get(k, default=0)`, `xs.append(1, x=2)`),\n"
     << "never ignored. As in Python's own signatures, the parameters before a `/` are\n"
     << "positional only.\n";
  bool methods = false, hostMethods = false;
  md << "\n## Functions\n\n";
  for (const BuiltinDoc& d : builtinReference()) {
    if (!methods && d.name.rfind("Tensor.", 0) == 0) {
      methods = true;
      md << "\n## Tensor methods and attributes\n\n";
    }
    if (!hostMethods && hostMethodDoc(d.name)) {
      hostMethods = true;
      md << "\n## Methods of lists, dicts, strs and tuples\n\n";
    }
    md << "- `" << d.signature << "` — " << d.summary << "\n";
  }
  return md.str();
}

void addHelpBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Help).name] = bHelp;
  table[ir::builtinInfo(ir::Builtin::Dir).name] = bDir;
}

}  // namespace nn::stdlib
