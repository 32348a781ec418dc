// The JIT's persistent object cache: entries round-trip, damaged entries
// read as absent and are rebuilt without changing a run's output, the
// size bound evicts the least recently used entries, and two processes
// sharing one cache directory both run correctly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_capture.h"
#include "runtime/jit/object_cache.h"
#include "stdlib/state.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using nn::rt::jit::ObjectCache;

using nn::test::TempDir;

const char* kChains =
    "def f(a, b):\n"
    "    return relu(a * b + 1.5) - a / 4.0\n"
    "def g(a):\n"
    "    return sigmoid(a * 2.0) + tanh(a)\n"
    "x = arange(12).reshape([3, 4]).astype(f32) - 5.0\n"
    "print(f(x, x).tolist())\n"
    "print(g(x).tolist())\n";

struct ChainsRun {
  std::string out;
  nn::rt::jit::EngineStats stats;
};

ChainsRun runChains(const fs::path& cacheDir) {
  std::ostringstream out, err;
  nn::StateOptions opts;
  opts.jitAtFirstRun = true;
  opts.jitCacheDir = cacheDir.string();
  nn::State state(opts, out, err);
  nn::Status st = state.runString(kChains, "chains.nn");
  EXPECT_TRUE(st.ok()) << st.error().message;
  nn::rt::jit::Engine* jit = state.interpreter().context().jitIfMade();
  EXPECT_NE(jit, nullptr);
  return ChainsRun{out.str(), jit ? jit->stats() : nn::rt::jit::EngineStats{}};
}

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  return files;
}

TEST(JitCache, StoresAndLoadsEntries) {
  TempDir dir("nn-jit-test");
  ObjectCache cache(dir.path.string(), 1 << 20);
  EXPECT_FALSE(cache.load("abc123"));
  cache.store("abc123", std::string("object\0bytes", 12));
  auto back = cache.load("abc123");
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, std::string("object\0bytes", 12));
  // Keys that are not hex digests never name a file.
  cache.store("../escape", "x");
  EXPECT_FALSE(cache.load("../escape"));
  EXPECT_FALSE(fs::exists(dir.path.parent_path() / "escape.o"));
}

TEST(JitCache, DamagedEntriesReadAsAbsent) {
  TempDir dir("nn-jit-test");
  ObjectCache cache(dir.path.string(), 1 << 20);
  const std::string payload(1000, 'k');
  fs::path file = dir.path / "feed.o";
  auto rewrite = [&](const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  };
  cache.store("feed", payload);
  std::string whole;
  {
    std::ifstream in(file, std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(in), {});
  }
  rewrite(whole.substr(0, whole.size() - 10));  // truncated
  EXPECT_FALSE(cache.load("feed"));
  std::string flipped = whole;
  flipped[whole.size() / 2] ^= 1;  // one bit of the payload
  rewrite(flipped);
  EXPECT_FALSE(cache.load("feed"));
  rewrite("garbage");
  EXPECT_FALSE(cache.load("feed"));
  rewrite("");
  EXPECT_FALSE(cache.load("feed"));
  rewrite(whole);
  EXPECT_TRUE(cache.load("feed"));
}

TEST(JitCache, EvictsTheLeastRecentlyUsedBeyondItsBound) {
  TempDir dir("nn-jit-test");
  ObjectCache cache(dir.path.string(), 10000);
  const std::string payload(1500, 'p');
  cache.store("a0", payload);
  for (int i = 1; i < 20; ++i) {
    // Keep the first entry in use: it must survive every eviction.
    ASSERT_TRUE(cache.load("a0")) << i;
    cache.store(std::string("b").append(std::to_string(i)), payload);
    uint64_t total = 0;
    for (const fs::path& p : entries(dir.path)) total += fs::file_size(p);
    EXPECT_LE(total, 10000u) << i;
  }
  EXPECT_TRUE(cache.load("a0"));
  EXPECT_FALSE(cache.load("b1"));
  EXPECT_TRUE(cache.load("b19"));
}

