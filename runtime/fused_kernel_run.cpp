// Runs a fused node through the native kernel the JIT compiled for it
// (runtime/jit/jit.h): checks that each run-time operand is what the kernel
// was compiled for (a number of the planned kind; a tensor of the planned
// dtype and shape, on the plan's device, contiguous unless it is a single
// value), takes a dying operand's buffer for the result where eager mode
// would (fast_ops.cpp's rule) or allocates it, and runs the kernel over it,
// split among the cores from kParallelThreshold elements up (by rows when
// the kernel reads broadcast rows); operands that are views (a transpose)
// run a kernel compiled for their strides. Anything else returns false, and the
// node runs op by op (fused_exec.cpp); so does a node that is not hot yet
// (jit::Engine::hot), whose kernel is not compiled yet, and a kernel that
// reports a fault (an integer division by zero: op by op, it raises). A
// kernel ending in a trailing reduction makes the 0-d result
// (runReduction) or one element per row (runRowReduction).
#include <omp.h>

#include <atomic>
#include <cstring>

#include "runtime/fast_ops.h"
#include "runtime/jit/jit.h"
#include "runtime/kernel_loops.h"

namespace nn::rt {

namespace {

// Runs kernel k over the rows (or elements) [0, total) into `out`, split
// among the cores when `parallel`; false when some element faulted
// (FusedFn): the operands are intact, and op by op the node raises.
bool runSplit(const jit::FusedKernel& k, void* const* in, void* out, int64_t total, bool parallel) {
  if (!parallel || total < 2) return k.fn(in, out, 0, total) == 0;
  std::atomic<bool> faulted{false};
#pragma omp parallel
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t lo = total * t / nt, hi = total * (t + 1) / nt;
    if (lo < hi && k.fn(in, out, lo, hi) != 0) faulted = true;
  }
  return !faulted;
}

// A kernel with a trailing reduction: the 0-d sum or mean, made as the CPU
// sum kernel makes it (kernels_cpu_reduce.cpp): the kernel sums each chunk
// of kSumChunk elements (sum_order.h), the chunks on all cores from
// kParallelThreshold elements up, and their sums are added in order; a max
// or min is the scan's answer of each thread's share, combined in share
// order as the scan goes (the first NaN stays, else a later answer
// replaces only a smaller (larger) one), which is the answer of one scan,
// as the CPU's kernel finds it (parallelExtremum). False when some element
// faulted (FusedFn).
bool runReduction(const jit::FusedKernel& k, void* const* in, const FastOp& op, Tensor& out) {
  int64_t n = k.count;
  double acc = 0;
  bool max = k.reduce == jit::FusedKernel::Reduce::Max;
  bool extremum = max || k.reduce == jit::FusedKernel::Reduce::Min;
  bool parallel = n >= kParallelThreshold;
  if (!extremum) {
    std::atomic<bool> faulted{false};
    acc = sumOfChunks(n, parallel, [&](int64_t begin, int64_t end) {
      double sum = 0;
      if (k.fn(in, &sum, begin, end) != 0) faulted = true;
      return sum;
    });
    if (faulted) return false;
  } else if (!parallel) {
    if (k.fn(in, &acc, 0, n) != 0) return false;
  } else {
    int most = omp_get_max_threads(), used = 1;
    std::vector<double> partial(static_cast<size_t>(most), 0.0);
    std::atomic<bool> faulted{false};
#pragma omp parallel num_threads(most)
    {
      int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      if (t == 0) used = static_cast<int>(nt);
      if (k.fn(in, &partial[static_cast<size_t>(t)], n * t / nt, n * (t + 1) / nt) != 0) faulted = true;
    }
    if (faulted) return false;
    acc = partial[0];
    for (int t = 1; t < used && acc == acc; ++t) {
      double v = partial[static_cast<size_t>(t)];
      if (v != v || (max ? v > acc : v < acc)) acc = v;
    }
  }
  double value = k.reduce == jit::FusedKernel::Reduce::Mean ? acc / static_cast<double>(n) : acc;
  out = Tensor::empty(op.out, {}, *op.device);
  if (op.out == DType::F32) *out.data<float>() = static_cast<float>(value);
  else *out.data<double>() = value;
  return true;
}

// A kernel with a trailing reduction over the last axis: one result per
// row, the rows shared among the cores as reduceAll shares its outputs
// (each row is folded whole by one thread, so any split gives the same
// values). A single row of a long sum is left to the op-by-op path, where
// the CPU kernel sums its chunks on all cores (the same bits as the fold
// on one thread).
bool runRowReduction(const jit::FusedKernel& k, void* const* in, const FastOp& op, Value* slots) {
  int64_t rows = k.count / k.cols;
  if (rows == 1 && k.cols >= kParallelThreshold && k.reduce != jit::FusedKernel::Reduce::Max &&
      k.reduce != jit::FusedKernel::Reduce::Min)
    return false;
  Tensor out = Tensor::empty(op.out, op.shape, *op.device);
  if (!runSplit(k, in, out.bytes(), rows, k.count >= kParallelThreshold)) return false;
  slots[op.fusedResults[0].slot] = makeTensorValue(std::move(out));
  return true;
}

// The kernel for the operands' layouts when some are views (read by rows
// with their own strides: a 2-d transpose, a stepped slice), compiled the
// first time the layout is met; null when those strides do not collapse
// into rows (a 3-d permutation): the node then runs op by op.
const jit::FusedKernel* viewKernel(const FastOp& op, const ir::Node& n, const Value* slots) {
  jit::OperandLayouts layouts;
  for (const FastOp::FusedOperand& o : op.fusedOperands) {
    const Value& v = slots[o.slot];
    const Tensor* x = v.is(Kind::Tensor) ? &tensorOf(v) : nullptr;
    layouts.emplace_back();
    if (x && !x->isContiguous()) layouts.back().assign(x->strides().begin(), x->strides().end());
  }
  std::lock_guard<std::mutex> lock(op.viewsMutex);
  auto [it, fresh] = op.views.try_emplace(layouts);
  if (fresh) it->second = op.jit->compileFused(n, &layouts, op.chargedTo);
  return it->second.get();
}

}  // namespace

