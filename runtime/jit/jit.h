// The LLVM JIT's interface to the rest of the runtime, free of LLVM types:
// a per-state engine (LLVM 14 ORC LLJIT for the host CPU) that compiles the
// body of a `fused` node (passes/fuse_elementwise.cpp) into one native,
// vectorised loop over the output's elements. Only runtime/jit/ includes
// LLVM headers.
//
// A kernel is compiled for the operands' static types: each tensor operand
// has its IR dtype and shape and contiguous storage, broadcast to the
// output's shape as its shape implies; the caller checks that the run-time
// operands are so (FusedKernel::operands) and otherwise runs the fused node
// another way. The kernel computes exactly what the runtime's kernels
// compute op by op — the same dtype promotion, conversions, NaN and
// signed-zero handling and the same libm calls — so fused and unfused runs
// agree bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace nn::rt::jit {

// How a kernel reads one operand for the output element (row r, column j).
enum class Access : uint8_t {
  Elementwise,  // a tensor of the output's shape: its element r * cols + j
  Single,       // one value (all dimensions 1), broadcast everywhere
  Rows,         // a tensor broadcast along some dimensions: r * rowStride + j * colStep
  Number,       // a Python number: 8 bytes, int64 (int, bool) or double (float)
};

struct OperandAccess {
  Access access = Access::Elementwise;
  int64_t rowStride = 0, colStep = 0;  // Rows only
};

// in: one pointer per operand (a tensor's first element, or the number's
// 8 bytes); out: the contiguous result, or for a node of several results
// (at most kMaxFusedResults, all of one shape) an array of pointers to
// them, in order. By elements: [begin, end) are flat indices of the
// output; by rows (FusedKernel::cols > 0): row indices (but see
// FusedKernel::reduce).
// Returns 0, or 1 when an op would raise for some element (an integer
// division by zero: FusedKernel::canFail); the runtime then runs the node
// op by op, which raises the error at its op.
using FusedFn = int32_t (*)(void* const* in, void* out, int64_t begin, int64_t end);
constexpr size_t kMaxFusedResults = 8;

// Per operand of a fused node, its strides in elements (a transposed or
// stepped view), or empty: contiguous (or a number).
using OperandLayouts = std::vector<std::vector<int64_t>>;

struct FusedKernel {
  FusedFn fn = nullptr;
  int64_t cols = 0;  // > 0: the kernel runs by rows of this many elements
  std::vector<OperandAccess> operands;
  // A trailing reduction (a full sum, mean, max or min of the chain's
  // `count` elements): `out` is a double, the reduction of the elements
  // [begin, end) (flat element indices): for a sum one chunk's, in
  // sum_order.h's order ([begin, end) lie in one chunk of kSumChunk); for
  // max and min the extremum, as a scan finds it.
  enum class Reduce : uint8_t { None, Sum, Mean, Max, Min } reduce = Reduce::None;
  int64_t count = 0;
  // The reduction is over the last axis: `out` holds the result, one
  // element per row of `cols` elements, and [begin, end) are rows.
  bool perRow = false;
  // Some op can fault (FusedFn): the result never takes an operand's
  // buffer, so that the node can run again op by op from its operands.
  bool canFail = false;
  double compileMillis = 0;
};

