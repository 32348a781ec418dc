// Annotation checks (see annotations.h).
#include "runtime/annotations.h"

#include "runtime/compile_cache.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {
namespace {

// "1 item", "2 items".
std::string count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string describeValue(const Value& v) {
  return v.is(Kind::Tensor) ? typeString(tensorOf(v)) : std::string(typeName(v));
}

std::string mismatch(const Value& v, const ir::Annotation& a, DimBindings& bindings);

// Why an item of a container does not match (empty when it does); which()
// names the item, only when it does not (a call checks every item).
template <class Which>
std::string itemMismatch(Which which, const Value& item, const ir::Annotation& a, DimBindings& bindings) {
  std::string why = mismatch(item, a, bindings);
  return why.empty() ? why : which() + " is " + describeValue(item) + ": " + why;
}

// The items of a list or tuple, or values of a dict, against a.args.
std::string itemsMismatch(const Value& v, const ir::Annotation& a, DimBindings& bindings) {
  if (v.is(Kind::Dict)) {
    // Not a structured binding: clang 14 cannot capture one in a lambda.
    for (const auto& item : v.as<DictObj>().items)
      if (std::string why = itemMismatch([&] { return "the value of key '" + item.first + "'"; }, item.second,
                                         a.args[0], bindings);
          !why.empty())
        return why;
    return "";
  }
  const std::vector<Value>& items = v.as<SeqObj>().items;
  if (a.form == ir::Annotation::Form::Items && items.size() != a.args.size())
    return "it has " + count(items.size(), "item") + ", not " + std::to_string(a.args.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const ir::Annotation& want = a.form == ir::Annotation::Form::Items ? a.args[i] : a.args[0];
    if (std::string why = itemMismatch([&] { return "item " + std::to_string(i); }, items[i], want, bindings);
        !why.empty())
      return why;
  }
  return "";
}

// Empty when v matches a, else why not. A mismatch ends the call, except
// in a union, whose alternatives each bind symbols in a copy.
std::string mismatch(const Value& v, const ir::Annotation& a, DimBindings& bindings) {
  if (a.form == ir::Annotation::Form::Union) {
    for (const ir::Annotation& alternative : a.args) {
      DimBindings tried = bindings;
      if (mismatch(v, alternative, tried).empty()) {
        bindings = std::move(tried);
        return "";
      }
    }
    return ir::expectation(a);
  }
  // The common check, a scalar's, by its kind alone (no type built).
  if (a.form == ir::Annotation::Form::Plain && a.type.kind != ir::TypeKind::Tensor)
    return ir::kindMatches(staticKind(v), a.type.kind) ? "" : ir::expectation(a);
  // The value's exact type decides everything but a container's items
  // (the check type inference makes, so the two give the same reasons).
  ir::Type t = staticType(v);
  ir::TypeCheck c = ir::checkType(t, a, bindings);
  if (c.verdict == ir::Verdict::Pass) return "";
  if (c.verdict == ir::Verdict::Fail) return c.why;
  // Undecided: a container of the annotated kind, or a value whose kind
  // no type names (a range).
  return t.kind == a.type.kind ? itemsMismatch(v, a, bindings) : ir::expectation(a);
}

[[noreturn]] void report(SourceLoc at, std::string message, const ir::Annotation& a) {
  Diagnostic d;
  d.loc = at;
  d.message = std::move(message);
  d.errorClass = ErrorClass::TypeError;
  d.notes.push_back({a.loc, "the annotation is " + a.str()});
  throw NnError(std::move(d));
}

}  // namespace


void checkArguments(const ir::Function& fn, const std::string& name, std::span<const Value> params,
                    SourceLoc callSite, DimBindings& bindings) {
  for (size_t i = 0; i < fn.numParams() && i < params.size(); ++i) {
    const auto& a = fn.paramAnnotation(i);
    if (!a) continue;
    std::string why = mismatch(params[i], *a, bindings);
    if (!why.empty())
      report(callSite, ir::argumentMismatch(fn, name, i, describeValue(params[i]), why), *a);
  }
}

void checkResult(const ir::Function& fn, const std::string& name, const Value& result, DimBindings& bindings,
                 SourceLoc callSite) {
  const auto& a = fn.returnAnnotation();
  if (!a) return;
  std::string why = mismatch(result, *a, bindings);
  if (!why.empty())
    report(callSite, ir::resultMismatch(fn, name, describeValue(result), why), *a);
}

ir::Type signatureType(const ir::Type& t, const std::optional<ir::Annotation>& a) {
  if (!a || a->form != ir::Annotation::Form::Plain || !t.isTensor() || !t.shape || !a->type.shape ||
      a->type.shape->size() != t.shape->size())
    return t;
  ir::Type s = t;
  for (size_t i = 0; i < s.shape->size(); ++i)
    if (!(*a->type.shape)[i].sym.empty()) (*s.shape)[i] = (*a->type.shape)[i];
  return s;
}

void checkInferredResult(const ir::Function& fn) {
  const auto& a = fn.returnAnnotation();
  const ir::Node* ret = fn.body()->terminator();
  if (!a || !ret || ret->op() != ir::Op::Return) return;
  const ir::Type& got = ret->operand(0)->type();
  const ir::Type& want = a->type;
  std::string why;
  if (got.kind == ir::TypeKind::Any || want.kind == ir::TypeKind::Any) return;
  if (want.kind == ir::TypeKind::Float && (got.kind == ir::TypeKind::Int || got.kind == ir::TypeKind::Bool)) return;
  if (want.kind == ir::TypeKind::Int && got.kind == ir::TypeKind::Bool) return;
  if (got.kind != want.kind) {
    why = "it is " + got.str();
  } else if (want.isTensor()) {
    if (want.dtype && got.dtype && *want.dtype != *got.dtype) why = "its dtype is " + std::string(dtypeName(*got.dtype));
    else if (want.shape && got.shape && want.shape->size() != got.shape->size()) why = "its rank differs";
    else if (want.shape && got.shape)
      for (size_t i = 0; i < want.shape->size() && why.empty(); ++i) {
        const ir::Dim &w = (*want.shape)[i], &g = (*got.shape)[i];
        // Only sizes known on both sides can be told apart here: two names
        // may stand for one size in a call (the check after the call sees).
        if (w.isKnown() && g.isKnown() && w.size != g.size)
          why = "dimension " + std::to_string(i) + " is " + g.str() + ", not " + w.str();
      }
  }
  if (!why.empty())
    report(ret->operand(0)->def() ? ret->operand(0)->def()->loc() : ret->loc(),
           "the result of " + fn.name() + "() does not match its return annotation " + a->str() + ": " + got.str() +
               " (" + why + ")",
           *a);
}

}  // namespace nn::rt
