// Tensor runtime benchmarks (Google Benchmark):
//   * per-op dispatch overhead of a 1-element add, through the runtime's
//     binary-op entry and through the interpreter running `z = x + y`;
//   * the elementwise chain relu(a*b+c)*d-a on 1M floats;
//   * layer_norm and its gradient kernel over 784x512 floats;
//   * fp32 matmul 1024^3 through nn and through oneDNN alone (GFLOP/s).
// Run: build/bench/nn_bench  (bench/torch_baseline.py measures PyTorch).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <sstream>

#include "runtime/nn_ops.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/state.h"

namespace {

using namespace nn::rt;
using nn::ir::Op;

// The device the benchmarks' tensors live on (a state would own it).
CpuDevice& device() {
  static CpuDevice cpu;
  return cpu;
}

Value filled(const Shape& s, double v) { return makeTensorValue(fullLike(DType::F32, s, v, device())); }

void BM_DispatchAdd1(benchmark::State& st) {
  Value a = filled({1}, 1.0), b = filled({1}, 2.0);
  for (auto _ : st) benchmark::DoNotOptimize(binaryOp(Op::Add, a, b, {}));
}
BENCHMARK(BM_DispatchAdd1);

// Interpreter cost per `z = x + y` on 1-element tensors: a loop of N adds
// minus the same loop without the add, divided by N.
void BM_ScriptAdd1(benchmark::State& st) {
  const int n = 100000;
  std::ostringstream out, err;
  nn::StateOptions opts;
  opts.mode = nn::ExecMode::Eager;
  nn::State state(opts, out, err);
  std::string setup = "x = tensor([1.0])\ny = tensor([2.0])\n";
  std::string withAdd = "def run(n, x, y):\n    for i in range(n):\n        z = x + y\n    return 0\n";
  std::string without = "def idle(n, x, y):\n    for i in range(n):\n        z = x\n    return 0\n";
  state.replInput(setup + withAdd + "\n" + without + "\n");
  if (!err.str().empty()) st.SkipWithError(err.str().c_str());
  for (auto _ : st) {
    auto t0 = std::chrono::steady_clock::now();
    state.replInput("run(" + std::to_string(n) + ", x, y)\n");
    auto t1 = std::chrono::steady_clock::now();
    state.replInput("idle(" + std::to_string(n) + ", x, y)\n");
    auto t2 = std::chrono::steady_clock::now();
    double per = (std::chrono::duration<double>(t1 - t0).count() - std::chrono::duration<double>(t2 - t1).count()) / n;
    st.SetIterationTime(per);
  }
}
BENCHMARK(BM_ScriptAdd1)->UseManualTime()->Iterations(5);

// The chain through the runtime API, each temporary given up at its last
// use as the interpreter does (so the next op may write into it).
void BM_Chain1M(benchmark::State& st) {
  Shape s{1 << 20};
  Value a = filled(s, 0.5), b = filled(s, -1.5), c = filled(s, 2.0), d = filled(s, 3.0);
  for (auto _ : st) {
    Value t = binaryOp(Op::Mul, a, b, {});
    t = binaryOp(Op::Add, t, c, {}, kConsumeFirst);
    t = mathUnary(Op::Relu, t, {}, kConsumeFirst);
    t = binaryOp(Op::Mul, t, d, {}, kConsumeFirst);
    t = binaryOp(Op::Sub, t, a, {}, kConsumeFirst);
    benchmark::DoNotOptimize(t);
  }
  st.SetBytesProcessed(st.iterations() * int64_t(s[0]) * 4 * 10);
}
BENCHMARK(BM_Chain1M)->Unit(benchmark::kMillisecond);

// The same chain as one line of an nn script in eager mode, per evaluation.
void BM_ScriptChain1M(benchmark::State& st) {
  const int n = 200;
  std::ostringstream out, err;
  nn::StateOptions opts;
  opts.mode = nn::ExecMode::Eager;
  nn::State state(opts, out, err);
  state.replInput(
      "n = 1048576\na = full([n], 0.5)\nb = full([n], -1.5)\nc = full([n], 2.0)\nd = full([n], 3.0)\n"
      "def run(k, a, b, c, d):\n    for i in range(k):\n        r = relu(a * b + c) * d - a\n    return r\n\n");
  if (!err.str().empty()) st.SkipWithError(err.str().c_str());
  for (auto _ : st) {
    auto t0 = std::chrono::steady_clock::now();
    state.replInput("r = run(" + std::to_string(n) + ", a, b, c, d)\n");
    auto t1 = std::chrono::steady_clock::now();
    st.SetIterationTime(std::chrono::duration<double>(t1 - t0).count() / n);
  }
  if (!err.str().empty()) st.SkipWithError(err.str().c_str());
}
BENCHMARK(BM_ScriptChain1M)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

// One elementwise op on 1M floats, to compare per-kernel throughput.
void BM_Mul1M(benchmark::State& st) {
  Value a = filled({1 << 20}, 0.5), b = filled({1 << 20}, -1.5);
  for (auto _ : st) benchmark::DoNotOptimize(binaryOp(Op::Mul, a, b, {}));
  st.SetBytesProcessed(st.iterations() * (int64_t(1) << 20) * 12);
}
BENCHMARK(BM_Mul1M)->Unit(benchmark::kMicrosecond);

// layer_norm over the rows of 784x512 floats, and its gradient kernel
// (the op the gradient of layer_norm runs for its input).
Tensor waves(Shape shape, double phase) {
  Tensor t = Tensor::empty(DType::F32, shape, device());
  float* d = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) d[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i) + phase));
  return t;
}

void BM_LayerNorm(benchmark::State& st) {
  Tensor x = waves({784, 512}, 0.0);
  for (auto _ : st) benchmark::DoNotOptimize(layerNorm(x, nullptr, nullptr, 1e-5, {}));
}
BENCHMARK(BM_LayerNorm)->Unit(benchmark::kMicrosecond);

void BM_LayerNormGrad(benchmark::State& st) {
  Tensor x = waves({784, 512}, 0.0), g = waves({784, 512}, 1.0), w = waves({512}, 2.0);
  for (auto _ : st) benchmark::DoNotOptimize(layerNormGrad(g, x, st.range(0) ? &w : nullptr, 1e-5, {}));
}
BENCHMARK(BM_LayerNormGrad)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_MatmulNn1024(benchmark::State& st) {
  Tensor a = fullLike(DType::F32, {1024, 1024}, 0.5, device()), b = fullLike(DType::F32, {1024, 1024}, 0.25, device());
  for (auto _ : st) benchmark::DoNotOptimize(matmul(a, b, {}));
  st.counters["GFLOP/s"] = benchmark::Counter(2.0 * 1024 * 1024 * 1024 * st.iterations(), benchmark::Counter::kIsRate,
                                              benchmark::Counter::kIs1000);
}
BENCHMARK(BM_MatmulNn1024)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_MatmulOneDnnAlone1024(benchmark::State& st) {
  Tensor a = fullLike(DType::F32, {1024, 1024}, 0.5, device()), b = fullLike(DType::F32, {1024, 1024}, 0.25, device());
  Tensor out = Tensor::empty(DType::F32, {1024, 1024}, device());
  for (auto _ : st) onednnMatmul(a, b, out);
  st.counters["GFLOP/s"] = benchmark::Counter(2.0 * 1024 * 1024 * 1024 * st.iterations(), benchmark::Counter::kIsRate,
                                              benchmark::Counter::kIs1000);
}
BENCHMARK(BM_MatmulOneDnnAlone1024)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
