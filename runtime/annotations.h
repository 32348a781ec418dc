// Checking calls against type annotations (language.md §2): an annotated
// parameter's value must have the declared kind, dtype, rank and sizes, a
// container's items their declared types (list[T], dict[str, T],
// tuple[A, B]), and a union's value one of its alternatives; a symbolic
// size such as N is bound by the first argument that has it and every
// later use must agree. A mismatch is a TypeError at the call site with a
// note at the annotation. In graph mode the compile cache keys annotated
// tensors by their symbolic shape, so one compiled version serves every N.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/annotation_check.h"
#include "ir/ir.h"
#include "runtime/value.h"

namespace nn::rt {

using DimBindings = ir::SymbolBindings;  // a symbol's size: always known here

// `params` in body-argument order (parameters first).
void checkArguments(const ir::Function& fn, const std::string& name, std::span<const Value> params,
                    SourceLoc callSite, DimBindings& bindings);
// `bindings` from checkArguments; the result may bind more of its symbols.
void checkResult(const ir::Function& fn, const std::string& name, const Value& result, DimBindings& bindings,
                 SourceLoc callSite);
// The type the compile cache uses for an argument of static type `t`: the
// annotation's symbols replace the sizes they name.
ir::Type signatureType(const ir::Type& t, const std::optional<ir::Annotation>& a);
// Fails when a compiled function's inferred result type cannot match its
// return annotation (at the return, with a note at the annotation).
void checkInferredResult(const ir::Function& fn);

}  // namespace nn::rt
