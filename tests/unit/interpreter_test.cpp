// Interpreter tests through the State API that the driver and REPL use:
// Python semantics of values, error locations and call traces, and state
// that survives errors.
#include <gtest/gtest.h>

#include <sstream>

#include "runtime/format.h"
#include "runtime/tensor.h"
#include "stdlib/check_eager.h"
#include "stdlib/state.h"
#include "support/float_repr.h"
#include "run_in_state.h"
#include "test_device.h"

namespace {

using nn::test::RunResult;

RunResult run(const std::string& code) { return nn::test::runInState(code, nn::ExecMode::Eager); }

TEST(FloatRepr, MatchesPython) {
  EXPECT_EQ(nn::floatRepr(0.1), "0.1");
  EXPECT_EQ(nn::floatRepr(1.0), "1.0");
  EXPECT_EQ(nn::floatRepr(1e-5), "1e-05");
  EXPECT_EQ(nn::floatRepr(1e16), "1e+16");
  EXPECT_EQ(nn::floatRepr(1e15), "1000000000000000.0");
  EXPECT_EQ(nn::floatRepr(0.0001), "0.0001");
  EXPECT_EQ(nn::floatRepr(-0.0), "-0.0");
  EXPECT_EQ(nn::floatRepr(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(nn::floatRepr(1.5e300), "1.5e+300");
}

TEST(Format, SpecMiniLanguage) {
  using nn::rt::Value;
  auto f = [](Value v, const char* spec) { return nn::rt::formatValue(v, spec, {}); };
  EXPECT_EQ(f(Value::real(3.14159), ".3f"), "3.142");
  EXPECT_EQ(f(Value::integer(42), "05d"), "00042");
  EXPECT_EQ(f(Value::integer(-42), "05d"), "-0042");
  EXPECT_EQ(f(Value::integer(1234567), ","), "1,234,567");
  EXPECT_EQ(f(Value::str("ab"), "*^6"), "**ab**");
  EXPECT_EQ(f(Value::real(0.25), ".1%"), "25.0%");
  EXPECT_EQ(f(Value::integer(255), "#x"), "0xff");
  EXPECT_THROW(f(Value::str("x"), "d"), nn::NnError);
}

TEST(Interpreter, PythonIntegerSemantics) {
  RunResult r = run("print(-7 // 2, -7 % 2, 7 // -2, 7 % -2, 2 ** 62, 7 / 2)\n");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "-4 1 -4 -1 4611686018427387904 3.5\n");
}

TEST(Interpreter, IntegerOverflowIsAnError) {
  RunResult r = run("x = 2 ** 62\ny = x * 4\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("integer overflow"), std::string::npos);
  EXPECT_NE(r.err.find("t.nn:2:5"), std::string::npos) << r.err;
}

TEST(Interpreter, DivisionByZeroHasLocationAndTrace) {
  RunResult r = run("def f(a):\n    return a // 0\n\ndef g():\n    return f(3)\n\nprint(g())\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("error: integer division or modulo by zero"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--> t.nn:2:12"), std::string::npos) << r.err;
  size_t first = r.err.find("called from t.nn:5:12");
  size_t second = r.err.find("called from t.nn:7:7");
  EXPECT_NE(first, std::string::npos) << r.err;
  EXPECT_NE(second, std::string::npos) << r.err;
  EXPECT_LT(first, second);
}

TEST(Interpreter, IndexOutOfRange) {
  RunResult r = run("xs = [1, 2]\nprint(xs[5])\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("list index out of range"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("t.nn:2:7"), std::string::npos) << r.err;
}

TEST(Interpreter, UndefinedLocalAtRunTime) {
  RunResult r = run("def f(c):\n    if c:\n        y = 1\n    return y\nprint(f(True))\nprint(f(False))\n");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.out, "1\n");
  EXPECT_NE(r.err.find("name 'y' is not defined"), std::string::npos) << r.err;
}

TEST(Interpreter, RecursionLimitIsAnErrorNotACrash) {
  RunResult r = run("def f(n):\n    return f(n + 1)\nf(0)\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("maximum recursion depth exceeded"), std::string::npos);
}

// An update nothing can see warns at its site once, however often the site
// runs and in either mode; the same update of a list is silent.
TEST(Interpreter, ALostUpdateWarnsOncePerSite) {
  const char* code =
      "def zero_first(w):\n"
      "    w[0] = 0.0\n"
      "for i in range(3):\n"
      "    zero_first(ones(2))\n"
      "zero_first([1, 2])\n";
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    std::ostringstream out, err;
    nn::StateOptions opts;
    opts.mode = mode;
    nn::State state(opts, out, err);
    ASSERT_TRUE(state.runString(code, "t.nn").ok());
    std::string e = err.str();
    size_t first = e.find("warning: this updates a local copy");
    ASSERT_NE(first, std::string::npos) << e;
    EXPECT_EQ(e.find("warning", first + 1), std::string::npos) << e;
    EXPECT_NE(e.find("--> t.nn:2:5"), std::string::npos) << e;
    opts.warnLostUpdates = false;
    std::ostringstream quiet;
    nn::State silent(opts, out, quiet);
    ASSERT_TRUE(silent.runString(code, "t.nn").ok());
    EXPECT_EQ(quiet.str(), "");
  }
}

TEST(Interpreter, ReplStatePersistsAcrossErrors) {
  std::ostringstream out, err;
  nn::State state({}, out, err);
  EXPECT_TRUE(state.replInput("x = 41\n"));
  nn::Status failed = state.replInput("y = x / 0\n");
  EXPECT_TRUE(state.replInput("def inc(v):\n    return v + 1\n\n"));
  EXPECT_TRUE(state.replInput("inc(x)\n"));
  EXPECT_EQ(out.str(), "42\n");
  // The error comes back as a value; the state writes nothing itself.
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "division by zero");
  EXPECT_EQ(failed.error().file, "<stdin>");
  EXPECT_EQ(failed.error().line, 1u);
  EXPECT_EQ(failed.error().column, 5u);
  EXPECT_EQ(err.str(), "");
}

// Each boundary that runs user code turns any C++ exception into a located
// error: constant folding (the pass runs the op at compile time), the
// interpreter's node execution, and the compile cache's pipeline.
TEST(Interpreter, LibraryExceptionsBecomeLocatedErrors) {
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    std::ostringstream out, err;
    nn::StateOptions opts;
    opts.mode = mode;
    nn::State state(opts, out, err);
    // Folded at compile time in both modes: std::length_error inside the pass.
    nn::Status s = state.runString("print(len(\"ab\" * 4611686018427387904))\n", "t.nn");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "repeated string is too long");
    EXPECT_EQ(s.error().line, 1u);
    EXPECT_EQ(s.error().column, 11u);
    // At run time, inside a function (graph mode compiles it per call).
    s = state.runString("def f(n):\n    return [0] * n\nf(4611686018427387904)\n", "u.nn");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "out of memory");
    EXPECT_EQ(s.error().line, 2u);
    ASSERT_EQ(s.error().trace.size(), 1u);
    EXPECT_EQ(s.error().trace[0], "u.nn:3:1");
  }
}

