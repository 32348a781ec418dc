// FrameSlots (runtime/frame_slots.h): a frame's slots start None, what a
// frame leaves is released when it goes and the next frame there starts
// unbound again; nested frames take slots above their caller's, frames
// past a chunk (and frames larger than one) move on to the next chunk and
// come back, and an exception unwinds them in order.
#include "runtime/frame_slots.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>

#include "fresh_thread.h"

namespace {

using nn::rt::FrameSlots;
using nn::rt::Kind;
using nn::rt::Value;
using nn::test::onFreshThread;

bool allNone(FrameSlots& f) {
  for (const Value& v : f.span())
    if (!v.is(Kind::None)) return false;
  return true;
}

TEST(FrameSlots, AFrameStartsUnboundAndReleasesWhatItLeft) {
  onFreshThread([] {
    Value held = Value::str("kept alive by the frame");
    Value* first = nullptr;
    {
      FrameSlots f(6);
      EXPECT_TRUE(allNone(f));
      f.data()[0] = held;
      f.data()[3] = Value::integer(42);
      f.data()[5] = Value::real(0.5);
      EXPECT_EQ(held.useCount(), 2);
      first = f.data();
    }
    EXPECT_EQ(held.useCount(), 1);
    FrameSlots again(6);
    EXPECT_EQ(again.data(), first) << "the same slots, given back";
    EXPECT_TRUE(allNone(again)) << "an int or float left behind is not a bound value of the next frame";
  });
}

TEST(FrameSlots, NestedFramesTakeSlotsAboveTheirCallers) {
  onFreshThread([] {
    FrameSlots outer(4);
    outer.data()[0] = Value::integer(1);
    {
      FrameSlots inner(3);
      EXPECT_EQ(inner.data(), outer.data() + 4);
      inner.data()[2] = Value::integer(2);
    }
    FrameSlots next(2);
    EXPECT_EQ(next.data(), outer.data() + 4);
    EXPECT_TRUE(allNone(next));
    EXPECT_EQ(outer.data()[0].asInt(), 1) << "the caller's values stay";
  });
}

TEST(FrameSlots, DeepAndLargeFramesMoveToNewChunksAndBack) {
  onFreshThread([] {
    // 3,000 nested frames of 20 slots: past the first chunk of 8,192.
    std::function<void(int)> call = [&](int depth) {
      FrameSlots f(20);
      EXPECT_TRUE(allNone(f));
      for (size_t i = 0; i < 20; ++i) f.data()[i] = Value::integer(depth);
      if (depth < 3000) call(depth + 1);
      for (size_t i = 0; i < 20; ++i) EXPECT_EQ(f.data()[i].asInt(), depth);
    };
    call(0);
    Value* base = nullptr;
    {
      FrameSlots first(10);
      base = first.data();
      FrameSlots huge(100000);  // larger than a chunk: one of its own size
      EXPECT_TRUE(allNone(huge));
      huge.data()[99999] = Value::str("last");
      FrameSlots after(10);
      EXPECT_NE(after.data(), huge.data() + 100000) << "not past the end of huge's chunk";
      EXPECT_TRUE(allNone(after));
    }
    FrameSlots back(10);
    EXPECT_EQ(back.data(), base);
  });
}

TEST(FrameSlots, AnExceptionUnwindsFramesInOrder) {
  onFreshThread([] {
    Value held = Value::str("held by a frame that throws");
    Value* base = nullptr;
    try {
      FrameSlots a(5);
      base = a.data();
      FrameSlots b(7);
      b.data()[6] = held;
      throw std::runtime_error("unwinds");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(held.useCount(), 1);
    FrameSlots c(5);
    EXPECT_EQ(c.data(), base);
    EXPECT_TRUE(allNone(c));
  });
}

}  // namespace
