// ScratchValues (runtime/scratch_values.h): a call's vector is kept for the
// next call at its nesting level, empty, its values released when the call
// ends; nested calls each get their own; a buffer taken away or grown large
// is not kept.
#include "runtime/scratch_values.h"

#include <gtest/gtest.h>

#include "fresh_thread.h"

namespace {

using nn::rt::ScratchValues;
using nn::rt::Value;
using nn::test::onFreshThread;

TEST(ScratchValues, ASpareIsReusedEmptyAndItsValuesAreReleased) {
  onFreshThread([] {
    Value held = Value::str("kept alive by the vector");
    const void* buffer = nullptr;
    {
      ScratchValues a;
      a->reserve(8);
      a->push_back(held);
      EXPECT_EQ(held.useCount(), 2);
      buffer = a->data();
    }
    EXPECT_EQ(held.useCount(), 1);
    ScratchValues b;
    EXPECT_TRUE(b->empty());
    EXPECT_GE(b->capacity(), 8u);
    EXPECT_EQ(b->data(), buffer);
  });
}

TEST(ScratchValues, NestedCallsGetTheirOwnVectors) {
  onFreshThread([] {
    ScratchValues outer;
    outer->push_back(Value::integer(1));
    {
      ScratchValues inner;
      inner->push_back(Value::integer(2));
      EXPECT_NE(inner->data(), outer->data());
    }
    ASSERT_EQ(outer->size(), 1u);
    EXPECT_EQ((*outer)[0].asInt(), 1);
  });
}

TEST(ScratchValues, ATakenOrHugeBufferIsNotKept) {
  onFreshThread([] {
    const void* huge = nullptr;
    {
      ScratchValues a;
      a->resize(100000);
      huge = a->data();
    }
    {
      ScratchValues b;
      EXPECT_NE(b->data(), huge);
      EXPECT_LT(b->capacity(), 100000u);
    }
    std::vector<Value> taken;
    {
      ScratchValues c;
      c->push_back(Value::integer(3));
      taken = std::move(*c);
    }
    ASSERT_EQ(taken.size(), 1u);
    EXPECT_EQ(taken[0].asInt(), 3);
  });
}

}  // namespace