// The calls compiled glue (a loop's control flow and scalar arithmetic,
// glue_codegen.cpp) makes back into the runtime, in this order (the glue
// loads them by position). ctx is the runtime's; slots are value ids of the
// frame; a status is 0 for success, else the error is recorded in ctx.
struct GlueApi {
  int32_t (*run)(void* ctx, uint32_t node);  // GlueFunction::nodes[node], as the interpreter runs it
  void (*setInt)(void* ctx, uint32_t slot, int64_t v);
  void (*setFloat)(void* ctx, uint32_t slot, double v);
  void (*setBool)(void* ctx, uint32_t slot, int32_t v);
  int64_t (*getInt)(void* ctx, uint32_t slot);
  double (*getFloat)(void* ctx, uint32_t slot);
  int32_t (*getBool)(void* ctx, uint32_t slot);
  void (*assign)(void* ctx, uint32_t dst, uint32_t src, int32_t move);
  void (*clear)(void* ctx, uint32_t slot);
  // An iteration of loop `node` ended while a GlueFlags flag was set.
  int32_t (*tick)(void* ctx, uint32_t node);
  // float(t) of the one-element tensor in `slot` into *out; not 0 when the
  // slot holds anything else (the glue then calls the node back).
  int32_t (*itemFloat)(void* ctx, uint32_t slot, double* out);
  // float(sum(t)) (mean: of mean(t)) of the tensor in `slot` into *out,
  // without the 0-d tensor; not 0 when the runtime would compute it
  // another way (the glue then calls both nodes back).
  int32_t (*sumFloat)(void* ctx, uint32_t slot, int32_t mean, double* out);
  // iter_len of the iterable in `slot` (an `iter`'s result: cannot fail).
  int64_t (*iterLen)(void* ctx, uint32_t slot);
  // iter_item GlueFunction::nodes[node] at `index` into its result slot;
  // not 0 when its iterable is one the runtime reads another way (the
  // glue then calls the node back).
  int32_t (*iterItem)(void* ctx, uint32_t node, int64_t index);
  // store_global GlueFunction::nodes[node] of a scalar: `bits` is the int,
  // the bool (0 or 1) or the double's bits, as the node's operand is typed.
  // Cannot fail (a scalar is never the undef of a `del`).
  void (*storeGlobal)(void* ctx, uint32_t node, int64_t bits);
  // list_append GlueFunction::nodes[node], as its callback would run it,
  // kills included; not 0, having done nothing, where the runtime does it
  // another way (the glue then calls the node back).
  int32_t (*listAppend)(void* ctx, uint32_t node);
  // unpack GlueFunction::nodes[node] (no starred target) of a tuple or list
  // of its length into its result slots, kills included; not 0, having
  // done nothing, for anything else (the glue then calls the node back).
  int32_t (*unpack)(void* ctx, uint32_t node);
  // len(x) of call GlueFunction::nodes[node] into *out, kills included;
  // not 0, having done nothing, where x has no length (the glue then calls
  // the node back, which raises).
  int32_t (*length)(void* ctx, uint32_t node, int64_t* out);
  // getitem GlueFunction::nodes[node] of a list's or tuple's item at an int
  // index in range, or of a dict's value at a str key it holds, into its
  // result slot, kills included; not 0, having done nothing, for anything
  // else (the glue then calls the node back).
  int32_t (*getItem)(void* ctx, uint32_t node);
  // `in` or `not in` GlueFunction::nodes[node] of a str in a dict or str
  // into *out (0 or 1), kills included; not 0, having done nothing, for
  // anything else (the glue then calls the node back).
  int32_t (*contains)(void* ctx, uint32_t node, int64_t* out);
  // setitem GlueFunction::nodes[node] of a list's item or a dict's value
  // at a key it holds, to a value that closes no cycle, kills included;
  // not 0, having done nothing, for anything else (the glue then calls the
  // node back).
  int32_t (*setItem)(void* ctx, uint32_t node);
};

// What the glue reads at the end of every iteration, inline: each points
// at one byte, 0 or 1 (the interpreter's interrupt flag, which other
// threads set, read as a relaxed atomic; and whether a step budget is in
// force, which changes only between runs). When either is 1 the glue calls
// `tick`, which checks and counts the iteration as the interpreter would.
struct GlueFlags {
  const void* interrupt;
  const void* stepBudget;
};

using GlueFn = int32_t (*)(void* ctx, const GlueApi* api, const GlueFlags* flags);

struct GlueFunction {
  GlueFn fn = nullptr;
  std::vector<const ir::Node*> nodes;  // what GlueApi's node numbers name
  double compileMillis = 0;
};

// A compiled function of numbers as native code
// (native_function_codegen.cpp): a version whose parameters (at most
// kMaxNativeArgs), values and result are all ints, floats and bools, whose
// nodes are the glue's scalar arithmetic, ifs and loops, and whose calls
// are calls of itself with its own parameter types (the same version: a
// recursive function's calls are native calls). `args` holds the
// parameters' bits, as GlueApi::storeGlobal's (an int, a bool as 0 or 1, a
// double's bits); the result goes to `*result` the same way.
//
// The function is pure, so the runtime can always run it again as the
// interpreter would: the code returns 1 ("run it interpreted") instead of
// raising — where an op would raise (an int overflow, a division by zero),
// where a branch raises, where a call would go deeper than `depth` more
// levels, and where the interrupt flag (GlueFlags::interrupt) is set at a
// call or a loop iteration; the interpreted run then raises the error, or
// stops, with its location and trace. A step budget counts every call,
// which the native code does not: the runtime runs it only without one.
using NativeFn = int32_t (*)(const int64_t* args, int64_t* result, int64_t depth, const void* interrupt);
constexpr size_t kMaxNativeArgs = 16;