TEST(JitCache, ALaterRunLoadsWhatAnEarlierCompiled) {
  TempDir dir("nn-jit-test");
  ChainsRun first = runChains(dir.path);
  EXPECT_EQ(first.stats.kernels, 2u);
  EXPECT_EQ(first.stats.cached, 0u);
  EXPECT_EQ(entries(dir.path).size(), 2u);
  ChainsRun second = runChains(dir.path);
  EXPECT_EQ(second.stats.kernels, 0u);
  EXPECT_EQ(second.stats.cached, 2u);
  EXPECT_EQ(second.out, first.out);
}

TEST(JitCache, ACorruptEntryIsRebuiltAndTheRunIsUnchanged) {
  TempDir dir("nn-jit-test");
  ChainsRun first = runChains(dir.path);
  std::vector<fs::path> files = entries(dir.path);
  ASSERT_EQ(files.size(), 2u);
  // One entry truncated, the other overwritten in its middle.
  fs::resize_file(files[0], fs::file_size(files[0]) / 2);
  {
    std::fstream f(files[1], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(files[1]) / 2));
    f << "corrupted!";
  }
  ChainsRun second = runChains(dir.path);
  EXPECT_EQ(second.stats.kernels, 2u);
  EXPECT_EQ(second.out, first.out);
  ChainsRun third = runChains(dir.path);
  EXPECT_EQ(third.stats.cached, 2u);
  EXPECT_EQ(third.out, first.out);
}

TEST(JitCache, OffCompilesEveryTimeAndWritesNothing) {
  TempDir dir("nn-jit-test");
  std::ostringstream out, err;
  nn::StateOptions opts;
  opts.jitCache = false;
  opts.jitAtFirstRun = true;
  opts.jitCacheDir = dir.path.string();
  nn::State state(opts, out, err);
  ASSERT_TRUE(state.runString(kChains, "chains.nn").ok());
  EXPECT_EQ(state.interpreter().context().jitIfMade()->stats().kernels, 2u);
  EXPECT_TRUE(entries(dir.path).empty());
}

TEST(JitCache, TwoProcessesShareOneDirectory) {
  TempDir dir("nn-jit-test");
  fs::path script = dir.path / "chains.nn";
  {
    std::ofstream s(script);
    s << kChains;
    // More kernels, so that the two processes' stores interleave (numbers
    // are the kernels' operands: the ops make them differ).
    const char* ops[] = {"exp", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "floor", "ceil", "silu", "erf", "gelu"};
    for (int i = 0; i < 12; ++i)
      s << "def h" << i << "(a):\n    return " << ops[i] << "(a + " << i << ".5) * a\nprint(h" << i << "(x).tolist())\n";
  }
  fs::path cache = dir.path / "cache";
  std::string env = "XDG_CACHE_HOME=" + cache.string();
  std::string both = "env " + env + " " + NN_BINARY + " --jit always " + script.string() + " > " + (dir.path / "1.out").string() +
                     " & env " + env + " " + NN_BINARY + " --jit always " + script.string() + " > " + (dir.path / "2.out").string() +
                     " & wait";
  Captured r = runCapture({"/bin/sh", "-c", both}, "", true);
  ASSERT_EQ(r.status, 0) << r.out;
  std::string one = readWholeFile((dir.path / "1.out").string());
  EXPECT_EQ(one, readWholeFile((dir.path / "2.out").string()));
  EXPECT_EQ(splitLines(one).size(), 14u);
  Captured again = runCapture({"/usr/bin/env", env, NN_BINARY, "--jit", "always", "--stats", script.string()}, "", false);
  EXPECT_EQ(again.out, one);
  EXPECT_NE(again.err.find("jit compiled 0 fused kernels, loaded 14 from the cache, shared 0"), std::string::npos)
      << again.err;
}


