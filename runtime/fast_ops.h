// Graph mode's pre-resolved ops: elementwise arithmetic, comparisons and
// math, full sum/mean, matmul and linear. In a compiled function the
// types of most tensor ops are known, so the work eager dispatch repeats
// on every execution — kind checks, promotion, the kernel lookup, turning
// a Python scalar operand into a broadcast tensor — is done once, when the
// block's plan is built. Executing the node is then: fetch the operand
// tensors, take a dying operand's buffer or allocate, call the kernel.
// Nodes whose run-time operands do not have the planned types fall back to
// the interpreter's generic path (the types are checked each time, cheaply).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "ir/ir.h"
#include "runtime/kernels.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

class Device;
namespace jit {
class Engine;
struct FusedKernel;
}
struct FusedSpecialisation;

struct FastOp {
  // The device the kernels below are of; operands elsewhere fall back.
  Device* device = nullptr;
  BinaryKernel binary = nullptr;
  UnaryKernel unary = nullptr;
  DType in = DType::F32, out = DType::F32;
  Shape shape;
  // A constant operand, already as a tensor of the result's shape.
  std::optional<Tensor> constant[2];
  // A full reduction (sum %x {axis = none, keepdims = false}): `shape`
  // is the operand's shape.
  std::optional<Reduction> reduction;
  const char* name = "";
  // a @ b on tensors of planned types (`shape` is a's, `shapeB` b's), or
  // linear(x, w, b) (`shape` x's, `shapeB` w's, `shapeBias` b's where the
  // node has a bias).
  bool matmul = false, linear = false, bias = false;
  Shape shapeB, shapeBias;
  // A fused node (`out` and `shape`: its first result's): the JIT compiles its
  // native kernel once the node is hot (jit::Engine::hot, counting `runs`
  // and result `elements`; until then it runs op by op, fused_exec.cpp);
  // null `fused` after that means it could not.
  jit::Engine* jit = nullptr;
  // Each operand's slot and static type, read once from the IR (a run
  // checks the values against them).
  struct FusedOperand {
    uint32_t slot = 0;
    ir::TypeKind kind = ir::TypeKind::Any;
    DType dtype = DType::F32;
    Shape shape;
  };
  std::vector<FusedOperand> fusedOperands;
  // Each result's slot and dtype (a multi-result node's results share
  // `shape`; `out` is the first's dtype).
  struct FusedResult {
    uint32_t slot = 0;
    DType dtype = DType::F32;
  };
  std::vector<FusedResult> fusedResults;
  mutable std::atomic<uint64_t> runs{0}, elements{0};
  int64_t elementsPerRun = 0;  // of the result, or of a trailing reduction's operand
  mutable std::atomic<bool> hot{false};
  mutable std::once_flag fusedOnce;
  mutable std::shared_ptr<const jit::FusedKernel> fused;
  // Kernels for operands that are views (a transpose, a stepped slice), by
  // the operands' strides (jit::OperandLayouts), made when first met.
  mutable std::mutex viewsMutex;
  mutable std::map<std::vector<std::vector<int64_t>>, std::shared_ptr<const jit::FusedKernel>> views;
  // The untyped fused node this node is a typed version of, whose compile
  // times these kernels count as (null: the node's own).
  const ir::Node* chargedTo = nullptr;
  // A fused node of untyped ops (its result's type is known only at run
  // time; `out`, `shape` and the operands' types are unused): its typed
  // versions, one per signature of run-time operands met, made when first
  // met (fused_dynamic.cpp), up to a bound (then `specialisedFull`).
  bool dynamic = false;
  mutable std::mutex specialisedMutex;
  mutable std::vector<std::shared_ptr<const FusedSpecialisation>> specialised;
  mutable bool specialisedFull = false;
};

// The pre-resolved form of `n` for tensors on `device` (where its
// constants are made), or null when it has none. `jit`: the engine of
// fused nodes, asked for only when `n` is one (null: they run op by op).
std::unique_ptr<FastOp> compileFastOp(const ir::Node& n, Device& device, const std::function<jit::Engine*()>& jit);

// Runs fused node `n` through its native kernel (fused_kernel_run.cpp),
// compiling it on the first call; false (doing nothing) when it has none
// or an operand does not have the planned type or layout. `dying` as for
// runFastOp.
bool runFusedKernel(const FastOp& op, const ir::Node& n, Value* slots, uint64_t dying);

// Runs untyped fused node `n` through the kernel of its typed version for
// the run-time operands (fused_dynamic.cpp); false (doing nothing) when
// there is none or it does not run. `dying` as for runFastOp.
bool runDynamicFused(const FastOp& op, const ir::Node& n, Value* slots, uint64_t dying);

// Runs `n` through `op` reading and writing the frame's slots; `dying` as
// for Interpreter::runNode. Returns false (doing nothing) when an operand
// does not have the planned type.
bool runFastOp(const FastOp& op, const ir::Node& n, Value* slots, uint64_t dying);

}  // namespace nn::rt
