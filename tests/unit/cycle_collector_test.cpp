// The cycle collector on values built directly: unreachable cycles are
// freed (also through a dict's view), whatever is referenced from outside
// (and all it reaches) keeps its contents, a ring of 200,000 lists is
// freed without deep recursion, collections keep up with many small
// cycles, and two threads noting and collecting at once are safe (run
// under TSan).
#include "runtime/cycle_collector.h"
#include "runtime/dict_views.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

namespace nn::rt {
namespace {

Value list(std::vector<Value> items = {}) { return makeList(std::move(items)); }
std::vector<Value>& items(const Value& v) { return v.as<SeqObj>().items; }

void append(CycleCollector& gc, const Value& to, const Value& item) {
  items(to).push_back(item);
  gc.noteStore(to, item);
}

TEST(CycleCollector, FreesAListHoldingItself) {
  CycleCollector gc;
  std::weak_ptr<Object> watch;
  {
    Value xs = list({Value::integer(1)});
    append(gc, xs, xs);
    watch = xs.weak();
  }
  EXPECT_FALSE(watch.expired()) << "reference counting alone frees no cycle";
  EXPECT_EQ(gc.collect(), 1u);
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(gc.noted(), 0u);
}

TEST(CycleCollector, KeepsACycleReferencedFromOutside) {
  CycleCollector gc;
  Value xs = list({Value::integer(7)});
  append(gc, xs, xs);
  EXPECT_EQ(gc.collect(), 0u);
  ASSERT_EQ(items(xs).size(), 2u);
  EXPECT_EQ(items(xs)[0].asInt(), 7);
  EXPECT_EQ(items(xs)[1].ptr(), xs.ptr());
  EXPECT_EQ(gc.noted(), 1u) << "a reachable cycle stays noted";
  items(xs).pop_back();  // leave nothing behind
}

TEST(CycleCollector, KeepsWhatAGarbageCycleSharesWithTheLiving) {
  CycleCollector gc;
  Value shared = list({Value::integer(3)});
  Value inner = list();
  append(gc, shared, inner);  // shared -> inner, and inner is reachable through shared
  {
    Value ring = list({shared});
    append(gc, ring, ring);
  }
  EXPECT_EQ(gc.collect(), 1u);
  ASSERT_EQ(items(shared).size(), 2u);
  EXPECT_EQ(items(shared)[1].ptr(), inner.ptr());
}

TEST(CycleCollector, KeepsACycleReachableThroughATupleAndAFunction) {
  CycleCollector gc;
  Value xs = list();
  auto fo = std::make_shared<FunctionObj>();
  fo->captures.push_back(xs);
  Value fn = Value::object(Kind::Function, std::move(fo));
  append(gc, xs, fn);  // xs -> fn -> xs
  std::weak_ptr<Object> watch = xs.weak();
  Value holder = makeTuple({fn});
  xs = Value();
  fn = Value();
  EXPECT_EQ(gc.collect(), 0u);
  EXPECT_FALSE(watch.expired());
  holder = Value();
  EXPECT_EQ(gc.collect(), 2u);
  EXPECT_TRUE(watch.expired());
}

TEST(CycleCollector, FreesADictReachingItselfThroughATuple) {
  CycleCollector gc;
  std::weak_ptr<Object> watch;
  {
    Value d = makeDict();
    Value pair = makeTuple({d, Value::integer(1)});
    d.as<DictObj>().set("pair", pair);
    gc.noteStore(d, pair);
    watch = d.weak();
  }
  EXPECT_EQ(gc.collect(), 2u);
  EXPECT_TRUE(watch.expired());
}

// A tuple of numbers and strs (nested too) never refers to a container, so
// storing one notes nothing; one holding a list, however deep in the
// nesting the collector looks, is noted.
TEST(CycleCollector, NotesNoStoreOfATupleOfAtoms) {
  CycleCollector gc;
  Value xs = list();
  Value atoms = makeTuple({Value::integer(1), Value::str("a"), makeTuple({Value::real(0.5), Value::none()})});
  append(gc, xs, atoms);
  EXPECT_EQ(gc.noted(), 0u);
  // Each tuple's answer was found when it was made, so depth costs nothing.
  Value deep = makeTuple({makeTuple({makeTuple({makeTuple({makeTuple({Value::integer(2)})})})})});
  append(gc, xs, deep);
  EXPECT_EQ(gc.noted(), 0u) << "a tuple of atoms, however deep, reaches no container";
  Value ys = list();
  append(gc, ys, makeTuple({Value::integer(1), makeTuple({xs})}));
  EXPECT_EQ(gc.noted(), 1u);
  Value zs = list();
  append(gc, zs, makeTuple({makeTuple({makeTuple({makeTuple({makeTuple({ys})})})})}));
  EXPECT_EQ(gc.noted(), 2u) << "a list five tuples deep";
}

TEST(CycleCollector, FreesADictHoldingItsOwnView) {
  CycleCollector gc;
  std::weak_ptr<Object> watch;
  {
    Value d = makeDict();
    Value view = makeDictView(d, DictPart::Values);
    d.as<DictObj>().set("values", view);
    gc.noteStore(d, view);
    watch = d.weak();
  }
  EXPECT_EQ(gc.collect(), 2u);
  EXPECT_TRUE(watch.expired());
}

TEST(CycleCollector, KeepsAViewCycleReferencedFromOutside) {
  CycleCollector gc;
  Value d = makeDict();
  d.as<DictObj>().set("t", Value::integer(5));
  Value view = makeDictView(d, DictPart::Keys);
  d.as<DictObj>().set("keys", view);
  gc.noteStore(d, view);
  EXPECT_EQ(gc.collect(), 0u);
  EXPECT_EQ(view.as<LazySeqObj>().length(), 2);
  d.as<DictObj>().clear();  // leave nothing behind
}

TEST(CycleCollector, FreesALongRingWithoutDeepRecursion) {
  CycleCollector gc;
  std::weak_ptr<Object> watch;
  {
    Value first = list();
    Value last = first;
    for (int i = 0; i < 200000; ++i) {
      Value next = list();
      items(last).push_back(next);  // built without noting: a fresh list holds no cycle
      last = next;
    }
    append(gc, last, first);  // closing the ring is the store that is noted
    watch = first.weak();
  }
  EXPECT_EQ(gc.collect(), 200001u);
  EXPECT_TRUE(watch.expired());
}

TEST(CycleCollector, CollectsByItselfAfterEnoughNewCycles) {
  CycleCollector gc;
  std::weak_ptr<Object> first;
  for (int i = 0; i < 5000; ++i) {
    Value xs = list();
    append(gc, xs, xs);
    if (i == 0) first = xs.weak();
  }
  EXPECT_TRUE(first.expired());
  EXPECT_LT(gc.noted(), 5000u);
  gc.collect();
}

// Garbage a collection visits does not raise the threshold: a program
// making many small cycles of many values each keeps at most a threshold's
// worth of them (the threshold follows what survives).
TEST(CycleCollector, KeepsFewSmallCyclesWhateverTheyHold) {
  CycleCollector gc;
  size_t most = 0;
  for (int i = 0; i < 30000; ++i) {
    Value xs = list(std::vector<Value>(30, Value::integer(i)));
    append(gc, xs, xs);
    most = std::max(most, gc.noted());
  }
  EXPECT_LE(most, 1000u);
  gc.collect();
}

TEST(CycleCollector, TwoThreadsNoteAndCollectAtOnce) {
  CycleCollector gc;
  Value kept = list();
  auto work = [&] {
    for (int i = 0; i < 3000; ++i) {
      Value xs = list({Value::integer(i)});
      append(gc, xs, xs);
      if (i % 500 == 0) gc.collect();
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  gc.collect();
  EXPECT_EQ(gc.noted(), 0u);
}

}  // namespace
}  // namespace nn::rt