TEST(Interpreter, ClosuresCaptureByValue) {
  RunResult r = run("def f():\n    k = 1\n    g = lambda: k\n    k = 2\n    return g()\nprint(f())\n");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "1\n");
}

}  // namespace

namespace {

// --check eager's comparison: exact for ints and shapes, within the
// dtype's tolerance for floats.
TEST(CheckEager, ValueDifferenceUsesDtypeTolerance) {
  using nn::rt::Value;
  auto f32 = [](std::vector<double> xs) {
    nn::rt::Tensor t = nn::rt::Tensor::empty(nn::rt::DType::F32, {static_cast<int64_t>(xs.size())}, nn::rt::testDevice());
    for (size_t i = 0; i < xs.size(); ++i) t.data<float>()[i] = static_cast<float>(xs[i]);
    return nn::rt::makeTensorValue(t);
  };
  EXPECT_EQ(nn::valueDifference(f32({1.0, 2.0}), f32({1.0, 2.0 + 1e-6})), "");
  EXPECT_EQ(nn::valueDifference(f32({1.0, 2.0}), f32({1.0, 2.001})), "element 1 differs");
  EXPECT_EQ(nn::valueDifference(f32({1.0}), f32({1.0, 2.0})), "types differ");
  EXPECT_EQ(nn::valueDifference(Value::integer(3), Value::integer(3)), "");
  EXPECT_EQ(nn::valueDifference(Value::integer(3), Value::integer(4)), "values differ");
  EXPECT_EQ(nn::valueDifference(Value::real(0.1 + 0.2), Value::real(0.3)), "");
  EXPECT_EQ(nn::valueDifference(Value::real(1.0), f32({1.0})), "one is a tensor and the other is not");
}

}  // namespace

