// Native code for the static glue of a compiled loop: the loop's control
// flow (its cond and body, nested ifs and loops), its scalar int, float
// and bool arithmetic and comparisons, a float's math (exp, log, sqrt,
// sin, ... as float_unary.def lists it) and isnan, isinf and isfinite,
// `float()` of a number, and `float()` of a one-element tensor
// (of a small full sum or mean: computed without the 0-d tensor) become
// one LLVM function, so an iteration makes no per-node dispatch for
// them; a for loop's reads of its iterable's length and items are one
// direct call each (GlueApi::iterLen, iterItem), as is a store_global of a
// scalar (GlueApi::storeGlobal: a module-level loop's variables), a
// comprehension's list_append and an unpack without a starred target
// (GlueApi::listAppend, unpack, which call the node back where they
// decline). Every other node (tensor ops, fused kernels, calls,
// containers) is called back into the interpreter through the GlueApi
// (jit.h), one call per node.
//
//   i32 name(i8* ctx, i8** api, i8** flags)   ; 0: done, 1: failed (the error is in ctx)
//
// The loop starts from the carried values in its result slots: the runtime
// puts its operands there, or, when it switches a loop that proved hot to
// its glue between two iterations, the values the next iteration carries.
//
// Values: a scalar the glue computes lives in a register (a loop's carried
// scalars and an if's scalar results are phis); everything else lives in
// the interpreter's frame slot for its value id. A register value that a
// called-back node (or anything outside the glue: the loop's results) reads
// is also stored to its slot when it is defined; a scalar a called-back node
// defines is read from its slot after the call. Non-scalar values move
// between slots as the interpreter moves them (carried values, yields).
//
// Semantics are the interpreter's: int + - * and negation raise "integer
// overflow" (llvm.s*.with.overflow), float / raises on a zero divisor, int
// mixed with float converts the int as Python does (sitofp, to nearest),
// int // and % floor as Python's do (a zero divisor raises),
// comparisons of floats are false when unordered except !=; a node that
// raises is called back at that point, so the error is the interpreter's
// own, with its location and call trace. Everything
// else (a float's // and %, powers, mixed comparisons, `not` of a number) is
// called back, so it raises exactly as the interpreter does. Each loop
// iteration ends by reading the interrupt and step-budget flags (GlueFlags)
// inline, and calls `tick` only when one is set: a scalar loop then makes
// no call at all.
#include "runtime/jit/glue_emitter.h"

namespace nn::rt::jit {

using glue::GlueEmitter;

std::unique_ptr<llvm::Module> buildGlueModule(llvm::LLVMContext& ctx, const ir::Node& loop, const std::string& name,
                                              GlueFunction& glue, std::string& why) {
  if (loop.op() != ir::Op::Loop || !GlueEmitter::structured(loop)) {
    why = "the loop's condition is not a bool, or a yield changes a scalar's kind";
    return nullptr;
  }
  auto m = std::make_unique<llvm::Module>("nn_glue", ctx);
  GlueEmitter emitter(ctx, *m, glue);
  if (!verified(*emitter.emit(loop, name), why)) return nullptr;
  return m;
}

}  // namespace nn::rt::jit

