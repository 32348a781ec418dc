// The pass pipeline: one readable list, run in order with the verifier
// after every pass (debug builds; after the last one in release builds). infer-types runs again after the passes that make new
// nodes or new constants, so the passes after them see typed values;
// order-effects comes last because rewrites do not keep order edges.
#include "ir/text.h"
#include "passes/passes.h"
#include "support/diagnostics.h"

namespace nn::passes {

const std::vector<PassInfo>& pipeline() {
  static const std::vector<PassInfo> passes = {
      {"inline", inlineCalls},
      // Before forward-elements: a loop over a structure's items reads
      // them by constant indices once unrolled.
      {"unroll-loops", unrollLoops},
      {"forward-elements", forwardElements},
      {"infer-types", inferTypes},
      // Once the values stored into globals are typed (its test of what
      // may run user code asks their types).
      {"promote-globals", promoteGlobals},
      // Again: a loop's call of a module-level function now calls the
      // function's make_closure, and the calls in the bodies inlined first
      // (an imported function's helpers) are inlined; their loops unroll.
      {"inline", inlineCalls},
      {"unroll-loops", unrollLoops},
      {"forward-elements", forwardElements},
      {"infer-types", inferTypes},
      // Once the range's arguments are typed; unroll-loops has taken the
      // ranges of a length known at compile time. Before folding, which
      // then knows a loop's item is an int (`type(i)`).
      {"range-items", rangeItems},
      {"infer-types", inferTypes},
      // Before folding: int(x) of an int is x, so a library's check of an
      // argument it converts (`_index(1) == 1`) folds with its branch.
      {"simplify", simplify},
      {"fold-constants", foldConstants},
      {"fold-ifs", foldIfs},
      {"infer-types", inferTypes},
      {"builtin-ops", builtinOps},
      {"infer-types", inferTypes},
      // Slices are typed and differentiable where a split's list is not;
      // forward-elements then gives `a, b = x.split(...)` the slices.
      {"lower-splits", lowerSplits},
      {"gather-sorted", gatherSorted},
      {"forward-elements", forwardElements},
      {"infer-types", inferTypes},
      // Again: a method of a value typed only now, as `f(x).sum()` where
      // f(x) became an op, becomes its op too.
      {"builtin-ops", builtinOps},
      {"infer-types", inferTypes},
      // Again: the ops builtin-ops made have shapes now, so `x.shape[0]`
      // of one folds, and a call given it (`h.reshape(h.shape[0], -1)`)
      // becomes its op.
      {"fold-constants", foldConstants},
      {"fold-ifs", foldIfs},
      {"infer-types", inferTypes},
      {"builtin-ops", builtinOps},
      {"infer-types", inferTypes},
      // Before autodiff and CSE: a copy's gradient is the copy back, and
      // CSE leaves one copy per value and device.
      {"place-devices", placeDevices},
      {"simplify", simplify},
      // Before autodiff, so a loop's backward reads what does not change
      // between iterations once instead of saving a copy per iteration.
      {"licm", hoistLoopInvariants},
      {"autodiff", autodiff},
      {"infer-types", inferTypes},
      {"simplify", simplify},
      {"cse", commonSubexpressions},
      {"licm", hoistLoopInvariants},
      {"cse", commonSubexpressions},
      // After autodiff, whose backward follows the ifs as the program has
      // them; before dce, which removes the flags' constants.
      {"merge-ifs", mergeIfs},
      {"dce", deadCodeElimination},
      {"take-items", takeItems},
      // Before fuse-elementwise, which would take the bias add into a group.
      {"fuse-post-ops", fusePostOps},
      // The transpose of a weight fuse-post-ops made leaves the loop that
      // applies the layer, as the weight's own uses did.
      {"licm", hoistLoopInvariants},
      // Last of the rewrites: the groups it forms are opaque to the passes
      // above (they skip nodes with blocks).
      {"fuse-elementwise", fuseElementwise, [](const PassContext& c) { return c.fuse; }},
      // After every pass that looks for a getattr and its call.
      {"bind-methods", bindMethods},
      {"order-effects", orderEffects},
  };
  return passes;
}

bool rewriteFunctions(ir::Graph& g, const std::function<bool(ir::Function&)>& rewrite) {
  bool changed = false;
  for (const auto& f : g.functions())
    if (rewrite(*f)) {
      f->number();
      changed = true;
    }
  return changed;
}

const PassInfo* findPass(const std::string& name) {
  for (const PassInfo& p : pipeline())
    if (name == p.name) return &p;
  return nullptr;
}

void runPipeline(ir::Graph& g, PassContext& ctx, const std::function<void(const char*)>& after) {
  for (const PassInfo& p : pipeline()) {
    if (p.enabled && !p.enabled(ctx)) continue;
    try {
      p.run(g, ctx);
    } catch (const NnError&) {
      throw;
    } catch (const std::exception& e) {
      // A pass that failed on something it did not anticipate: reported at
      // the code being compiled instead of escaping the compiler.
      SourceLoc at = g.functions().empty() ? SourceLoc{} : g.functions().front()->loc();
      fail(at, std::string("internal error in pass ") + p.name + ": " + e.what());
    }
#ifndef NDEBUG
    // Debug builds (the sanitizer runs) find the pass that broke the IR;
    // release builds verify once, after the last pass.
    ir::verify(g);
#endif
    if (after) after(p.name);
  }
#ifdef NDEBUG
  ir::verify(g);
#endif
}

}  // namespace nn::passes