// Graph mode frees each value after its last use and lets a node write
// into a dying operand exactly as eager mode does: the elementwise chain
// and a hand-written backprop step (bench/bench_graph.cpp) reach the same
// peak of tensor memory in both modes, with the same results.
TEST(Interpreter, GraphModeReusesDyingBuffersAsEagerModeDoes) {
  const char* chain =
      "def chain(a, b, c, d):\n"
      "    return relu(a * b + c) * d - a\n"
      "n = 1 << 16\n"
      "a = full([n], 0.5)\n"
      "r = chain(a, a + 1.0, a * 2.0, a - 3.0)\n"
      "print(float(r.sum()))\n";
  const char* step =
      "def step(x, y, w1, w2, lr):\n"
      "    h = x @ w1\n"
      "    a = relu(h)\n"
      "    p = softmax(a @ w2, axis=1)\n"
      "    g = (p - one_hot(y, 10)) / x.shape[0]\n"
      "    dh = (g @ w2.T) * (h > 0.0)\n"
      "    return w1 - lr * (x.T @ dh), w2 - lr * (a.T @ g)\n"
      "seed(0)\n"
      "x = randn(256, 64)\n"
      "y = randint(0, 10, [256])\n"
      "w1 = randn(64, 128)\n"
      "w2 = randn(128, 10)\n"
      "for i in range(3):\n"
      "    w1, w2 = step(x, y, w1, w2, 0.1)\n"
      "print(round(float(w1.sum()), 3), round(float(w2.sum()), 3))\n";
  // Eager, graph op by op (the same buffers), graph fused and compiled (a
  // fused kernel needs no buffers for its intermediates: never more), and
  // fused nodes run op by op over tiles (before they are hot, or refused by
  // the JIT): a few tiles' intermediates more, never a whole result.
  for (const char* code : {chain, step}) {
    std::string out[4];
    size_t peak[4];
    for (int m = 0; m < 4; ++m) {
      std::ostringstream o, err;
      nn::StateOptions opts;
      opts.mode = m == 0 ? nn::ExecMode::Eager : nn::ExecMode::Graph;
      opts.jit = opts.jitAtFirstRun = m == 2;
      opts.fusion = m >= 2;
      nn::State state(opts, o, err);
      nn::Status st = state.runString(code, "t.nn");
      ASSERT_TRUE(st.ok()) << st.error().message;
      out[m] = o.str();
      peak[m] = state.interpreter().context().cpu().allocator().peakBytes();
    }
    EXPECT_EQ(out[0], out[1]) << code;
    EXPECT_EQ(out[0], out[2]) << code;
    EXPECT_EQ(peak[0], peak[1]) << code;
    EXPECT_LE(peak[2], peak[0]) << code;
    EXPECT_EQ(out[0], out[3]) << code;
    EXPECT_LE(peak[3], peak[0] + 128 * 1024) << code;
  }
}