bool runFusedKernel(const FastOp& op, const ir::Node& n, Value* slots, uint64_t dying) {
  if (!op.hot.load(std::memory_order_relaxed)) {
    uint64_t runs = op.runs.fetch_add(1, std::memory_order_relaxed) + 1;
    uint64_t elements = op.elements.fetch_add(op.elementsPerRun, std::memory_order_relaxed) + op.elementsPerRun;
    if (!op.jit->hot(runs, elements)) return false;
    op.hot.store(true, std::memory_order_relaxed);
  }
  std::call_once(op.fusedOnce, [&] { op.fused = op.jit->compileFused(n, nullptr, op.chargedTo); });
  const jit::FusedKernel* k = op.fused.get();
  if (!k) return false;
  size_t count = n.operands().size();
  bool views = false;
  // Pointers to the operands' elements, and the numbers' 8 bytes.
  void* inline_in[8];
  int64_t inline_numbers[8];
  std::vector<void*> heap_in;
  std::vector<int64_t> heap_numbers;
  void** in = inline_in;
  int64_t* numbers = inline_numbers;
  if (count > 8) {
    heap_in.resize(count);
    heap_numbers.resize(count);
    in = heap_in.data();
    numbers = heap_numbers.data();
  }
  for (size_t i = 0; i < count; ++i) {
    const FastOp::FusedOperand& planned = op.fusedOperands[i];
    const Value& v = slots[planned.slot];
    if (k->operands[i].access == jit::Access::Number) {
      if (planned.kind == ir::TypeKind::Float) {
        if (!v.is(Kind::Float)) return false;
        double d = v.asFloat();
        std::memcpy(&numbers[i], &d, sizeof d);
      } else {
        if (!(planned.kind == ir::TypeKind::Int ? v.is(Kind::Int) : v.is(Kind::Bool))) return false;
        numbers[i] = v.asInt();
      }
      in[i] = &numbers[i];
      continue;
    }
    if (!v.is(Kind::Tensor)) return false;
    const Tensor& x = tensorOf(v);
    if (x.dtype() != planned.dtype || &x.device() != op.device || x.shape() != planned.shape) return false;
    views = views || (k->operands[i].access != jit::Access::Single && !x.isContiguous());
    in[i] = x.bytes();
  }
  if (views && !(k = viewKernel(op, n, slots))) return false;
  if (k->perRow) return runRowReduction(*k, in, op, slots);
  if (k->reduce != jit::FusedKernel::Reduce::None) {
    Tensor sum;
    if (!runReduction(*k, in, op, sum)) return false;  // op by op: it raises
    slots[op.fusedResults[0].slot] = makeTensorValue(std::move(sum));
    return true;
  }
  int64_t numel = 1;
  for (int64_t d : op.shape) numel *= d;
  // A dying operand read element by element, of a result's dtype and held
  // nowhere else, takes that result; its Value moves to the result's slot.
  // (The kernel reads an element of every operand before it writes that
  // element of any result.)
  size_t results = op.fusedResults.size();
  if (results > jit::kMaxFusedResults) return false;
  int reuse[jit::kMaxFusedResults];
  void* outs[jit::kMaxFusedResults];
  // The new buffers: one result's inline (no array of tensors to clear on
  // every run of a small kernel), more results' in a vector.
  Tensor fresh;
  std::vector<Tensor> freshMore;
  if (results > 1) freshMore.resize(results);
  uint64_t taken = 0;
  for (size_t r = 0; r < results; ++r) {
    reuse[r] = -1;
    for (size_t i = 0; i < count && i < ir::Node::kMaxDyingOperands && reuse[r] < 0 && !k->canFail; ++i) {
      if (!((dying >> i) & 1) || ((taken >> i) & 1) || k->operands[i].access != jit::Access::Elementwise) continue;
      const Value& v = slots[op.fusedOperands[i].slot];
      const Tensor& x = tensorOf(v);
      if (x.dtype() == op.fusedResults[r].dtype && v.useCount() == 1 && x.ownsBufferAlone()) {
        reuse[r] = static_cast<int>(i);
        taken |= uint64_t{1} << i;
      }
    }
    Tensor& buffer = results > 1 ? freshMore[r] : fresh;
    if (reuse[r] < 0) buffer = Tensor::empty(op.fusedResults[r].dtype, op.shape, *op.device);
    outs[r] = reuse[r] < 0 ? buffer.bytes() : in[reuse[r]];
  }
  // One result: `out` is its elements; several: `out` lists them.
  void* o = results == 1 ? outs[0] : static_cast<void*>(outs);
  int64_t total = k->cols > 0 ? numel / k->cols : numel;
  if (!runSplit(*k, in, o, total, numel >= kParallelThreshold)) return false;
  for (size_t r = 0; r < results; ++r) {
    Value& slot = slots[op.fusedResults[r].slot];
    if (reuse[r] >= 0) slot = std::move(slots[op.fusedOperands[static_cast<size_t>(reuse[r])].slot]);
    else slot = makeTensorValue(std::move(results > 1 ? freshMore[r] : fresh));
  }
  return true;
}

}  // namespace nn::rt
