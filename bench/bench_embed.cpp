// The embedding API's own cost (include/nn/nn.h), in both modes: what a host
// application pays per call of an nn function beyond the work inside it.
//   * a call of `inc(x) = x + 1.0` on a 1-element tensor: the whole round
//     trip (argument handle, run bookkeeping, the call, the result handle);
//   * a call of `add(a, b) = a + b` on two ints: the same without tensors;
//   * the sum of 1M host floats passed in by nn_tensor_wrap against
//     nn_tensor_copy: what zero-copy saves.
// bench/embed_vs_python.py times the peer: a Python function doing the
// same one PyTorch op, called from Python (eager and TorchScript).
// Run: build/bench/nn_bench_embed (linked with the static libraries), or
// build/bench/nn_bench_embed_shared (the same through libnn.so).
#include <benchmark/benchmark.h>

#include <vector>

#include "nn/nn.h"

namespace {

nn_state* newState(nn_mode mode) {
  nn_options o;
  nn_options_init(&o);
  o.mode = mode;
  o.library_dir = NN_LIB_SOURCE_DIR;
  nn_state* s = nn_state_new(&o);
  nn_run_string(s,
                "def inc(x):\n    return x + 1.0\n"
                "def add(a, b):\n    return a + b\n"
                "def total(x):\n    return float(x.sum())\n",
                "bench.nn");
  return s;
}

// Times nn_call(fn, args): the benchmark's loop.
void timeCalls(benchmark::State& st, nn_state* s, nn_value* fn, nn_value* const* args, size_t nargs) {
  for (auto _ : st) {
    nn_value* r = nullptr;
    nn_status status = nn_call(s, fn, args, nargs, &r);
    benchmark::DoNotOptimize(r);
    nn_value_free(r);
    if (status != NN_OK) {
      st.SkipWithError(nn_error_message(nn_last_error(s)));
      break;
    }
  }
  st.SetLabel(st.range(0) == NN_MODE_GRAPH ? "graph" : "eager");
}

void BM_EmbedCallTinyTensor(benchmark::State& st) {
  nn_state* s = newState(static_cast<nn_mode>(st.range(0)));
  nn_value* fn = nullptr;
  nn_get_global(s, "inc", &fn);
  float one = 1.0f;
  int64_t shape[] = {1};
  nn_value* x = nn_tensor_copy(s, NN_F32, shape, 1, &one);
  timeCalls(st, s, fn, &x, 1);
  nn_value_free(x);
  nn_value_free(fn);
  nn_state_free(s);
}
BENCHMARK(BM_EmbedCallTinyTensor)->Arg(NN_MODE_EAGER)->Arg(NN_MODE_GRAPH);

void BM_EmbedCallInts(benchmark::State& st) {
  nn_state* s = newState(static_cast<nn_mode>(st.range(0)));
  nn_value* fn = nullptr;
  nn_get_global(s, "add", &fn);
  nn_value* args[2] = {nn_int(s, 20), nn_int(s, 22)};
  timeCalls(st, s, fn, args, 2);
  for (nn_value* a : args) nn_value_free(a);
  nn_value_free(fn);
  nn_state_free(s);
}
BENCHMARK(BM_EmbedCallInts)->Arg(NN_MODE_EAGER)->Arg(NN_MODE_GRAPH);

// range(0): 1 wraps the host's floats, 0 copies them in.
void BM_EmbedSumOfHostFloats(benchmark::State& st) {
  nn_state* s = newState(NN_MODE_GRAPH);
  nn_value* fn = nullptr;
  nn_get_global(s, "total", &fn);
  std::vector<float> host(1 << 20, 0.5f);
  int64_t shape[] = {static_cast<int64_t>(host.size())};
  bool wrap = st.range(0) == 1;
  for (auto _ : st) {
    nn_value* x = wrap ? nn_tensor_wrap(s, NN_F32, shape, 1, host.data(), nullptr, nullptr)
                       : nn_tensor_copy(s, NN_F32, shape, 1, host.data());
    nn_value* r = nullptr;
    nn_status status = nn_call(s, fn, &x, 1, &r);
    double v = 0;
    nn_get_float(r, &v);
    benchmark::DoNotOptimize(v);
    nn_value_free(r);
    nn_value_free(x);
    if (status != NN_OK) {
      st.SkipWithError(nn_error_message(nn_last_error(s)));
      break;
    }
  }
  st.SetLabel(wrap ? "nn_tensor_wrap" : "nn_tensor_copy");
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(host.size() * sizeof(float)));
  nn_value_free(fn);
  nn_state_free(s);
}
BENCHMARK(BM_EmbedSumOfHostFloats)->Arg(1)->Arg(0);

}  // namespace

BENCHMARK_MAIN();
