// The dict's open-addressing table against a plain model: random stores,
// overwrites and erases (from the middle and from the end, as popitem does)
// keep every key findable (by text, and by a str value with the hash it
// keeps), every missing key missing, and the items in insertion order;
// copies and clears keep the table in step with the items.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "runtime/value.h"

namespace nn::rt {
namespace {

// The model: insertion order, and each key's value.
struct Model {
  std::vector<std::string> order;
  std::map<std::string, int64_t> values;
};

void expectSame(DictObj& d, const Model& m, const std::vector<std::string>& probes) {
  ASSERT_EQ(d.items.size(), m.order.size());
  for (size_t i = 0; i < m.order.size(); ++i) {
    EXPECT_EQ(d.items[i].first, m.order[i]) << "position " << i;
    EXPECT_EQ(d.items[i].second.asInt(), m.values.at(m.order[i]));
  }
  for (const std::string& k : probes) {
    Value* v = d.find(k);
    // By a str value, with the hash it keeps: found, then kept.
    Value key = Value::str(k);
    EXPECT_EQ(d.find(key), v) << k;
    EXPECT_EQ(d.find(key), v) << k;
    auto it = m.values.find(k);
    if (it == m.values.end()) {
      EXPECT_EQ(v, nullptr) << k;
    } else {
      ASSERT_NE(v, nullptr) << k;
      EXPECT_EQ(v->asInt(), it->second) << k;
    }
  }
}

TEST(Dict, RandomStoresAndErasesMatchAModel) {
  std::mt19937 rng(1234);
  Value dv = makeDict();
  DictObj& d = dv.as<DictObj>();
  Model m;
  // Few distinct keys, so that stores overwrite and erases hit often, and
  // long runs in the table from keys that share their home slot.
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) keys.push_back(std::to_string(i * 7919 % 1000) + "k");
  for (int step = 0; step < 20000; ++step) {
    const std::string& k = keys[rng() % keys.size()];
    int op = static_cast<int>(rng() % 10);
    if (op < 6) {
      int64_t v = step;
      // By text, or by a str value with its kept hash: the same entry.
      if (op % 2) d.set(k, Value::integer(v));
      else d.set(Value::str(k), Value::integer(v));
      if (!m.values.count(k)) m.order.push_back(k);
      m.values[k] = v;
    } else if (op < 8) {
      bool had = m.values.erase(k) > 0;
      EXPECT_EQ(d.erase(k), had) << k;
      if (had) m.order.erase(std::find(m.order.begin(), m.order.end(), k));
    } else if (!m.order.empty()) {
      std::string last = m.order.back();
      EXPECT_TRUE(d.erase(last));
      m.values.erase(last);
      m.order.pop_back();
    }
    if (step % 997 == 0) expectSame(d, m, keys);
  }
  expectSame(d, m, keys);
}

TEST(Dict, GrowsPastManyRebuildsAndCopiesAndClears) {
  Value dv = makeDict();
  DictObj& d = dv.as<DictObj>();
  Model m;
  std::vector<std::string> probes;
  for (int64_t i = 0; i < 50000; ++i) {
    std::string k = std::to_string(i);
    d.set(k, Value::integer(i * 3));
    m.order.push_back(k);
    m.values[k] = i * 3;
    if (i % 101 == 0) probes.push_back(k);
    probes.push_back(k.substr(0, 3) + "x");
  }
  expectSame(d, m, probes);

  Value cv = makeDict();
  DictObj& copy = cv.as<DictObj>();
  copy.copyFrom(d);
  d.set("0", Value::integer(-1));
  expectSame(copy, m, probes);
  copy.set("new", Value::integer(5));
  EXPECT_EQ(d.find("new"), nullptr);
  ASSERT_NE(copy.find("new"), nullptr);

  d.clear();
  EXPECT_TRUE(d.items.empty());
  EXPECT_EQ(d.find("0"), nullptr);
  EXPECT_FALSE(d.erase("0"));
  d.set("again", Value::integer(1));
  ASSERT_NE(d.find("again"), nullptr);
  EXPECT_EQ(d.items.size(), 1u);
}

}  // namespace
}  // namespace nn::rt
