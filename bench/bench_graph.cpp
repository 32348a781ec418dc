// Graph-mode benchmarks (issue: graph mode), each next to eager mode:
//   * per-op overhead on 1-element tensors: `x = x + y` in a loop (a chain
//     that no pass can remove), per op, loop overhead subtracted; the same
//     for an op with attributes, `x = x.sum(axis=0, keepdims=True)`;
//   * 1000 iterations of `x = x * 0.5 + 1.0` with an `if` on a tensor
//     condition, on a 16-element tensor, per iteration;
//   * the elementwise chain relu(a*b+c)*d-a on 1M floats, per chain;
//   * one step of a 784-256-10 MLP trained by hand-written backprop
//     (forward, softmax/one_hot gradients, SGD update) on a batch of 64;
//   * one SGD step of a 784-512-256-10 MLP with autodiff (value_and_grad)
//     on a batch of 128, and of a two-conv-layer CNN on 32x1x28x28;
//   * an epoch of that MLP step over data.batches of 8192 shuffled rows
//     (64 batches), with and without the background prefetch, beside the
//     time the batches take to gather alone: how much of it is hidden;
//   * two independent chains of 512^3 matmuls, with the default (auto),
//     forced parallel and serial schedules;
//   * the cost of handing a task to the thread pool and hearing back (what
//     the executor weighs against the work it could overlap:
//     ThreadPool::handOffNanos, execution_plan.h);
//   * compile time of a 50-statement function, and its first-call latency.
// Graph mode must never be slower than eager mode on any of them.
// Run: build/bench/nn_bench_graph  (bench/torchscript_baseline.py measures
// TorchScript on the same loop, bench/torch_baseline.py PyTorch eager on
// the chain and the MLP step).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>
#include <sstream>