// Eager mode builds a tape's backward once per form of trace: a training
// loop's steps share one, a batch of another shape gets its own, and so
// does a step whose ops differ (a branch taken on the data); the numbers
// are graph mode's.
TEST(Interpreter, TapesShareTheBackwardOfOneFormOfTrace) {
  const char* code =
      "def loss(p, x):\n"
      "    h = relu(x @ p[0] + p[1])\n"
      "    if float(h.sum()) > 1000.0:\n"
      "        h = h * 0.5\n"
      "    return sum(h @ p[2])\n"
      "loss_grad = value_and_grad(loss)\n"
      "def train(p, x, n):\n"
      "    for i in range(n):\n"
      "        l, g = loss_grad(p, x)\n"
      "        p = [p[k] - 0.01 * g[k] for k in range(3)]\n"
      "    return p\n"
      "seed(0)\n"
      "p = [randn(8, 16) * 0.1, zeros([16]), randn(16, 2) * 0.1]\n"
      "p = train(p, randn(4, 8), 20)\n"
      "print(round(float(p[0].sum()), 5), round(float(p[2].sum()), 5))\n";
  std::ostringstream out, err;
  nn::StateOptions opts;
  opts.mode = nn::ExecMode::Eager;
  nn::State state(opts, out, err);
  nn::rt::BackwardCache& cache = state.interpreter().backwardCache();
  ASSERT_TRUE(state.runChunk(code, "t.nn").ok()) << err.str();
  EXPECT_EQ(cache.size(), 1u);
  ASSERT_TRUE(state.runChunk("p = train(p, randn(3, 8), 5)", "t2.nn").ok()) << err.str();
  EXPECT_EQ(cache.size(), 2u) << "a batch of 3 rows is another form";
  ASSERT_TRUE(state.runChunk("p = train(p, randn(3, 8) * 100.0, 2)", "t3.nn").ok()) << err.str();
  EXPECT_EQ(cache.size(), 3u) << "the branch's product is another op";
  // Graph mode (no tape: the autodiff pass) gives the same numbers.
  std::ostringstream graphOut, graphErr;
  opts.mode = nn::ExecMode::Graph;
  nn::State graph(opts, graphOut, graphErr);
  ASSERT_TRUE(graph.runString(code, "t.nn").ok()) << graphErr.str();
  EXPECT_EQ(out.str(), graphOut.str());
}

// `loss, g = grad_f(p, ...)` then `p[i] - lr * g[i]`: each gradient is read
// once, so it moves out of the list (passes/take_items.cpp) and the new
// parameter is computed in its buffer. Without that, the step would hold the
// gradients and the new parameters at once: twice the parameters' bytes.
TEST(Interpreter, ParameterUpdateWritesIntoTheDyingGradients) {
  const char* code =
      "def loss(p, x):\n"
      "    return sum(relu(x @ p[0] + p[1]) @ p[2])\n"
      "loss_grad = value_and_grad(loss)\n"
      "def step(p, x):\n"
      "    l, g = loss_grad(p, x)\n"
      "    return [p[i] - 0.01 * g[i] for i in range(3)]\n"
      "seed(0)\n"
      "p = [randn(256, 256), zeros([256]), randn(256, 4)]\n"
      "x = randn(2, 256)\n"
      "p = step(p, x)\n"
      "live = memory_stats()['live_bytes']\n"
      "reset_peak_memory_stats()\n"
      "p = step(p, x)\n"
      "print(memory_stats()['peak_bytes'] - live)\n"
      "print(round(float(p[0].sum()), 3), round(float(p[2].sum()), 3))\n";
  const int64_t paramBytes = (256 * 256 + 256 + 256 * 4) * 4;
  std::string results[2];
  for (int m = 0; m < 2; ++m) {
    std::ostringstream o, err;
    nn::StateOptions opts;
    opts.mode = m == 0 ? nn::ExecMode::Eager : nn::ExecMode::Graph;
    nn::State state(opts, o, err);
    nn::Status st = state.runString(code, "t.nn");
    ASSERT_TRUE(st.ok()) << st.error().message;
    std::istringstream lines(o.str());
    int64_t peak = 0;
    lines >> peak;
    EXPECT_GT(peak, paramBytes) << m;  // the gradients, at least
    EXPECT_LT(peak, paramBytes * 3 / 2) << m;
    std::getline(lines, results[m]);
    std::getline(lines, results[m]);
  }
  EXPECT_EQ(results[0], results[1]);
}
