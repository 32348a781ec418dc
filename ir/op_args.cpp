// Binding a tensor op's arguments to its signature (see op_args.h). Which
// argument fills which parameter is matchArguments' answer
// (op_signature.h), the one the runtime's binder uses too.
#include "ir/op_args.h"

namespace nn::ir {
namespace {

const Attr* constantOf(const Value* v) {
  const Node* d = v ? v->def() : nullptr;
  return d && d->op() == Op::Const ? d->attr("value") : nullptr;
}


// The elements of a literal tuple or list; null when `v` is not one.
const std::vector<Value*>* literalItems(const Value* v) {
  const Node* d = v ? v->def() : nullptr;
  return d && (d->op() == Op::MakeTuple || d->op() == Op::MakeList) ? &d->operands() : nullptr;
}

std::optional<Attr> constantInts(const std::vector<const Value*>& items) {
  Ints out;
  for (const Value* v : items) {
    std::optional<int64_t> i = constInt(v);
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return out;
}

// A variadic parameter's items: the positional arguments, or the elements
// of a single literal tuple or list (zeros((2, 3)) is zeros(2, 3)).
std::vector<const Value*> variadicItems(std::vector<const Value*> args) {
  if (args.size() == 1)
    if (const std::vector<Value*>* items = literalItems(args[0])) return {items->begin(), items->end()};
  return args;
}

}  // namespace

std::optional<int64_t> constInt(const Value* v) {
  const Attr* a = constantOf(v);
  if (const int64_t* i = a ? std::get_if<int64_t>(a) : nullptr) return *i;
  return std::nullopt;
}

std::optional<Attr> constantAttr(const Value* v, const Param& p) {
  if (p.type == AttrType::DType) {
    // f32, float, "f32": the dtype's canonical name.
    const Node* d = v->def();
    std::string name;
    if (d && d->op() == Op::Builtin) name = d->strAttr("name");
    else if (const Attr* a = constantOf(v); a && std::holds_alternative<std::string>(*a)) name = std::get<std::string>(*a);
    if (name == "float") name = "f32";
    else if (name == "int") name = "i64";
    if (std::optional<DType> dt = dtypeFromName(name)) return std::string(dtypeName(*dt));
  }
  if (p.type == AttrType::Ints)
    if (const std::vector<Value*>* items = literalItems(v)) return constantInts({items->begin(), items->end()});
  const Attr* a = constantOf(v);
  if (!a) return std::nullopt;
  if (std::holds_alternative<NoneAttr>(*a)) return p.optional ? std::optional<Attr>(*a) : std::nullopt;
  switch (p.type) {
    case AttrType::Int:
    case AttrType::Ints:
      if (std::holds_alternative<int64_t>(*a)) return *a;
      if (const bool* b = std::get_if<bool>(a)) return static_cast<int64_t>(*b);  // as the runtime binds it
      return std::nullopt;
    case AttrType::Float:
      if (const int64_t* i = std::get_if<int64_t>(a)) return static_cast<double>(*i);
      if (std::holds_alternative<double>(*a)) return *a;
      return std::nullopt;
    case AttrType::Bool:
      if (std::holds_alternative<bool>(*a)) return *a;
      return std::nullopt;
    case AttrType::Str:
      if (std::holds_alternative<std::string>(*a)) return *a;
      return std::nullopt;
    case AttrType::DType: return std::nullopt;
  }
  return std::nullopt;
}

const BoundArg& OpArgs::arg(std::string_view name) const {
  int i = sig_->find(name);
  if (i < 0) {
    static const BoundArg absent;
    return absent;
  }
  return args_[static_cast<size_t>(i)];
}

const Value* OpArgs::operand(std::string_view name) const {
  const Value* v = arg(name).value;
  return v && v->type().kind != TypeKind::None ? v : nullptr;
}

std::vector<const Value*> OpArgs::operands() const {
  std::vector<const Value*> out;
  for (size_t i = 0; i < args_.size(); ++i)
    if (!sig_->params[i].isAttr) out.push_back(args_[i].value);
  return out;
}

std::optional<int64_t> OpArgs::intAttr(std::string_view name) const {
  const std::optional<Attr>& c = arg(name).constant;
  if (const int64_t* i = c ? std::get_if<int64_t>(&*c) : nullptr) return *i;
  return std::nullopt;
}

std::optional<bool> OpArgs::boolAttr(std::string_view name) const {
  const std::optional<Attr>& c = arg(name).constant;
  if (const bool* b = c ? std::get_if<bool>(&*c) : nullptr) return *b;
  return std::nullopt;
}

std::optional<std::string> OpArgs::strAttr(std::string_view name) const {
  const std::optional<Attr>& c = arg(name).constant;
  if (const std::string* s = c ? std::get_if<std::string>(&*c) : nullptr) return *s;
  return std::nullopt;
}

bool OpArgs::isNone(std::string_view name) const {
  const BoundArg& a = arg(name);
  if (a.constant) return std::holds_alternative<NoneAttr>(*a.constant);
  return !a.value || a.value->type().kind == TypeKind::None;
}

std::optional<DType> OpArgs::dtypeAttr(std::string_view name, bool& present) const {
  present = !isNone(name);
  const std::optional<Attr>& c = arg(name).constant;
  if (const std::string* s = c ? std::get_if<std::string>(&*c) : nullptr) return dtypeFromName(*s);
  return std::nullopt;
}

std::optional<std::vector<std::optional<int64_t>>> OpArgs::dims(std::string_view name) const {
  const BoundArg& a = arg(name);
  if (a.constant) {
    if (const Ints* l = std::get_if<Ints>(&*a.constant)) return std::vector<std::optional<int64_t>>(l->begin(), l->end());
    if (const int64_t* i = std::get_if<int64_t>(&*a.constant)) return std::vector<std::optional<int64_t>>{*i};
    return std::nullopt;
  }
  // The items read where they are (a copy into one vector type made GCC
  // 12 warn falsely of freeing a non-heap pointer).
  auto ints = [](const auto& items) -> std::optional<std::vector<std::optional<int64_t>>> {
    std::vector<std::optional<int64_t>> out;
    for (const Value* v : items) {
      if (v->type().kind != TypeKind::Int) return std::nullopt;
      out.push_back(constInt(v));
    }
    return out;
  };
  if (!a.value) return ints(a.items);
  const std::vector<Value*>* literal = literalItems(a.value);
  if (!literal) return std::nullopt;
  return ints(*literal);
}

bool OpArgs::attributesKnown() const {
  for (size_t i = 0; i < args_.size(); ++i)
    if (sig_->params[i].isAttr && !args_[i].constant) return false;
  return true;
}

std::optional<OpArgs> bindArgs(Op op, SourceLoc loc, const std::vector<const Value*>& positional,
                               const std::vector<std::string>& kwnames, const std::vector<const Value*>& kwvalues) {
  OpArgs out(op, loc);
  const Signature& sig = out.signature();
  ArgMatch m = matchArguments(sig, positional.size(), kwnames);
  if (m.error != ArgMatch::Error::None) return std::nullopt;  // the runtime reports it
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Param& p = sig.params[i];
    BoundArg& a = out.arg(i);
    const ArgSource& src = m.sources[i];
    a.given = src.kind != ArgSource::Default;
    if (src.kind == ArgSource::Positional) a.value = positional[src.index];
    else if (src.kind == ArgSource::Keyword && p.variadic) a.items = variadicItems({kwvalues[src.index]});
    else if (src.kind == ArgSource::Keyword) a.value = kwvalues[src.index];
    else if (src.kind == ArgSource::Rest)
      a.items = variadicItems({positional.begin() + static_cast<std::ptrdiff_t>(src.index), positional.end()});
    if (!p.isAttr) continue;
    if (!a.given) a.constant = p.variadic ? Attr(Ints{}) : *p.defaultValue;
    else if (p.variadic) a.constant = constantInts(a.items);
    else a.constant = constantAttr(a.value, p);
  }
  return out;
}

std::optional<OpArgs> bindCall(const Node& call, Op op) {
  const std::vector<std::string>& kw = call.strListAttr("kw");
  size_t npos = call.operands().size() - 1 - kw.size();
  const auto& ops = call.operands();
  return bindArgs(op, call.loc(), {ops.begin() + 1, ops.begin() + 1 + static_cast<std::ptrdiff_t>(npos)}, kw,
                  {ops.begin() + 1 + static_cast<std::ptrdiff_t>(npos), ops.end()});
}

OpArgs argsOf(const Node& n) {
  OpArgs out(n.op(), n.loc());
  const Signature& sig = out.signature();
  size_t next = 0;
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Param& p = sig.params[i];
    BoundArg& a = out.arg(i);
    if (!p.isAttr) {
      if (next < n.operands().size()) a.value = n.operand(next++);
      a.given = a.value != nullptr;
      continue;
    }
    if (const Attr* v = n.attr(p.name)) a.constant = *v;
    else if (p.variadic) a.constant = Ints{};
    else if (p.defaultValue) a.constant = *p.defaultValue;
    else a.constant = NoneAttr{};
    a.given = true;
  }
  return out;
}

}  // namespace nn::ir