#include "runtime/thread_pool.h"
#include "stdlib/state.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Session {
  explicit Session(nn::ExecMode mode, nn::rt::Schedule schedule = nn::rt::Schedule::Auto) {
    nn::StateOptions o;
    o.mode = mode;
    o.schedule = schedule;
    o.searchPath = {NN_LIB_SOURCE_DIR};
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
    "def addloop(n, x, y):\n"
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
    "def chain(a, b, c, d):\n"
    "    return relu(a * b + c) * d - a\n"
    "def mlp_step(x, y, w1, b1, w2, b2, lr):\n"
    "    h = x @ w1 + b1\n"
    "    a = relu(h)\n"
    "    p = softmax(a @ w2 + b2, axis=1)\n"
    "    dlogits = (p - one_hot(y, 10)) / x.shape[0]\n"
    "    dw2 = a.T @ dlogits\n"
    "    db2 = dlogits.sum(axis=0)\n"
    "    dh = (dlogits @ w2.T) * (h > 0.0)\n"
    "    dw1 = x.T @ dh\n"
    "    db1 = dh.sum(axis=0)\n"
    "    return w1 - lr * dw1, b1 - lr * db1, w2 - lr * dw2, b2 - lr * db2\n"
    "def mlp3(p, x):\n"
    "    h = relu(x @ p[0] + p[1])\n"
    "    h = relu(h @ p[2] + p[3])\n"
    "    return h @ p[4] + p[5]\n"
    "def mlp3_loss(p, x, y):\n"
    "    return cross_entropy(mlp3(p, x), y)\n"
    "mlp3_grad = value_and_grad(mlp3_loss)\n"
    "def train_step(p, x, y):\n"
    "    loss, g = mlp3_grad(p, x, y)\n"
    "    return [p[i] - 0.01 * g[i] for i in range(6)]\n"
    "def cnn_loss(p, x, y):\n"
    "    h = max_pool2d(relu(conv2d(x, p[0], p[1], padding=1)), 2)\n"
    "    h = max_pool2d(relu(conv2d(h, p[2], p[3], padding=1)), 2)\n"
    "    return cross_entropy(h.reshape(32, 1568) @ p[4] + p[5], y)\n"
    "cnn_grad = value_and_grad(cnn_loss)\n"
    "def cnn_step(p, x, y):\n"
    "    loss, g = cnn_grad(p, x, y)\n"
    "    return [p[i] - 0.01 * g[i] for i in range(6)]\n"
    "def chains(a, b, n):\n"
    "    x = a\n"
    "    y = b\n"
    "    for i in range(n):\n"
    "        x = x @ a\n"
    "        y = y @ b\n"
    "    return x, y\n";

void perOp(benchmark::State& st, nn::ExecMode mode, const std::string& loop = "addloop") {
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

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// A workload run side by side in both modes: two sessions with the same
// setup, timed alternately (eager batch, graph batch) so that drift of this
// shared machine's speed hits both alike. The reported time is graph
// mode's per run; counters give both modes' medians and their ratio.
void sideBySide(benchmark::State& st, const std::string& setup, const std::string& batch, int runsPerBatch) {
  Session eager(nn::ExecMode::Eager), graph(nn::ExecMode::Graph);
  eager.run(std::string(kDefs) + setup);
  graph.run(std::string(kDefs) + setup);
  std::vector<double> e, g;
  for (auto _ : st) {
    e.push_back(eager.run(batch) / runsPerBatch);
    g.push_back(graph.run(batch) / runsPerBatch);
    st.SetIterationTime(g.back());
  }
  double me = median(e), mg = median(g);
  st.counters["eager_us"] = me * 1e6;
  st.counters["graph_us"] = mg * 1e6;
  st.counters["graph_over_eager"] = mg / me;
}

// relu(a*b+c)*d-a on 1M floats (the chain of the issue), per chain.
void BM_Chain1M_EagerVsGraph(benchmark::State& st) {
  sideBySide(st,
             "n = 1 << 20\na = full([n], 0.5)\nb = full([n], -1.5)\nc = full([n], 2.0)\nd = full([n], 3.0)\n"
             "r = chain(a, b, c, d)\n",
             "for i in range(20):\n    r = chain(a, b, c, d)\n", 20);
}
BENCHMARK(BM_Chain1M_EagerVsGraph)->UseManualTime()->Iterations(40)->Unit(benchmark::kMicrosecond);

// One SGD step of the MLP, per step.
void BM_MlpStep_EagerVsGraph(benchmark::State& st) {
  sideBySide(st,
             "seed(0)\nx = randn(64, 784)\ny = randint(0, 10, [64])\n"
             "w1 = randn(784, 256) * 0.05\nb1 = zeros(256)\nw2 = randn(256, 10) * 0.05\nb2 = zeros(10)\n"
             "w1, b1, w2, b2 = mlp_step(x, y, w1, b1, w2, b2, 0.1)\n",
             "for i in range(20):\n    w1, b1, w2, b2 = mlp_step(x, y, w1, b1, w2, b2, 0.1)\n", 20);
}
BENCHMARK(BM_MlpStep_EagerVsGraph)->UseManualTime()->Iterations(40)->Unit(benchmark::kMicrosecond);

// One SGD training step (forward, autodiff backward, update) of an MLP
// 784-512-256-10 on a batch of 128 (issue 10's workload; PyTorch's time in
// bench/torch_baseline.py), per step.
void BM_TrainStepMlp_EagerVsGraph(benchmark::State& st) {
  sideBySide(st,
             "seed(0)\nx = randn(128, 784)\ny = randint(0, 10, [128])\n"
             "p = [randn(784, 512) * 0.05, zeros(512), randn(512, 256) * 0.06, zeros(256), randn(256, 10) * 0.09, zeros(10)]\n"
             "p = train_step(p, x, y)\n",
             "for i in range(10):\n    p = train_step(p, x, y)\n", 10);
}
BENCHMARK(BM_TrainStepMlp_EagerVsGraph)->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);

// One SGD training step of a small CNN on 32x1x28x28: conv3x3(16, pad 1) +
// relu + maxpool2, conv3x3(32, pad 1) + relu + maxpool2, linear 1568->10,
// cross entropy (issue 10's workload; PyTorch's time in
// bench/torch_baseline.py), per step.
void BM_TrainStepCnn_EagerVsGraph(benchmark::State& st) {
  sideBySide(st,
             "seed(0)\nx = randn(32, 1, 28, 28)\ny = randint(0, 10, [32])\n"
             "p = [randn(16, 1, 3, 3) * 0.3, zeros(16), randn(32, 16, 3, 3) * 0.08, zeros(32),"
             " randn(1568, 10) * 0.03, zeros(10)]\n"
             "p = cnn_step(p, x, y)\n",
             "for i in range(5):\n    p = cnn_step(p, x, y)\n", 5);
}
BENCHMARK(BM_TrainStepCnn_EagerVsGraph)->UseManualTime()->Iterations(10)->Unit(benchmark::kMicrosecond);

// An epoch of the MLP training step over data.batches (8192 rows, batch
// 128, shuffled), graph mode, with the next batch gathered on a background
// thread (the reported time) and without, alternately; gather_ms is the
// epoch's batches gathered with no step. hidden = the share of the gather
// time the prefetch takes off the epoch.
void BM_EpochMlp_Prefetch(benchmark::State& st) {
  Session s(nn::ExecMode::Graph);
  s.run(std::string(kDefs) +
        "import data\nseed(0)\nxs = randn(8192, 784)\nys = randint(0, 10, [8192])\n"
        "p0 = [randn(784, 512) * 0.05, zeros(512), randn(512, 256) * 0.06, zeros(256), randn(256, 10) * 0.09, zeros(10)]\n"
        "def epoch(p, xs, ys, prefetch):\n"
        "    for xb, yb in data.batches(xs, ys, 128, seed=1, prefetch=prefetch):\n"
        "        p = train_step(p, xb, yb)\n"
        "    return p\n"
        "def gather_only(xs, ys):\n"
        "    n = 0\n"
        "    for xb, yb in data.batches(xs, ys, 128, seed=1, prefetch=False):\n"
        "        n = n + xb.shape[0] + yb.shape[0]\n"
        "    return n\n"
        "p = epoch(p0, xs, ys, True)\np = epoch(p0, xs, ys, False)\nn = gather_only(xs, ys)\n");
  std::vector<double> on, off, gather;
  for (auto _ : st) {
    on.push_back(s.run("p = epoch(p0, xs, ys, True)\n"));
    off.push_back(s.run("p = epoch(p0, xs, ys, False)\n"));
    gather.push_back(s.run("n = gather_only(xs, ys)\n"));
    st.SetIterationTime(on.back());
  }
  double mon = median(on), moff = median(off), mg = median(gather);
  st.counters["prefetch_ms"] = mon * 1e3;
  st.counters["no_prefetch_ms"] = moff * 1e3;
  st.counters["gather_ms"] = mg * 1e3;
  st.counters["hidden"] = (moff - mon) / mg;
}
BENCHMARK(BM_EpochMlp_Prefetch)->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);