// By default code is compiled once it is hot (jit::Engine::hot): a fused
// node after 1,000 runs or a million result elements, a loop after 1,000
// iterations; until then they run on the executor, with the same results.
TEST(JitTiering, NodesAndLoopsCompileOnceHot) {
  TempDir dir("nn-jit-test");
  auto run = [&](int runs, int iterations, const char* shape) {
    std::ostringstream out, err;
    nn::StateOptions opts;
    opts.jitCacheDir = dir.path.string();
    nn::State state(opts, out, err);
    std::string code =
        "def f(a):\n"
        "    return relu(a * 2.0 + 1.0) - a\n"
        "def count(n):\n"
        "    i = 0\n"
        "    while i < n:\n"
        "        i += 1\n"
        "    return i\n"
        "x = ones(" + std::string(shape) + ")\n"
        // Each run's input is the last one's result: the call cannot
        // leave the loop (licm), so the fused node runs `runs` times.
        "for i in range(" + std::to_string(runs) + "):\n"
        "    x = f(x)\n"
        "print(float(sum(x)), count(" + std::to_string(iterations) + "))\n";
    nn::Status st = state.runString(code, "tiers.nn");
    EXPECT_TRUE(st.ok()) << st.error().message;
    nn::rt::jit::Engine* jit = state.interpreter().context().jitIfMade();
    return std::make_pair(out.str(), jit ? jit->stats() : nn::rt::jit::EngineStats{});
  };
  auto [cold, coldStats] = run(999, 999, "[16]");
  EXPECT_EQ(cold, "16000.0 999\n");
  EXPECT_EQ(coldStats.kernels + coldStats.cached, 0u);
  EXPECT_EQ(coldStats.loops, 0u);
  auto [hot, hotStats] = run(1000, 2000, "[16]");  // the loop switches mid-run
  EXPECT_EQ(hot, "16016.0 2000\n");
  EXPECT_EQ(hotStats.kernels + hotStats.cached, 1u);
  EXPECT_EQ(hotStats.loops, 1u);
  // A million result elements pay for a kernel at once.
  auto [big, bigStats] = run(1, 0, "[1000, 1000]");
  EXPECT_EQ(big, "2000000.0 0\n");
  EXPECT_EQ(bigStats.kernels + bigStats.cached, 1u);
}

// A loop at the top level of a script carries its module globals as typed
// values (passes/promote_globals.cpp), so its glue computes them in
// registers and stores each global with one direct call: after the run,
// and seen by a function the loop calls, every global holds what Python
// gives it.
TEST(JitGlue, AModuleLoopStoresItsScalarGlobals) {
  TempDir dir("nn-jit-test");
  std::ostringstream out, err;
  nn::StateOptions opts;
  opts.jitCacheDir = dir.path.string();
  opts.jitAtFirstRun = true;
  nn::State state(opts, out, err);
  const char* code =
      "total = 0\n"
      "x = 0.5\n"
      "high = False\n"
      "def seen():\n"
      "    return total\n"
      "checks = 0\n"
      "for i in range(1000):\n"
      "    total += i * 3 - 1\n"
      "    x = x * 0.5 + 1.0\n"
      "    high = x > 1.5\n"
      "    if i == 500:\n"
      "        checks = seen()\n";
  nn::Status st = state.runString(code, "module_loop.nn");
  ASSERT_TRUE(st.ok()) << st.error().message;
  nn::rt::jit::Engine* jit = state.interpreter().context().jitIfMade();
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ(jit->stats().loops, 1u);
  EXPECT_EQ(state.global("total")->asInt(), 1497500);
  EXPECT_EQ(state.global("i")->asInt(), 999);
  EXPECT_EQ(state.global("x")->asFloat(), 2.0);
  EXPECT_TRUE(state.global("high")->asBool());
  EXPECT_EQ(state.global("checks")->asInt(), 375249);  // total after i = 500
}
}  // namespace
