// The optimisation passes. Each pass is one file with one entry function
// `bool name(ir::Graph&)` that returns whether it changed the graph; the
// pipeline below lists them in order in one place.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace nn::passes {

// How fold-constants evaluates a node on literal operands: the literal
// result, or nullopt when the node raises, gives NaN or a non-literal. The
// runtime provides it (passes cannot depend on the runtime).
using ConstantEvaluator = std::optional<ir::Attr> (*)(const ir::Node& n, const std::vector<ir::Attr>& operands);

// What the state compiling a graph gives its passes: everything they need
// beyond the IR, so that passes keep no state of their own and two states
// can compile at once.
struct PassContext {
  // The runtime's evaluation for fold-constants; null folds nothing.
  ConstantEvaluator evaluator = nullptr;
  // Where infer-types says at compile time that an op will fail if it is
  // ever reached (a mismatch its rule proves for an op that may not run,
  // which therefore only raises at run time); null: nowhere.
  std::function<void(const Diagnostic&)> failIfReached;
  // Whether the pipeline runs fuse-elementwise (graph mode with
  // `--fusion on`); eager mode always runs op by op.
  bool fuse = false;
};

// Gives every value the type its op's rule implies (ir/type_rules.h).
bool inferTypes(ir::Graph& g, PassContext& ctx);

// Replaces calls of known, non-recursive local functions by their bodies.
bool inlineCalls(ir::Graph& g, PassContext& ctx);

// Counted loops with a small trip count known at compile time become
// copies of their body.
bool unrollLoops(ir::Graph& g, PassContext& ctx);

// A loop's reads of module globals become SSA values (loop-carried where
// the loop stores them too).
bool promoteGlobals(ir::Graph& g, PassContext& ctx);

// Reads of elements of tuples (and unmutated lists and dicts) the function
// builds become the elements.
bool forwardElements(ir::Graph& g, PassContext& ctx);

// Each autodiff node becomes the backward pass of the code before it.
bool autodiff(ir::Graph& g, PassContext& ctx);

// Chains of elementwise ops over one shape become fused nodes.
bool fuseElementwise(ir::Graph& g, PassContext& ctx);

// x @ w + b becomes linear(x, w.T, b): one matmul with a bias post-op.
bool fusePostOps(ir::Graph& g, PassContext& ctx);

// In a function that differentiates, sort's and topk's values become
// gathers of their operand by the indices (which have a gradient).
bool gatherSorted(ir::Graph& g, PassContext& ctx);

// split / chunk along an axis of known length become lists of slices.
bool lowerSplits(ir::Graph& g, PassContext& ctx);

// The place nodes of `with device(...)` blocks become `to` copies on
// tensors and disappear on other values.
bool placeDevices(ir::Graph& g, PassContext& ctx);

// Calls of elementwise tensor builtins on tensors become IR ops.
bool builtinOps(ir::Graph& g, PassContext& ctx);

// Nodes over constants become constants, computed by the runtime.
bool foldConstants(ir::Graph& g, PassContext& ctx);

// An `if` on a constant becomes the branch it takes.
bool foldIfs(ir::Graph& g, PassContext& ctx);

// Exact algebraic identities (x*1, x-0, -(-x), x/2^k, (x.T).T, ...).
bool simplify(ir::Graph& g, PassContext& ctx);

// Merges nodes with equal structural keys (ir/node_key.h).
bool commonSubexpressions(ir::Graph& g, PassContext& ctx);

// The items of `for i in range(n)` and `range(a, b)` over ints become the
// loop counter and `a + counter`: typed int, no item dispatch per iteration.
bool rangeItems(ir::Graph& g, PassContext& ctx);

// Moves loop-invariant nodes that cannot fail or be observed out of loops.
bool hoistLoopInvariants(ir::Graph& g, PassContext& ctx);

// Reads of distinct constant indices of a container nothing else reads
// move the items out (when the frame holds the container alone).
bool takeItems(ir::Graph& g, PassContext& ctx);
// A method of a list, dict, str or tuple that is only called becomes one
// call_method node (no bound-method object).
bool bindMethods(ir::Graph& g, PassContext& ctx);

// Order edges between effects and nodes that may raise (the last pass).
bool orderEffects(ir::Graph& g, PassContext& ctx);

// Merges an `if` on a flag into the `if` before it that set the flag in
// each branch (early returns and breaks), and drops the results of ifs
// that nothing reads.
bool mergeIfs(ir::Graph& g, PassContext& ctx);

// Removes nodes whose results are never used and that neither have an
// effect nor may raise (passes/effects.h).
bool deadCodeElimination(ir::Graph& g, PassContext& ctx);

// Runs `rewrite` on each function of `g` and renumbers the functions it
// changed (value ids and last-use facts must follow every change); returns
// whether any changed. Functions are numbered when a pass starts.
bool rewriteFunctions(ir::Graph& g, const std::function<bool(ir::Function&)>& rewrite);

struct PassInfo {
  const char* name;
  bool (*run)(ir::Graph&, PassContext&);
  // Null: always runs; otherwise runs where this says so.
  bool (*enabled)(const PassContext&) = nullptr;
};

// The optimisation pipeline, in order.
const std::vector<PassInfo>& pipeline();
// A pass of the pipeline by name (for tests and --print-ir-after).
const PassInfo* findPass(const std::string& name);
// Runs the pipeline, verifying after each pass; `after` is called with each
// pass's name once it has run.
void runPipeline(ir::Graph& g, PassContext& ctx, const std::function<void(const char*)>& after = {});

}  // namespace nn::passes
