// The C embedding API (include/nn/nn.h) as a host application uses it:
// running code, calling functions with tensors copied in and over the
// host's memory, reading results back, errors with locations, output to
// the host, memory and time limits, cancellation from another thread, and
// wrong arguments that must fail cleanly. Each case runs in both modes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "nn/nn.h"

namespace {

struct Output {
  std::string out, err;
};

void capture(void* context, int stream, const char* text, size_t length) {
  auto* c = static_cast<Output*>(context);
  (stream == 1 ? c->out : c->err).append(text, length);
}

class EmbedApi : public ::testing::TestWithParam<nn_mode> {
 protected:
  void SetUp() override {
    state = newState();
    ASSERT_NE(state, nullptr);
    nn_set_output(state, capture, &output);
  }
  void TearDown() override { nn_state_free(state); }

  nn_state* newState() {
    nn_options o;
    nn_options_init(&o);
    o.mode = GetParam();
    o.library_dir = NN_LIB_SOURCE_DIR;
    return nn_state_new(&o);
  }

  nn_status run(const char* code) { return nn_run_string(state, code, "host.nn"); }
  std::string lastMessage() const {
    const nn_error* e = nn_last_error(state);
    return e ? nn_error_message(e) : "";
  }

  nn_state* state = nullptr;
  Output output;
};

std::vector<float> floats(nn_value* t) {
  const auto* p = static_cast<const float*>(nn_tensor_data(t));
  return p ? std::vector<float>(p, p + nn_tensor_numel(t)) : std::vector<float>{};
}

TEST_P(EmbedApi, RunsCodeAndCallsItsFunctionsWithTensors) {
  ASSERT_EQ(run("def affine(x, w, b):\n    return x @ w + b\n"), NN_OK) << lastMessage();
  float x[] = {1, 2, 3, 4, 5, 6};  // 2x3, the host's own memory
  float w[] = {1, 0, 0, 1, 1, 1};  // 3x2
  int64_t xs[] = {2, 3}, ws[] = {3, 2};
  nn_value* args[3] = {nn_tensor_wrap(state, NN_F32, xs, 2, x, nullptr, nullptr),
                       nn_tensor_copy(state, NN_F32, ws, 2, w), nn_float(state, 0.5)};
  for (nn_value* a : args) ASSERT_NE(a, nullptr);
  nn_value* result = nullptr;
  ASSERT_EQ(nn_call_global(state, "affine", args, 3, &result), NN_OK) << lastMessage();
  ASSERT_EQ(nn_value_kind(result), NN_KIND_TENSOR);
  nn_dtype dtype;
  int ndim = 0;
  const int64_t* shape = nullptr;
  ASSERT_EQ(nn_tensor_info(result, &dtype, &ndim, &shape), NN_OK);
  EXPECT_EQ(dtype, NN_F32);
  ASSERT_EQ(ndim, 2);
  EXPECT_EQ(shape[0], 2);
  EXPECT_EQ(shape[1], 2);
  EXPECT_EQ(nn_tensor_nbytes(result), 4 * sizeof(float));
  EXPECT_EQ(floats(result), (std::vector<float>{4.5f, 5.5f, 10.5f, 11.5f}));
  nn_value_free(result);
  for (nn_value* a : args) nn_value_free(a);
}

TEST_P(EmbedApi, NamesStayDefinedFromOneRunToTheNext) {
  ASSERT_EQ(run("a = 2\ndef twice(v):\n    return 2 * v\n"), NN_OK) << lastMessage();
  ASSERT_EQ(run("b = twice(a) + 1\nprint(b)\n"), NN_OK) << lastMessage();
  EXPECT_EQ(output.out, "5\n");
  nn_value* b = nullptr;
  ASSERT_EQ(nn_get_global(state, "b", &b), NN_OK);
  int64_t v = 0;
  EXPECT_EQ(nn_get_int(b, &v), NN_OK);
  EXPECT_EQ(v, 5);
  nn_value_free(b);

  // The host defines globals too.
  nn_value* n = nn_int(state, 40);
  ASSERT_EQ(nn_set_global(state, "n", n), NN_OK);
  nn_value_free(n);
  ASSERT_EQ(run("print(n + a)\n"), NN_OK) << lastMessage();
  EXPECT_EQ(output.out, "5\n42\n");
}

TEST_P(EmbedApi, ScalarsStrsAndTuplesCrossBothWays) {
  ASSERT_EQ(run("def describe(i, f, s, flag, pair):\n"
                "    return (i + 1, f * 2, s + '!', not flag, pair[0] + pair[1], [i, i])\n"),
            NN_OK)
      << lastMessage();
  nn_value* a = nn_int(state, 41);
  nn_value* b = nn_float(state, 1.25);
  nn_value* c = nn_str(state, "hi", -1);
  nn_value* d = nn_bool(state, 1);
  nn_value* items[2] = {nn_int(state, 3), nn_int(state, 4)};
  nn_value* e = nn_tuple(state, items, 2);
  nn_value* args[5] = {a, b, c, d, e};
  nn_value* r = nullptr;
  ASSERT_EQ(nn_call_global(state, "describe", args, 5, &r), NN_OK) << lastMessage();
  ASSERT_EQ(nn_value_kind(r), NN_KIND_TUPLE);
  ASSERT_EQ(nn_sequence_size(r), 6u);
  nn_value* r0 = nn_sequence_item(r, 0);
  nn_value* r1 = nn_sequence_item(r, 1);
  nn_value* r2 = nn_sequence_item(r, 2);
  nn_value* r3 = nn_sequence_item(r, 3);
  nn_value* r4 = nn_sequence_item(r, 4);
  nn_value* r5 = nn_sequence_item(r, 5);
  EXPECT_EQ(nn_sequence_item(r, 6), nullptr);
  int64_t i = 0;
  double f = 0;
  int flag = 1;
  size_t length = 0;
  EXPECT_EQ(nn_get_int(r0, &i), NN_OK);
  EXPECT_EQ(i, 42);
  EXPECT_EQ(nn_get_float(r1, &f), NN_OK);
  EXPECT_EQ(f, 2.5);
  EXPECT_STREQ(nn_get_str(r2, &length), "hi!");
  EXPECT_EQ(length, 3u);
  EXPECT_EQ(nn_get_bool(r3, &flag), NN_OK);
  EXPECT_EQ(flag, 0);
  EXPECT_EQ(nn_get_int(r4, &i), NN_OK);
  EXPECT_EQ(i, 7);
  EXPECT_EQ(nn_value_kind(r5), NN_KIND_LIST);
  EXPECT_STREQ(nn_value_str(r), "(42, 2.5, 'hi!', False, 7, [41, 41])");
  // A value of the wrong kind is refused, not misread.
  EXPECT_EQ(nn_get_int(r2, &i), NN_INVALID_ARGUMENT);
  EXPECT_EQ(nn_get_str(r0, nullptr), nullptr);
  for (nn_value* v : {a, b, c, d, e, items[0], items[1], r, r0, r1, r2, r3, r4, r5}) nn_value_free(v);
}

TEST_P(EmbedApi, DictsAndKeywordArgumentsCrossBothWays) {
  ASSERT_EQ(run("def init(n, scale=1.0):\n    return {'w': ones(n) * scale, 'b': zeros(1)}\n"
                "def total(p):\n    return float(p['w'].sum() + p['b'].sum())\n"),
            NN_OK)
      << lastMessage();
  nn_value* init = nullptr;
  ASSERT_EQ(nn_get_global(state, "init", &init), NN_OK);
  nn_value* n = nn_int(state, 3);
  nn_value* scale = nn_float(state, 2.0);
  const char* names[] = {"scale"};
  nn_value* params = nullptr;
  ASSERT_EQ(nn_call_kw(state, init, &n, 1, names, &scale, 1, &params), NN_OK) << lastMessage();
  ASSERT_EQ(nn_value_kind(params), NN_KIND_DICT);
  ASSERT_EQ(nn_dict_size(params), 2u);
  EXPECT_STREQ(nn_dict_key(params, 0), "w");
  EXPECT_STREQ(nn_dict_key(params, 1), "b");
  EXPECT_EQ(nn_dict_key(params, 2), nullptr);
  nn_value* w = nn_dict_get(params, "w");
  EXPECT_EQ(floats(w), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(nn_dict_get(params, "nope"), nullptr);
  nn_value* b = nn_dict_value(params, 1);
  EXPECT_EQ(floats(b), (std::vector<float>{0}));

  // A dict the host builds goes in as one.
  float ten[] = {10};
  int64_t one[] = {1};
  nn_value* bias = nn_tensor_copy(state, NN_F32, one, 1, ten);
  const char* keys[] = {"w", "b"};
  nn_value* values[] = {w, bias};
  nn_value* built = nn_dict(state, keys, values, 2);
  nn_value* sum = nullptr;
  ASSERT_EQ(nn_call_global(state, "total", &built, 1, &sum), NN_OK) << lastMessage();
  double total = 0;
  EXPECT_EQ(nn_get_float(sum, &total), NN_OK);
  EXPECT_EQ(total, 16.0);

  const char* wrong[] = {"size"};
  EXPECT_EQ(nn_call_kw(state, init, &n, 1, wrong, &scale, 1, nullptr), NN_ERROR);
  EXPECT_STREQ(nn_error_type(nn_last_error(state)), "TypeError");
  EXPECT_NE(lastMessage().find("size"), std::string::npos) << lastMessage();
  for (nn_value* v : {init, n, scale, params, w, b, bias, built, sum}) nn_value_free(v);
}

TEST_P(EmbedApi, OutputAndWarningsGoToTheHost) {
  ASSERT_EQ(run("print('hello', 1.5)\ndef f():\n    for p in [zeros(2)]:\n        p -= 1.0\nf()\n"), NN_OK)
      << lastMessage();
  EXPECT_EQ(output.out, "hello 1.5\n");
  EXPECT_NE(output.err.find("warning"), std::string::npos) << output.err;
  EXPECT_NE(output.err.find("host.nn:4:9"), std::string::npos) << output.err;
}

TEST_P(EmbedApi, TheScriptsStreamsAreTheHostsStreams) {
  ASSERT_EQ(run("import sys\nprint('to err', file=sys.stderr)\nsys.stdout.write('out')\nsys.stderr.write('!')\n"),
            NN_OK)
      << lastMessage();
  EXPECT_EQ(output.out, "out");
  EXPECT_EQ(output.err, "to err\n!");
}

TEST_P(EmbedApi, AnErrorHasItsMessageClassAndLocationAndTheStateGoesOn) {
  ASSERT_EQ(run("def f(a, b):\n    return a @ b\n"), NN_OK);
  ASSERT_EQ(run("x = f(ones(2, 3), ones(4, 5))\n"), NN_ERROR);
  const nn_error* e = nn_last_error(state);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(nn_error_status(e), NN_ERROR);
  EXPECT_STREQ(nn_error_type(e), "ValueError");
  EXPECT_NE(std::string(nn_error_message(e)).find("matmul"), std::string::npos) << nn_error_message(e);
  EXPECT_STREQ(nn_error_file(e), "host.nn");
  EXPECT_EQ(nn_error_line(e), 2);
  EXPECT_EQ(nn_error_column(e), 12);
  EXPECT_EQ(nn_error_end_line(e), 2);
  EXPECT_EQ(nn_error_end_column(e), 17);  // "a @ b" is columns 12 to 16
  std::string text = nn_error_text(e);
  EXPECT_NE(text.find("--> host.nn:2:12"), std::string::npos) << text;
  EXPECT_NE(text.find("^"), std::string::npos) << text;
  EXPECT_NE(text.find("called from host.nn:1:5"), std::string::npos) << text;

  ASSERT_EQ(run("syntax error here(\n"), NN_ERROR);
  EXPECT_EQ(nn_error_line(nn_last_error(state)), 1);
  ASSERT_EQ(nn_run_file(state, "/no/such/file.nn"), NN_ERROR);
  EXPECT_NE(lastMessage().find("cannot open file"), std::string::npos) << lastMessage();

  nn_value* missing = nullptr;
  EXPECT_EQ(nn_get_global(state, "nowhere", &missing), NN_ERROR);
  EXPECT_EQ(missing, nullptr);
  EXPECT_STREQ(nn_error_type(nn_last_error(state)), "NameError");

  ASSERT_EQ(run("print(f(ones(1, 2), ones(2, 1)))\n"), NN_OK) << lastMessage();
  EXPECT_EQ(nn_last_error(state), nullptr);
  EXPECT_EQ(output.out, "[[2.]]\n");
}

TEST_P(EmbedApi, ExitEndsTheRunWithItsStatus) {
  ASSERT_EQ(run("print('before')\nexit(3)\nprint('after')\n"), NN_EXIT);
  EXPECT_EQ(nn_error_exit_status(nn_last_error(state)), 3);
  EXPECT_EQ(output.out, "before\n");
  EXPECT_EQ(run("print('still here')\n"), NN_OK);
}

int released = 0;
void countRelease(void* context) {
  ++released;
  *static_cast<bool*>(context) = true;
}

TEST_P(EmbedApi, WrappedMemoryIsReadInPlaceNeverWrittenAndHandedBack) {
  released = 0;
  bool done = false;
  float data[] = {1, 2, 3, 4};
  int64_t shape[] = {4};
  nn_value* x = nn_tensor_wrap(state, NN_F32, shape, 1, data, countRelease, &done);
  ASSERT_NE(x, nullptr);
  // The runtime writes a result over a dying operand's buffer when it
  // owns it alone: never over the host's.
  ASSERT_EQ(run("def bump(v):\n    v = v + 1.0\n    v = v * 2.0\n    return v\n"), NN_OK);
  ASSERT_EQ(nn_set_global(state, "x", x), NN_OK);
  nn_value_free(x);  // the global keeps it alive
  nn_value* y = nullptr;
  ASSERT_EQ(run("y = bump(x)\nx = x - 1.0\nx = exp(x)\n"), NN_OK) << lastMessage();
  EXPECT_EQ(data[0], 1.0f);
  EXPECT_EQ(data[3], 4.0f);
  ASSERT_EQ(nn_get_global(state, "y", &y), NN_OK);
  EXPECT_EQ(floats(y), (std::vector<float>{4, 6, 8, 10}));
  nn_value_free(y);
  // x was rebound: nothing holds the host's memory any more.
  EXPECT_TRUE(done);
  EXPECT_EQ(released, 1);

  // A function that returns its argument hands back the host's memory itself.
  ASSERT_EQ(run("def same(v):\n    return v\n"), NN_OK);
  done = false;
  nn_value* w = nn_tensor_wrap(state, NN_F32, shape, 1, data, countRelease, &done);
  nn_value* r = nullptr;
  ASSERT_EQ(nn_call_global(state, "same", &w, 1, &r), NN_OK) << lastMessage();
  EXPECT_EQ(nn_tensor_data(r), static_cast<const void*>(data));
  nn_value_free(w);
  EXPECT_FALSE(done);
  nn_value_free(r);
  EXPECT_TRUE(done);
  EXPECT_EQ(released, 2);
}

TEST_P(EmbedApi, ResultsAreReadInPlaceOrAsAContiguousCopy) {
  ASSERT_EQ(run("m = arange(6.0).reshape(2, 3)\nt = m.T\n"), NN_OK) << lastMessage();
  nn_value* t = nullptr;
  ASSERT_EQ(nn_get_global(state, "t", &t), NN_OK);
  EXPECT_EQ(floats(t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  nn_value_free(t);
  nn_value* m = nullptr;
  ASSERT_EQ(nn_get_global(state, "m", &m), NN_OK);
  EXPECT_EQ(floats(m), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_STREQ(nn_value_str(m), "[[0. 1. 2.]\n [3. 4. 5.]]");
  nn_value_free(m);
}

TEST_P(EmbedApi, TheMemoryLimitStopsTheOperationThatPassesIt) {
  ASSERT_EQ(nn_set_memory_limit(state, 1 << 20), NN_OK);
  ASSERT_EQ(run("small = ones(1000)\n"), NN_OK) << lastMessage();
  EXPECT_GE(nn_memory_used(state), 4000u);
  ASSERT_EQ(run("def grow(n):\n    return ones(n) * 2.0\nbig = grow(1000000)\n"), NN_OUT_OF_MEMORY);
  const nn_error* e = nn_last_error(state);
  EXPECT_STREQ(nn_error_type(e), "MemoryError");
  EXPECT_NE(std::string(nn_error_message(e)).find("memory limit of 1048576 bytes"), std::string::npos)
      << nn_error_message(e);
  EXPECT_EQ(nn_error_line(e), 2);
  // The state goes on, within its limit, and without it.
  ASSERT_EQ(run("print(float(small.sum()))\n"), NN_OK) << lastMessage();
  EXPECT_EQ(output.out, "1000.0\n");
  int64_t shape[] = {1 << 20};
  std::vector<float> host(1 << 20);
  EXPECT_EQ(nn_tensor_copy(state, NN_F32, shape, 1, host.data()), nullptr);
  EXPECT_EQ(nn_error_status(nn_last_error(state)), NN_OUT_OF_MEMORY);
  ASSERT_EQ(nn_set_memory_limit(state, 0), NN_OK);
  ASSERT_EQ(run("big = grow(1000000)\n"), NN_OK) << lastMessage();
}

// What a script builds in host memory counts too: a limit that a str or a
// list could pass would not protect the host from an untrusted script.
TEST_P(EmbedApi, StrsListsDictsAndTensorHandlesCountAgainstTheMemoryLimit) {
  size_t before = nn_memory_used(state);
  ASSERT_EQ(run("s = 'ab' * 500000\nxs = list(range(100000))\nd = {str(i): i for i in range(10000)}\n"), NN_OK)
      << lastMessage();
  size_t held = nn_memory_used(state);
  EXPECT_GE(held - before, 1000000u + 100000u * 16 + 10000u * 32);
  ASSERT_EQ(run("del s, xs, d\n"), NN_OK) << lastMessage();
  EXPECT_LT(nn_memory_used(state), before + 100000);

  ASSERT_EQ(nn_set_memory_limit(state, 16 << 20), NN_OK);
  struct Case {
    const char* code;
    int line;
  };
  const Case cases[] = {
      {"a = 1\ns = 'x' * 10**9\n", 2},                               // sized before it is built
      {"xs = list(range(10**8))\n", 1},                               //
      {"xs = []\nwhile True:\n    xs.append(len(xs))\n", 3},         // one item at a time
      {"d = {}\ni = 0\nwhile True:\n    d[str(i)] = i\n    i += 1\n", 4},
      {"xs = []\nwhile True:\n    xs += [0] * 1000\n", 3},
      {"big = 'y' * 1000000\nt = ''.join([big] * 100)\n", 2},       // one str held many times
      {"big = 'y' * 1000000\nt = str([big] * 100)\n", 2},
      {"t = 'y' * 10000\nt = t.replace('y', t)\n", 2},
      {"t = f'{1:>999999999}'\n", 1},
      {"rows = [r for r in zeros(10**6, 1)]\n", 1},                  // a handle per row view
      {"cs = list('z' * 10**7)\n", 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.code);
    size_t start = nn_memory_used(state);
    ASSERT_EQ(run(c.code), NN_OUT_OF_MEMORY) << lastMessage();
    const nn_error* e = nn_last_error(state);
    EXPECT_STREQ(nn_error_type(e), "MemoryError");
    EXPECT_NE(std::string(nn_error_message(e)).find("memory limit of 16777216 bytes"), std::string::npos)
        << nn_error_message(e);
    EXPECT_EQ(nn_error_line(e), c.line);
    // Nothing is left counted once what the run made is gone.
    ASSERT_EQ(run("xs = d = t = s = big = rows = cs = None\n"), NN_OK) << lastMessage();
    EXPECT_LT(nn_memory_used(state), start + 100000);
  }
  // A refused append leaves the list as it was.
  ASSERT_EQ(run("xs = [0] * 100\ntry:\n    xs += [1] * 10**7\nexcept MemoryError:\n    print(len(xs))\n"), NN_OK)
      << lastMessage();
  EXPECT_EQ(output.out, "100\n");
}

TEST_P(EmbedApi, TheTimeLimitStopsARunThatTheScriptCannotCatch) {
  ASSERT_EQ(nn_set_time_limit(state, 0.2), NN_OK);
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(run("def spin():\n    i = 0\n    while True:\n        i = i + 1\n    return i\nspin()\n"),
            NN_TIME_LIMIT);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_STREQ(nn_error_type(nn_last_error(state)), "KeyboardInterrupt");
  EXPECT_EQ(nn_error_status(nn_last_error(state)), NN_TIME_LIMIT);
  // Catching it does not keep the script running.
  ASSERT_EQ(run("try:\n    spin()\nexcept BaseException:\n    print('caught')\nwhile True:\n    pass\n"),
            NN_TIME_LIMIT);
  // A recursion that graph mode runs as native code once it is hot (the
  // code reads the stop at every call, and the interpreted run raises it).
  start = std::chrono::steady_clock::now();
  ASSERT_EQ(run("def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nfib(90)\n"), NN_TIME_LIMIT);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_STREQ(nn_error_type(nn_last_error(state)), "KeyboardInterrupt");
  // Each run has the whole limit; a quick one finishes.
  ASSERT_EQ(run("print(1 + 1)\n"), NN_OK) << lastMessage();
  EXPECT_NE(output.out.find("2\n"), std::string::npos);
  ASSERT_EQ(nn_set_time_limit(state, 0), NN_OK);
  EXPECT_EQ(nn_set_time_limit(state, -1), NN_INVALID_ARGUMENT);
}

TEST_P(EmbedApi, TheStepLimitStopsARunAtTheSameStepEveryTime) {
  ASSERT_EQ(run("done = 0\ndef work():\n    global done\n    for i in range(1000000):\n        done = i\n"), NN_OK)
      << lastMessage();
  ASSERT_EQ(nn_set_step_limit(state, 5000), NN_OK);
  std::vector<int64_t> reached;
  for (int attempt = 0; attempt < 2; ++attempt) {
    ASSERT_EQ(nn_call_global(state, "work", nullptr, 0, nullptr), NN_STEP_LIMIT);
    const nn_error* e = nn_last_error(state);
    EXPECT_STREQ(nn_error_message(e), "step limit exceeded");
    EXPECT_STREQ(nn_error_type(e), "KeyboardInterrupt");
    EXPECT_EQ(nn_error_status(e), NN_STEP_LIMIT);
    nn_value* done = nullptr;
    ASSERT_EQ(nn_get_global(state, "done", &done), NN_OK);
    int64_t i = 0;
    ASSERT_EQ(nn_get_int(done, &i), NN_OK);
    nn_value_free(done);
    reached.push_back(i);
  }
  // Each run has the whole budget, and spends it the same way.
  EXPECT_GT(reached[0], 100);
  EXPECT_LT(reached[0], 5000);
  EXPECT_EQ(reached[0], reached[1]);
  // Catching the stop does not keep the script running.
  ASSERT_EQ(run("try:\n    work()\nexcept BaseException:\n    print('caught')\nwhile True:\n    pass\n"), NN_STEP_LIMIT);
  ASSERT_EQ(run("print(sum([i for i in range(100)]))\n"), NN_OK) << lastMessage();
  EXPECT_NE(output.out.find("4950\n"), std::string::npos);
  // A loop of scalar arithmetic only, which graph mode runs as native glue
  // that calls nothing back, counts its steps too.
  ASSERT_EQ(run("def total(n):\n    s = 0\n    for i in range(n):\n        s = s + i\n    return s\n"), NN_OK)
      << lastMessage();
  nn_value* n = nn_int(state, 1000000);
  nn_value* result = nullptr;
  EXPECT_EQ(nn_call_global(state, "total", &n, 1, &result), NN_STEP_LIMIT);
  // So does a recursion that graph mode would run as native code (it runs
  // interpreted under a step budget: each call is a step).
  ASSERT_EQ(run("def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"), NN_OK) << lastMessage();
  nn_value* deep = nn_int(state, 40);
  EXPECT_EQ(nn_call_global(state, "fib", &deep, 1, &result), NN_STEP_LIMIT);
  nn_value_free(deep);
  ASSERT_EQ(nn_set_step_limit(state, 0), NN_OK);
  ASSERT_EQ(nn_call_global(state, "work", nullptr, 0, nullptr), NN_OK) << lastMessage();
  ASSERT_EQ(nn_call_global(state, "total", &n, 1, &result), NN_OK) << lastMessage();
  int64_t sum = 0;
  ASSERT_EQ(nn_get_int(result, &sum), NN_OK);
  EXPECT_EQ(sum, 499999500000);
  nn_value_free(result);
  nn_value_free(n);
}

TEST_P(EmbedApi, AnotherThreadCancelsARun) {
  ASSERT_EQ(run("def spin(n):\n    x = zeros(4)\n    while True:\n        x = x * 0.5 + 1.0\n    return x\n"),
            NN_OK);
  std::atomic<int> status{-1};
  nn_value* arg = nn_int(state, 1);
  std::thread runner([&] { status = nn_call_global(state, "spin", &arg, 1, nullptr); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  while (status.load() == -1) {
    nn_cancel(state);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  runner.join();
  EXPECT_EQ(status.load(), NN_CANCELLED);
  EXPECT_NE(lastMessage().find("cancelled"), std::string::npos) << lastMessage();
  nn_value_free(arg);
  // Cancelling an idle state does nothing to the next run.
  nn_cancel(state);
  EXPECT_EQ(run("print('next')\n"), NN_OK);
}

TEST_P(EmbedApi, TheLibraryMatchesTheHeader) {
  EXPECT_EQ(nn_api_version(), NN_API_VERSION);
  EXPECT_STREQ(nn_version(), NN_VERSION);
}

TEST_P(EmbedApi, WrongArgumentsFailCleanly) {
  EXPECT_EQ(nn_run_string(nullptr, "x = 1", nullptr), NN_INVALID_ARGUMENT);
  EXPECT_EQ(nn_run_string(state, nullptr, nullptr), NN_INVALID_ARGUMENT);
  EXPECT_NE(lastMessage().find("no code"), std::string::npos);
  int64_t shape[] = {2, -1};
  float data[4] = {};
  EXPECT_EQ(nn_tensor_copy(state, NN_F32, shape, 2, data), nullptr);
  EXPECT_NE(lastMessage().find("dim 1 is negative"), std::string::npos) << lastMessage();
  // 7: no dtype, yet a value an nn_dtype can hold in C++ (a C host may pass any int).
  EXPECT_EQ(nn_tensor_copy(state, static_cast<nn_dtype>(7), shape, 1, data), nullptr);
  EXPECT_NE(lastMessage().find("unknown dtype"), std::string::npos) << lastMessage();
  int64_t two[] = {2};
  EXPECT_EQ(nn_tensor_wrap(state, NN_F32, two, 1, reinterpret_cast<char*>(data) + 1, nullptr, nullptr), nullptr);
  EXPECT_NE(lastMessage().find("aligned"), std::string::npos) << lastMessage();
  nn_value* result = nullptr;
  nn_value* notAFunction = nn_int(state, 3);
  EXPECT_EQ(nn_call(state, notAFunction, nullptr, 0, &result), NN_ERROR);
  EXPECT_STREQ(nn_error_type(nn_last_error(state)), "TypeError");
  EXPECT_EQ(nn_call(state, nullptr, nullptr, 0, &result), NN_INVALID_ARGUMENT);
  nn_value_free(notAFunction);

  nn_state* other = newState();
  nn_value* foreign = nn_float(other, 1.0);
  EXPECT_EQ(nn_set_global(state, "f", foreign), NN_INVALID_ARGUMENT);
  EXPECT_NE(lastMessage().find("another state"), std::string::npos) << lastMessage();
  nn_value_free(foreign);
  nn_state_free(other);

  nn_options bad;
  nn_options_init(&bad);
  bad.cpu_devices = 0;
  EXPECT_EQ(nn_state_new(&bad), nullptr);
  EXPECT_EQ(nn_tensor_data(nullptr), nullptr);
  EXPECT_EQ(nn_last_error(nullptr), nullptr);
  nn_value_free(nullptr);
  nn_state_free(nullptr);
}

TEST_P(EmbedApi, ValuesMayOutliveTheirState) {
  nn_state* s = newState();
  ASSERT_EQ(nn_run_string(s, "t = arange(4.0) * 2.0\n", nullptr), NN_OK);
  nn_value* t = nullptr;
  ASSERT_EQ(nn_get_global(s, "t", &t), NN_OK);
  nn_state_free(s);
  EXPECT_EQ(floats(t), (std::vector<float>{0, 2, 4, 6}));
  nn_value_free(t);
}

TEST_P(EmbedApi, TwoStatesRunInTwoThreadsAtOnce) {
  nn_state* states[2] = {newState(), newState()};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      nn_state* s = states[k];
      nn_set_output(s, [](void*, int, const char*, size_t) {}, nullptr);
      std::string code = "seed(" + std::to_string(k) + ")\ndef step(w):\n    return w - 0.1 * (w @ w.T) @ w\n";
      if (nn_run_string(s, code.c_str(), nullptr) != NN_OK) ++failures;
      int64_t shape[] = {8, 8};
      std::vector<float> w(64, 0.01f * static_cast<float>(k + 1));
      nn_value* v = nn_tensor_copy(s, NN_F32, shape, 2, w.data());
      for (int i = 0; i < 50; ++i) {
        nn_value* next = nullptr;
        if (nn_call_global(s, "step", &v, 1, &next) != NN_OK) ++failures;
        nn_value_free(v);
        v = next;
      }
      const float* p = static_cast<const float*>(nn_tensor_data(v));
      if (!p || !(p[0] > 0.0f)) ++failures;
      nn_value_free(v);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (nn_state* s : states) nn_state_free(s);
}

struct HostLog {
  std::vector<std::string> calls;
};

nn_status hostLog(void* context, nn_state*, nn_value* const* args, size_t nargs, nn_value** result) {
  auto* log = static_cast<HostLog*>(context);
  const char* text = nargs == 1 ? nn_get_str(args[0], nullptr) : nullptr;
  log->calls.push_back(text ? text : "?");
  *result = nullptr;
  return NN_OK;
}

// scale(x, k): a new f32 tensor, x * k, made by the host.
nn_status hostScale(void*, nn_state* state, nn_value* const* args, size_t nargs, nn_value** result) {
  nn_dtype dtype;
  int ndim = 0;
  const int64_t* shape = nullptr;
  double k = 0;
  if (nargs != 2 || nn_tensor_info(args[0], &dtype, &ndim, &shape) != NN_OK || dtype != NN_F32 ||
      nn_get_float(args[1], &k) != NN_OK) {
    nn_raise(state, "TypeError", "scale() takes an f32 tensor and a number");
    return NN_ERROR;
  }
  const float* in = static_cast<const float*>(nn_tensor_data(args[0]));
  std::vector<float> out(in, in + nn_tensor_numel(args[0]));
  for (float& v : out) v *= static_cast<float>(k);
  *result = nn_tensor_copy(state, NN_F32, shape, ndim, out.data());
  return NN_OK;
}

nn_status hostFail(void*, nn_state* state, nn_value* const*, size_t, nn_value**) {
  nn_raise(state, "ValueError", "the host refuses");
  return NN_ERROR;
}

TEST_P(EmbedApi, HostFunctionsAreCalledInProgramOrderWithTheirResults) {
  HostLog log;
  ASSERT_EQ(nn_register_function(state, "host_log", hostLog, &log), NN_OK);
  ASSERT_EQ(nn_register_function(state, "scale", hostScale, nullptr), NN_OK);
  ASSERT_EQ(run("def f(x):\n"
                "    host_log('a')\n"
                "    y = scale(x, 2.0)\n"
                "    host_log('b')\n"
                "    host_log('b')\n"
                "    return y + 1.0\n"
                "print(f(arange(3.0)))\n"
                "print(f(ones(2)))\n"),
            NN_OK)
      << lastMessage();
  EXPECT_EQ(output.out, "[1. 3. 5.]\n[3. 3.]\n");
  EXPECT_EQ(log.calls, (std::vector<std::string>{"a", "b", "b", "a", "b", "b"}));
  // A host function may take a builtin's name: it comes first, in
  // compiled code too; a global of that name comes before it.
  ASSERT_EQ(nn_register_function(state, "abs", hostLog, &log), NN_OK);
  ASSERT_EQ(run("def g(v):\n    return abs('host')\nprint(g(-1.0))\n"), NN_OK) << lastMessage();
  EXPECT_EQ(log.calls.back(), "host");
  ASSERT_EQ(run("def host_log(v):\n    return 'script'\nprint(host_log('x'))\n"), NN_OK) << lastMessage();
  EXPECT_EQ(log.calls.back(), "host");
  EXPECT_NE(output.out.find("script\n"), std::string::npos) << output.out;
  nn_value* fn = nullptr;
  ASSERT_EQ(nn_get_global(state, "scale", &fn), NN_OK);
  EXPECT_EQ(nn_value_kind(fn), NN_KIND_FUNCTION);
  nn_value_free(fn);
}

// A host function may not rebind a global while the script runs: compiled
// code checks the functions it binds only as each call starts.
nn_status hostRebind(void*, nn_state* state, nn_value* const* args, size_t, nn_value** result) {
  *result = nn_int(state, nn_set_global(state, "g", args[0]) == NN_INVALID_ARGUMENT ? 1 : 0);
  return NN_OK;
}

TEST_P(EmbedApi, AHostFunctionCannotRebindAGlobalWhileTheScriptRuns) {
  ASSERT_EQ(nn_register_function(state, "rebind", hostRebind, nullptr), NN_OK);
  ASSERT_EQ(run("def g():\n    return 1\n"
                "def f():\n    r = rebind(len)\n    return r, g()\n"
                "print(f())\n"),
            NN_OK)
      << lastMessage();
  EXPECT_EQ(output.out, "(1, 1)\n");
  // Between runs it may.
  nn_value* seven = nn_int(state, 7);
  ASSERT_EQ(nn_set_global(state, "g", seven), NN_OK);
  nn_value_free(seven);
  ASSERT_EQ(run("print(g)\n"), NN_OK) << lastMessage();
  EXPECT_EQ(output.out, "(1, 1)\n7\n");
}

TEST_P(EmbedApi, AHostFunctionRaisesAtTheScriptsCall) {
  ASSERT_EQ(nn_register_function(state, "refuse", hostFail, nullptr), NN_OK);
  ASSERT_EQ(nn_register_function(state, "scale", hostScale, nullptr), NN_OK);
  ASSERT_EQ(run("try:\n    refuse(1)\nexcept ValueError as e:\n    print('caught', e)\n"), NN_OK) << lastMessage();
  EXPECT_EQ(output.out, "caught the host refuses\n");
  ASSERT_EQ(run("def g(x):\n    return scale(x, 'two')\ng(ones(2))\n"), NN_ERROR);
  const nn_error* e = nn_last_error(state);
  EXPECT_STREQ(nn_error_type(e), "TypeError");
  EXPECT_STREQ(nn_error_message(e), "scale() takes an f32 tensor and a number");
  EXPECT_EQ(nn_error_line(e), 2);
  EXPECT_EQ(nn_error_column(e), 12);
  ASSERT_EQ(run("scale(ones(2), k=2.0)\n"), NN_ERROR);
  EXPECT_NE(lastMessage().find("no keyword arguments"), std::string::npos) << lastMessage();
  // Inside a host function the state is running: it cannot run code.
  ASSERT_EQ(nn_register_function(state, "reenter",
                                 [](void*, nn_state* s, nn_value* const*, size_t, nn_value** r) {
                                   *r = nn_int(s, nn_run_string(s, "x = 1\n", nullptr));
                                   return NN_OK;
                                 },
                                 nullptr),
            NN_OK);
  ASSERT_EQ(run("print(reenter())\n"), NN_OK) << lastMessage();
  EXPECT_NE(output.out.find("6\n"), std::string::npos) << output.out;
}

// A state loads the device plugins of the folders the host names: the test
// binary exports nn's symbols to the fake cuda:0 plugin, as libnn.so does.
// A plugin that cannot load is named in the error of the device it lacks.
TEST_P(EmbedApi, DevicePluginsComeFromTheFoldersTheHostNames) {
  auto stateWithPlugins = [](nn_mode mode, const std::string& folders) {
    nn_options o;
    nn_options_init(&o);
    o.mode = mode;
    o.plugin_path = folders.c_str();
    return nn_state_new(&o);
  };
  const char* code = "def scaled(x):\n    with device('cuda:0'):\n        y = x + x\n    return y\n";
  std::string fake = NN_FAKE_PLUGIN;
  nn_state* placed = stateWithPlugins(GetParam(), fake.substr(0, fake.rfind('/')));
  ASSERT_NE(placed, nullptr);
  ASSERT_EQ(nn_run_string(placed, code, "host.nn"), NN_OK);
  float data[3] = {1, 2, 3};
  int64_t shape[1] = {3};
  nn_value* x = nn_tensor_wrap(placed, NN_F32, shape, 1, data, nullptr, nullptr);
  nn_value* y = nullptr;
  ASSERT_EQ(nn_call_global(placed, "scaled", &x, 1, &y), NN_OK) << nn_error_text(nn_last_error(placed));
  EXPECT_EQ(floats(y), (std::vector<float>{2, 4, 6}));
  nn_value_free(y);
  nn_value_free(x);
  nn_state_free(placed);

  // One folder per process: ctest runs the eager and graph cases at once.
  std::string broken = ::testing::TempDir() + "nn_embed_broken_plugin_" + std::to_string(::getpid());
  std::filesystem::create_directories(broken);
  std::ofstream(broken + "/libnn_broken.so") << "not a shared library";
  nn_state* missing = stateWithPlugins(GetParam(), broken);
  ASSERT_NE(missing, nullptr);
  ASSERT_EQ(nn_run_string(missing, code, "host.nn"), NN_OK);
  x = nn_float(missing, 1.0);
  ASSERT_EQ(nn_call_global(missing, "scaled", &x, 1, nullptr), NN_ERROR);
  const nn_error* e = nn_last_error(missing);
  EXPECT_STREQ(nn_error_message(e), "device 'cuda:0' does not exist (devices: cpu)");
  EXPECT_STREQ(nn_error_type(e), "RuntimeError");
  EXPECT_EQ(nn_error_line(e), 2);
  std::string text = nn_error_text(e);
  EXPECT_NE(text.find("note: device plugin " + broken + "/libnn_broken.so: "), std::string::npos) << text;
  nn_value_free(x);
  nn_state_free(missing);
  std::filesystem::remove_all(broken);
}

INSTANTIATE_TEST_SUITE_P(Modes, EmbedApi, ::testing::Values(NN_MODE_EAGER, NN_MODE_GRAPH),
                         [](const ::testing::TestParamInfo<nn_mode>& info) {
                           return info.param == NN_MODE_EAGER ? std::string("Eager") : std::string("Graph");
                         });

}  // namespace
