// A module's globals count the writes that may stale a compiled version's
// bindings (runtime/module.h): replacing or unbinding a function, a builtin
// or a module, and marking a global stored by a function; writes of numbers,
// strs and lists over each other, and binding a name for the first time,
// leave the count.
#include "runtime/module.h"

#include <gtest/gtest.h>

namespace nn::rt {
namespace {

Value function() { return Value::object(Kind::Function, std::make_shared<FunctionObj>()); }

TEST(ModuleGlobals, CountsOnlyWritesThatMayStaleABinding) {
  ModuleInstance m("m", "");
  m.setGlobal("x", Value::integer(1));
  m.setGlobal("x", Value::real(2.5));
  m.setGlobal("x", makeList({Value::integer(1)}));
  m.setGlobal("f", function());
  EXPECT_EQ(m.rebinds(), 0u);
  EXPECT_TRUE(m.eraseGlobal("x"));
  EXPECT_EQ(m.rebinds(), 0u);

  m.setGlobal("f", Value::integer(3));  // a function replaced
  EXPECT_EQ(m.rebinds(), 1u);
  m.setGlobal("f", function());
  EXPECT_EQ(m.rebinds(), 1u);
  EXPECT_TRUE(m.eraseGlobal("f"));  // a function unbound
  EXPECT_EQ(m.rebinds(), 2u);
  EXPECT_FALSE(m.eraseGlobal("f"));
  EXPECT_EQ(m.rebinds(), 2u);
}

TEST(ModuleGlobals, MarkingAStoredGlobalCountsOnce) {
  ModuleInstance m("m", "");
  Global& g = m.entry("helper");
  EXPECT_FALSE(g.bound());
  g.markStoredByFunction();
  g.markStoredByFunction();
  EXPECT_TRUE(g.storedByFunction());
  EXPECT_EQ(m.rebinds(), 1u);
  EXPECT_EQ(g.owner(), &m);
}

TEST(ModuleGlobals, EntriesAreStableAndReadOnlyOutside) {
  ModuleInstance m("m", "");
  const Global* g = &m.entry("a");
  for (int i = 0; i < 100; ++i) m.setGlobal(std::to_string(i), Value::integer(i));
  EXPECT_EQ(&m.entry("a"), g);
  EXPECT_EQ(m.findGlobal("a"), nullptr);
  m.setGlobal("a", Value::integer(7));
  ASSERT_NE(m.findGlobal("a"), nullptr);
  EXPECT_EQ(m.findGlobal("a")->asInt(), 7);
}

}  // namespace
}  // namespace nn::rt