// Submitting an empty task to the thread pool and waiting until it has
// run: the hand-off cost the executor's schedule decision assumes.
void BM_PoolHandOff(benchmark::State& st) {
  nn::rt::ThreadPool pool(2);
  std::mutex m;
  std::condition_variable done;
  for (auto _ : st) {
    bool ran = false;
    pool.submit([&] {
      std::lock_guard<std::mutex> lock(m);
      ran = true;
      done.notify_one();
    });
    std::unique_lock<std::mutex> lock(m);
    done.wait(lock, [&] { return ran; });
  }
  st.counters["calibrated_ns"] = pool.handOffNanos();
}
BENCHMARK(BM_PoolHandOff)->Unit(benchmark::kNanosecond);

void matmulChains(benchmark::State& st, nn::rt::Schedule schedule) {
  Session s(nn::ExecMode::Graph, schedule);
  s.run(std::string(kDefs) +
        "a = full([512, 512], 1.0 / 512.0)\nb = full([512, 512], 1.0 / 512.0)\nr = chains(a, b, 1)\n");
  for (auto _ : st) st.SetIterationTime(s.run("r = chains(a, b, 8)\n"));
}
void BM_MatmulChains512_Auto(benchmark::State& st) { matmulChains(st, nn::rt::Schedule::Auto); }
void BM_MatmulChains512_Parallel(benchmark::State& st) { matmulChains(st, nn::rt::Schedule::Parallel); }
void BM_MatmulChains512_Serial(benchmark::State& st) { matmulChains(st, nn::rt::Schedule::Serial); }
BENCHMARK(BM_MatmulChains512_Auto)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatmulChains512_Parallel)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatmulChains512_Serial)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);

// A function of 50 statements: compile time (specialisation and the pass
// pipeline at the first call, minus a second call's run time).
std::string fiftyStatements() {
  std::string f = "def big(x, y):\n";
  for (int i = 0; i < 50; ++i) {
    std::string prev = i == 0 ? std::string("x") : std::string("v").append(std::to_string(i - 1));
    const char* ops[] = {" * 0.5 + y", " - y * 2.0", " + 1.0", " * y"};
    f.append("    v").append(std::to_string(i)).append(" = ");
    if (i % 5 == 4) f.append("relu(").append(prev).append(")");
    else f.append(prev).append(ops[i % 4]);
    f.append("\n");
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
