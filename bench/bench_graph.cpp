// Graph-mode benchmarks (issue: graph mode), each next to eager mode:
//   * per-op overhead on 1-element tensors: `x = x + y` in a loop (a chain
//     that no pass can remove), per op, loop overhead subtracted; the same
//     for an op with attributes, `x = x.sum(axis=0, keepdims=True)`;
//   * 1000 iterations of `x = x * 0.5 + 1.0` with an `if` on a tensor
//     condition, on a 16-element tensor, per iteration;
//   * two independent chains of 512^3 matmuls, parallel vs serial schedule;
//   * compile time of a 50-statement function, and its first-call latency.
// Run: build/bench/nn_bench_graph  (bench/torchscript_baseline.py measures
// TorchScript on the same loop).
#include <benchmark/benchmark.h>

#include <chrono>
#include <sstream>

#include "stdlib/state.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Session {
  explicit Session(nn::ExecMode mode, bool serial = false) {
    nn::StateOptions o;
    o.mode = mode;
    o.serialSchedule = serial;
    state = std::make_unique<nn::State>(o, out, err);
  }
  // Runs code in the session's main module (as REPL input, so later
  // inputs see earlier definitions; functions still run in `mode`).
  double run(const std::string& code) {
    auto t0 = Clock::now();
    nn::Status st = state->replInput(code);
    if (!st.ok()) throw std::runtime_error(st.error().message);
    return std::chrono::duration<double>(Clock::now() - t0).count();
  }
  std::ostringstream out, err;
  std::unique_ptr<nn::State> state;
};

const char* kDefs =
    "def chain(n, x, y):\n"
    "    for i in range(n):\n"
    "        x = x + y\n"
    "    return x\n"
    "def sums(n, x, y):\n"
    "    for i in range(n):\n"
    "        x = x.sum(axis=0, keepdims=True)\n"
    "    return x\n"
    "def idle(n, x, y):\n"
    "    for i in range(n):\n"
    "        x = y\n"
    "    return x\n"
    "def halve(n, x):\n"
    "    for i in range(n):\n"
    "        x = x * 0.5 + 1.0\n"
    "        if x.sum() > 100.0:\n"
    "            x = x - 1.0\n"
    "    return x\n"
    "def chains(a, b, n):\n"
    "    x = a\n"
    "    y = b\n"
    "    for i in range(n):\n"
    "        x = x @ a\n"
    "        y = y @ b\n"
    "    return x, y\n";

void perOp(benchmark::State& st, nn::ExecMode mode, const std::string& loop = "chain") {
  Session s(mode);
  s.run(std::string(kDefs) + "x = tensor([1.0])\ny = tensor([0.0])\nr = " + loop + "(10, x, y)\nr = idle(10, x, y)\n");
  const int n = 100000;
  for (auto _ : st) {
    double with = s.run("r = " + loop + "(" + std::to_string(n) + ", x, y)\n");
    double without = s.run("r = idle(" + std::to_string(n) + ", x, y)\n");
    st.SetIterationTime((with - without) / n);
  }
}
void BM_PerOpAdd1_Eager(benchmark::State& st) { perOp(st, nn::ExecMode::Eager); }
void BM_PerOpAdd1_Graph(benchmark::State& st) { perOp(st, nn::ExecMode::Graph); }
BENCHMARK(BM_PerOpAdd1_Eager)->UseManualTime()->Iterations(5)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_PerOpAdd1_Graph)->UseManualTime()->Iterations(5)->Unit(benchmark::kNanosecond);
void BM_PerOpSum1_Eager(benchmark::State& st) { perOp(st, nn::ExecMode::Eager, "sums"); }
void BM_PerOpSum1_Graph(benchmark::State& st) { perOp(st, nn::ExecMode::Graph, "sums"); }
BENCHMARK(BM_PerOpSum1_Eager)->UseManualTime()->Iterations(5)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_PerOpSum1_Graph)->UseManualTime()->Iterations(5)->Unit(benchmark::kNanosecond);

void halveLoop(benchmark::State& st, nn::ExecMode mode) {
  Session s(mode);
  s.run(std::string(kDefs) + "x16 = ones([16])\nr = halve(1000, x16)\n");
  for (auto _ : st) st.SetIterationTime(s.run("r = halve(1000, x16)\n") / 1000);
}
void BM_LoopIter16_Eager(benchmark::State& st) { halveLoop(st, nn::ExecMode::Eager); }
void BM_LoopIter16_Graph(benchmark::State& st) { halveLoop(st, nn::ExecMode::Graph); }
BENCHMARK(BM_LoopIter16_Eager)->UseManualTime()->Iterations(20)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_LoopIter16_Graph)->UseManualTime()->Iterations(20)->Unit(benchmark::kNanosecond);

void matmulChains(benchmark::State& st, bool serial) {
  Session s(nn::ExecMode::Graph, serial);
  s.run(std::string(kDefs) +
        "a = full([512, 512], 1.0 / 512.0)\nb = full([512, 512], 1.0 / 512.0)\nr = chains(a, b, 1)\n");
  for (auto _ : st) st.SetIterationTime(s.run("r = chains(a, b, 8)\n"));
}
void BM_MatmulChains512_Parallel(benchmark::State& st) { matmulChains(st, false); }
void BM_MatmulChains512_Serial(benchmark::State& st) { matmulChains(st, true); }
BENCHMARK(BM_MatmulChains512_Parallel)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatmulChains512_Serial)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);

// A function of 50 statements: compile time (specialisation and the pass
// pipeline at the first call, minus a second call's run time).
std::string fiftyStatements() {
  std::string f = "def big(x, y):\n";
  for (int i = 0; i < 50; ++i) {
    std::string prev = i == 0 ? "x" : "v" + std::to_string(i - 1);
    const char* ops[] = {" * 0.5 + y", " - y * 2.0", " + 1.0", " * y"};
    f += "    v" + std::to_string(i) + " = " + (i % 5 == 4 ? "relu(" + prev + ")" : prev + ops[i % 4]) + "\n";
  }
  return f + "    return v49\n";
}

void BM_Compile50_FirstCall(benchmark::State& st) {
  for (auto _ : st) {
    Session s(nn::ExecMode::Graph);
    s.run(fiftyStatements() + "x = ones([16])\ny = ones([16])\n");
    double first = s.run("r = big(x, y)\n");
    double second = s.run("r = big(x, y)\n");
    st.SetIterationTime(first);
    st.counters["compile_us"] = (first - second) * 1e6;
  }
}
BENCHMARK(BM_Compile50_FirstCall)->UseManualTime()->Iterations(10)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
