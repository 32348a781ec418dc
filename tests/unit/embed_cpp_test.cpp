// The C++ layer of the embedding API (include/nn/nn.hpp): RAII values,
// calls with converted arguments, errors as exceptions with their
// locations, host functions as lambdas whose exceptions become nn errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nn/nn.hpp"

namespace {

nn::api::State newState() {
  nn_options o;
  nn_options_init(&o);
  o.library_dir = NN_LIB_SOURCE_DIR;
  return nn::api::State(&o);
}

TEST(EmbedCpp, CallsConvertArgumentsAndResults) {
  nn::api::State s = newState();
  std::string out;
  s.setOutput([&](int stream, const std::string& text) {
    if (stream == 1) out += text;
  });
  s.run("def describe(x, k, name, flag=False):\n"
        "    print(name)\n"
        "    return {'scaled': x * k, 'n': x.numel(), 'flag': flag}\n");
  std::vector<float> data = {1, 2, 3, 4};
  nn::api::Value r = s.call("describe", s.tensor(data, {2, 2}), 3, std::string("hello"));
  EXPECT_EQ(out, "hello\n");
  EXPECT_EQ(r.kind(), NN_KIND_DICT);
  EXPECT_EQ(r.keys(), (std::vector<std::string>{"scaled", "n", "flag"}));
  EXPECT_EQ(r["scaled"].toVector<float>(), (std::vector<float>{3, 6, 9, 12}));
  EXPECT_EQ(r["scaled"].shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(r["n"].toInt(), 4);
  EXPECT_FALSE(r["flag"].toBool());
  nn::api::Value flagged =
      s.callValue(s.global("describe"), {s.tensor(data, {4}), s.value(1.0), s.value("x")}, {{"flag", s.value(true)}});
  EXPECT_TRUE(flagged["flag"].toBool());
  EXPECT_THROW(r["n"].toStr(), std::invalid_argument);
}

TEST(EmbedCpp, AFailedCallThrowsTheLocatedError) {
  nn::api::State s = newState();
  s.run("def f(a):\n    return a @ a\n", "model.nn");
  std::vector<double> data = {1, 2, 3};
  try {
    s.call("f", s.tensor(data, {1, 3}));
    FAIL() << "no error";
  } catch (const nn::api::Error& e) {
    EXPECT_EQ(e.status(), NN_ERROR);
    EXPECT_EQ(e.type(), "ValueError");
    EXPECT_EQ(e.file(), "model.nn");
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(e.text().find("^"), std::string::npos) << e.text();
  }
  EXPECT_THROW(s.global("missing"), nn::api::Error);
  nn::api::Value dot = s.call("f", s.tensor(data, {3}));
  EXPECT_EQ(dot.shape(), std::vector<int64_t>{});
  EXPECT_EQ(dot.toVector<double>(), std::vector<double>{14.0});
}

TEST(EmbedCpp, AStepLimitStopIsAnErrorWithItsStatus) {
  nn::api::State s = newState();
  s.run("def spin():\n    while True:\n        pass\n", "spin.nn");
  s.setStepLimit(1000);
  try {
    s.call("spin");
    FAIL() << "no stop";
  } catch (const nn::api::Error& e) {
    EXPECT_EQ(e.status(), NN_STEP_LIMIT);
    EXPECT_EQ(e.type(), "KeyboardInterrupt");
    EXPECT_EQ(e.line(), 2);
  }
}

TEST(EmbedCpp, HostFunctionsAreLambdasAndTheirExceptionsAreNnErrors) {
  nn::api::State s = newState();
  std::vector<std::string> seen;
  s.registerFunction("record", [&](nn::api::StateRef& state, const std::vector<nn::api::Value>& args) {
    for (const auto& a : args) seen.push_back(a.str());
    return state.value(static_cast<int64_t>(seen.size()));
  });
  s.registerFunction("strict", [](nn::api::StateRef&, const std::vector<nn::api::Value>& args) -> nn::api::Value {
    if (args.size() != 1) throw nn::api::Error("TypeError", "strict() takes one argument");
    throw std::runtime_error("strict() refuses everything");
  });
  s.run("n = record('a', 2.5)\n"
        "try:\n    strict(1, 2)\nexcept TypeError as e:\n    m = str(e)\n"
        "try:\n    strict(1)\nexcept RuntimeError as e:\n    k = str(e)\n");
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "2.5"}));
  EXPECT_EQ(s.global("n").toInt(), 2);
  EXPECT_EQ(s.global("m").toStr(), "strict() takes one argument");
  EXPECT_EQ(s.global("k").toStr(), "strict() refuses everything");
}

}  // namespace
