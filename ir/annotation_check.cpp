// Static annotation checks (see annotation_check.h).
#include "ir/annotation_check.h"

#include "ir/annotation.h"

namespace nn::ir {
namespace {

TypeCheck fail(std::string why) { return {Verdict::Fail, std::move(why)}; }
TypeCheck unknown() { return {Verdict::Unknown, {}}; }

// "1 dimension", "2 dimensions".
std::string count(size_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

TypeCheck checkTensor(const Type& t, const Type& want, SymbolBindings& bindings) {
  if (t.kind == TypeKind::Any) return unknown();
  if (!t.isTensor()) return fail("expected a tensor");
  Verdict v = Verdict::Pass;
  if (want.dtype) {
    if (!t.dtype) v = Verdict::Unknown;
    else if (*t.dtype != *want.dtype)
      return fail(std::string("its dtype is ") + dtypeName(*t.dtype) + ", not " + dtypeName(*want.dtype));
  }
  if (!want.shape) return {v, {}};
  if (!t.shape) return unknown();
  if (t.shape->size() != want.shape->size())
    return fail("it has " + count(t.shape->size(), "dimension") + ", not " + std::to_string(want.shape->size()));
  for (size_t i = 0; i < want.shape->size(); ++i) {
    const Dim& w = (*want.shape)[i];
    const Dim& got = (*t.shape)[i];
    std::string which = "dimension " + std::to_string(i) + " is ";
    if (w.isKnown()) {
      if (!got.isKnown()) v = Verdict::Unknown;
      else if (got.size != w.size) return fail(which + std::to_string(got.size) + ", not " + std::to_string(w.size));
      continue;
    }
    if (w.sym.empty()) continue;
    // A size of unknown value binds the symbol to unknown: later uses of it
    // then prove nothing either way.
    bool definite = got.isKnown() || !got.sym.empty();
    auto [it, fresh] = bindings.emplace(w.sym, definite ? got : Dim::unknown());
    if (fresh) {
      if (!definite) v = Verdict::Unknown;
      continue;
    }
    const Dim& bound = it->second;
    if (bound.isKnown() && got.isKnown()) {
      if (bound.size != got.size)
        return fail(which + std::to_string(got.size) + ", but " + w.sym + " is " + std::to_string(bound.size) +
                    " from an earlier argument");
    } else if (!definite || bound != got) {
      v = Verdict::Unknown;
    }
  }
  return {v, {}};
}

}  // namespace

std::string describeType(const Type& t) {
  // As the runtime names a value of the kind (typeName).
  if (t.kind == TypeKind::None) return "NoneType";
  if (t.kind == TypeKind::Func) return "function";
  return t.str();
}

std::string expectation(const Annotation& a) {
  if (a.form == Annotation::Form::Union) return "expected " + a.str();
  switch (a.type.kind) {
    case TypeKind::Int: return "expected an int";
    case TypeKind::Float: return "expected a float";
    case TypeKind::Bool: return "expected a bool";
    case TypeKind::Str: return "expected a str";
    case TypeKind::None: return "expected None";
    case TypeKind::Func: return "expected a function";
    case TypeKind::Tensor: return "expected a tensor";
    default: return "expected a " + a.type.str();
  }
}

TypeCheck checkType(const Type& t, const Annotation& a, SymbolBindings& bindings) {
  if (a.form == Annotation::Form::Union) {
    // The first alternative a value matches binds its symbols; with one
    // undecided before it, which one that is is not known.
    for (const Annotation& alternative : a.args) {
      SymbolBindings tried = bindings;
      TypeCheck c = checkType(t, alternative, tried);
      if (c.verdict == Verdict::Unknown) return c;
      if (c.verdict == Verdict::Pass) {
        bindings = std::move(tried);
        return c;
      }
    }
    return fail(expectation(a));
  }
  if (a.type.kind == TypeKind::Any) return {};
  if (a.type.kind == TypeKind::Tensor) return checkTensor(t, a.type, bindings);
  if (t.kind == TypeKind::Any) return unknown();
  if (!kindMatches(t.kind, a.type.kind)) return fail(expectation(a));
  // Types say nothing of a container's items.
  return a.form == Annotation::Form::Plain ? TypeCheck{} : unknown();
}

std::string argumentMismatch(const Function& fn, const std::string& name, size_t param, const std::string& got,
                             const std::string& why) {
  return "argument '" + fn.paramNames()[param] + "' of " + name + "() does not match its annotation " +
         fn.paramAnnotation(param)->str() + ": got " + got + ", " + why;
}

std::string resultMismatch(const Function& fn, const std::string& name, const std::string& got,
                           const std::string& why) {
  return name + "() returned a value that does not match its return annotation " + fn.returnAnnotation()->str() +
         ": got " + got + ", " + why;
}

const Function* checkedFunction(const Node& n) {
  return n.parent()->function()->graph()->function(n.strAttr("func"));
}

CallCheck checkCall(const Node& n) {
  const Function* fn = checkedFunction(n);
  if (!fn) return {Verdict::Unknown, {}, nullptr};
  // check_result's operands: the result, then the parameters, as
  // check_args's (which rebind the symbols its arguments bound).
  size_t first = n.op() == Op::CheckResult ? 1 : 0;
  const std::string& name = n.strAttr("name");
  SymbolBindings bindings;
  Verdict verdict = Verdict::Pass;
  for (size_t i = 0; i < fn->numParams() && first + i < n.operands().size(); ++i) {
    const auto& a = fn->paramAnnotation(i);
    if (!a) continue;
    const Type& t = n.operand(first + i)->type();
    TypeCheck c = checkType(t, *a, bindings);
    if (c.verdict == Verdict::Fail) {
      if (first) return {Verdict::Unknown, {}, nullptr};  // check_args fails first
      return {Verdict::Fail, argumentMismatch(*fn, name, i, describeType(t), c.why), &*a};
    }
    if (c.verdict == Verdict::Unknown) verdict = Verdict::Unknown;
  }
  if (!first) return {verdict, {}, nullptr};
  const auto& a = fn->returnAnnotation();
  if (!a) return {verdict, {}, nullptr};
  const Type& t = n.operand(0)->type();
  TypeCheck c = checkType(t, *a, bindings);
  if (c.verdict == Verdict::Fail && verdict == Verdict::Pass)
    return {Verdict::Fail, resultMismatch(*fn, name, describeType(t), c.why), &*a};
  return {c.verdict == Verdict::Pass ? verdict : Verdict::Unknown, {}, nullptr};
}

}  // namespace nn::ir