struct NativeFunction {
  NativeFn fn = nullptr;
  double compileMillis = 0;
};

// Whether `version` (a compiled, strictly typed function) is one the JIT
// makes native code for (NativeFunction): a cheap test, without LLVM.
bool compilesAsNative(const ir::Function& version);

struct EngineStats {
  uint64_t kernels = 0;   // compiled here, LLVM's optimisation and code generation
  uint64_t cached = 0;    // loaded from the persistent cache
  uint64_t shared = 0;    // the code of an identical kernel already loaded
  uint64_t loops = 0;     // loops whose glue runs as native code
  uint64_t functions = 0;  // functions that run as native code (NativeFunction)
  double compileMillis = 0;  // all of them
};

struct EngineOptions {
  // Compile each fused node at its first run and each loop at its first
  // iteration instead of once they are hot (Engine::hot): --jit always,
  // which the tests use so that every script runs compiled code.
  bool compileAtFirstRun = false;
  // Why fused node n is not compiled (--explain-jit).
  std::function<void(const ir::Node& n, const std::string& why)> notCompiled;
  // The optimised LLVM IR of n's new kernel (--emit=llvm).
  std::function<void(const ir::Node& n, const std::string& llvm)> compiled;
  // The persistent cache's directory (object_cache.h); "" for none.
  std::string cacheDir;
  uint64_t cacheMaxBytes = 64ull << 20;
};

// The persistent cache's default directory: $XDG_CACHE_HOME/nn, else
// $HOME/.cache/nn; "" when neither is set.
std::string defaultCacheDir();

class Engine {
 public:
  // An engine for the host CPU. LLVM is set up at the first compile; if
  // that fails, every kernel is refused with the reason.
  static std::unique_ptr<Engine> create(EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Tiering. LLVM takes milliseconds to make one kernel or loop (about
  // 5 ms for a small fused loop on these machines, more than half of it
  // code generation), while a run of a small kernel saves a fraction of a
  // microsecond over running its ops one by one and a loop iteration about
  // as much: a program that runs a node a few times would spend most of
  // its time compiling. So a fused node is compiled once it has run
  // kHotRuns times or made kHotElements result elements (all its runs
  // together: a large tensor pays for its kernel at once), and a loop once
  // it has run kHotRuns iterations; until then they run on the executor.
  // The results are the same either way (bit for bit).
  static constexpr uint64_t kHotRuns = 1000;
  static constexpr uint64_t kHotElements = 1000000;
  bool hot(uint64_t runs, uint64_t elements) const;

  // The native kernel of fused node `n`, or null (the options' notCompiled
  // is told why: the first op or operand it cannot compile). Thread-safe.
  // With `layouts`, for operands laid out as it says (views read by rows
  // with any column step: a 2-d transpose, a stepped slice); a kernel per
  // layout. With `chargedTo`, the kernel's compile time counts as that
  // node's (compileMillis): an untyped fused node's, for the typed version
  // of it that n is (runtime/fused_dynamic.cpp).
  std::shared_ptr<const FusedKernel> compileFused(const ir::Node& n, const OperandLayouts* layouts = nullptr,
                                                  const ir::Node* chargedTo = nullptr);
  // The optimised LLVM IR that n's kernel is (or would be) compiled from,
  // without compiling or loading it; "" with `why` when n is refused
  // (REPL :llvm).
  std::string optimisedIr(const ir::Node& n, std::string& why);
  // The native glue of loop node `n` (its control flow and scalar
  // arithmetic; other nodes called back), or null (notCompiled says why).
  // Thread-safe.
  std::shared_ptr<const GlueFunction> compileLoop(const ir::Node& n);
  // The native code of compiled function `version` (compilesAsNative
  // says yes), or null (notCompiled, told at the function's return, says
  // why: an LLVM failure). Thread-safe.
  std::shared_ptr<const NativeFunction> compileFunction(const ir::Function& version);
  // Tells the options' notCompiled why node n is left to the executor for
  // a reason outside the JIT (a loop whose blocks run in parallel).
  void notCompiled(const ir::Node& n, const std::string& why) const;
  EngineStats stats() const;
  // The milliseconds spent making fused node n's kernel (0 when it was
  // not compiled): --stats reports them per compiled version.
  double compileMillis(const ir::Node& n) const;

 private:
  struct Impl;
  std::shared_ptr<const FusedKernel> compile(const ir::Node& n, std::string& why,
                                             const OperandLayouts* layouts = nullptr, const ir::Node* chargedTo = nullptr);
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nn::rt::jit
