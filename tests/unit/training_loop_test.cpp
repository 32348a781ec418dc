// The helpers of training loops: progress bars (their rendering, when they
// draw, the last line at the end of the loop), data.batches (every row once
// per epoch, the same order with and without the background prefetch,
// located errors) and save_csv (quoting, atomic rewrite), in both modes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "stdlib/progress.h"
#include "stdlib/state.h"
#include "run_in_state.h"
#include "temp_dir.h"

namespace {

using nn::test::RunResult;

// With the library modules (import optim) where the source tree has them.
RunResult runWithLibrary(const std::string& code, nn::ExecMode mode) {
  return nn::test::runInState(code, mode, {NN_LIB_SOURCE_DIR});
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Progress, RendersAsTqdm) {
  EXPECT_EQ(nn::stdlib::progressLine("train", 450, 1000, 2.5, true),
            "train:  45%|\u2588\u2588\u2588\u2588\u258c     | 450/1000 [00:02<00:03, 180.00it/s]");
  EXPECT_EQ(nn::stdlib::progressLine("", 0, 10, 0, false), "  0% 0/10 [00:00<?, ?it/s]");
  EXPECT_EQ(nn::stdlib::progressLine("e", 2, 4, 8, false), "e:  50% 2/4 [00:08<00:08, 4.00s/it]");
  EXPECT_EQ(nn::stdlib::progressLine("e", 4, 4, 3725, false), "e: 100% 4/4 [1:02:05<00:00, 931.25s/it]");
}

TEST(Progress, DrawsAsTheLoopTakesItemsAndOnceAtTheEnd) {
  const std::string code =
      "def f(n):\n"
      "    s = 0\n"
      "    for i in progress(range(n), desc=\"steps\", interval=0):\n"
      "        s = s + i\n"
      "    return s\n"
      "print(f(4))\n"
      "for j in progress([1, 2, 3, 4, 5], desc=\"early\", interval=3600):\n"
      "    if j == 2:\n"
      "        break\n"
      "print(len(progress(range(7))))\n";
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    RunResult r = runWithLibrary(code, mode);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.out, "6\n7\n");
    // Not a terminal: plain lines, no carriage returns.
    EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(count(r.err, "steps: " + std::string(i == 0 ? "  0" : i == 1 ? " 25" : i == 2 ? " 50" : " 75") + "% " +
                                 std::to_string(i) + "/4 ["),
                1u)
          << r.err;
    EXPECT_EQ(count(r.err, "steps: 100% 4/4 ["), 1u) << r.err;
    // A long interval: only the last line, with what the loop took.
    EXPECT_EQ(count(r.err, "early:"), 1u) << r.err;
    EXPECT_EQ(count(r.err, "early:  40% 2/5 ["), 1u) << r.err;
  }
}

TEST(Progress, BadArgumentsAreLocated) {
  RunResult r = runWithLibrary("for i in progress(range(3), interval=-1):\n    pass\n", nn::ExecMode::Eager);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("t.nn:1:10"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("interval must be a number of seconds >= 0"), std::string::npos) << r.err;
}

TEST(DataBatches, EveryRowOncePerEpochWithOrWithoutPrefetch) {
  const std::string code =
      "import data\n"
      "x = arange(103.0).reshape(103, 1) * tensor([[1.0, -1.0]])\n"
      "y = arange(103)\n"
      "def epoch(seed, prefetch):\n"
      "    seen = []\n"
      "    for xb, yb in data.batches(x, y, 10, seed=seed, prefetch=prefetch):\n"
      "        assert (xb[:, 0] == yb.astype(f32)).all()\n"
      "        seen = seen + yb.tolist()\n"
      "    return seen\n"
      "a = epoch(1, True)\n"
      "print(len(a), sorted(a) == list(range(103)), a == epoch(1, False), a == epoch(2, True))\n"
      "print(len(data.batches(x, y, 10, drop_last=True)), [len(b) for b in data.batches(y, None, 40, shuffle=False)])\n";
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    RunResult r = runWithLibrary(code, mode);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.out, "103 True True False\n10 [40, 40, 23]\n");
  }
}

TEST(DataBatches, BadArgumentsAreLocated) {
  struct Case {
    const char* call;
    const char* message;
  } cases[] = {
      {"data.batches(zeros(4, 2), arange(3), 2)", "x has 4 rows but y has 3"},
      {"data.batches(zeros(4, 2), None, 0)", "size must be an int >= 1, not 0"},
      {"data.batches(3, None, 2)", "x must be a tensor of one or more dimensions, not int"},
      {"data.batches(zeros(4), None, 2, shuffle=1)", "shuffle must be True or False, not int"},
  };
  for (const Case& c : cases) {
    RunResult r = runWithLibrary(std::string("import data\nb = ") + c.call + "\n", nn::ExecMode::Eager);
    EXPECT_FALSE(r.ok) << c.call;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("called from t.nn:2:5"), std::string::npos) << r.err;
  }
}

TEST(SaveCsv, WritesAQuotedLogAndTables) {
  nn::test::TempDir tmp("nn-save-csv");
  const std::filesystem::path& dir = tmp.path;
  std::string log = (dir / "log.csv").string(), table = (dir / "table.csv").string();
  const std::string code = "rows = [{'epoch': 1, 'loss': tensor(0.5), 'note': 'a,b'}]\n"
                           "rows.append({'epoch': 2, 'loss': 0.25, 'note': 'say \"hi\"'})\n"
                           "save_csv('" + log + "', rows)\n"
                           "save_csv('" + table + "', tensor([[1, 2], [3, 4]]), header=['a', 'b'])\n"
                           "print(load_csv('" + table + "', skip_header=True).tolist())\n";
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    RunResult r = runWithLibrary(code, mode);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.out, "[[1.0, 2.0], [3.0, 4.0]]\n");
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), "epoch,loss,note\n1,0.5,\"a,b\"\n2,0.25,\"say \"\"hi\"\"\"\n");
  }
  RunResult r = runWithLibrary("save_csv('" + log + "', [{'a': 1}, {'b': 2}])\n", nn::ExecMode::Eager);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("row 1 has other keys than row 0"), std::string::npos) << r.err;
}

}  // namespace
