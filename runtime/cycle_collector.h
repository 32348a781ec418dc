// Frees reference cycles among containers. Values are reference counted,
// so `xs = [1]; xs.append(xs)` would never be freed; this is CPython's
// cycle collector, restricted to where cycles can start. A cycle can only be
// closed by storing a container into a list or dict that already exists
// (literals, comprehensions and closures are built from values that exist
// before them, and a function refers to itself through self_closure, not a
// capture), so the interpreter notes each such store, and only the noted
// containers and what they reach are examined.
//
// Algorithm (CPython's gc_refs): take the noted containers that are alive,
// and every container reachable from them (tuples, lists, dicts, functions'
// captures and defaults, bound methods, slices); give each the number of
// references to it minus those from inside the set. A container with
// references left is reachable from outside (a frame, a global, a tensor's
// owner, a builtin holding it), and so is everything it reaches; the rest
// can only be reached from one another. Their contents are moved out and
// dropped, which frees them.
//
// A collection runs after a threshold of newly noted containers, which
// grows with the number of values held by the containers that survived the
// last collection, so a program that keeps a large structure alive pays
// amortised constant work per store, and one that makes many small cycles
// keeps at most a threshold's worth of them. Containers still reachable
// stay noted for later collections. The collector holds weak references
// only; a noted container freed normally is simply skipped. Notes and
// collections may come from several threads (graph mode's workers); no
// container is mutated during a collection, because list and dict stores
// are effects, which a state runs one at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "runtime/value.h"

namespace nn::rt {

class CycleCollector {
 public:
  // `container` (a list or dict) was just given `item`: when the item can
  // refer to other values, the two may now be part of a cycle.
  void noteStore(const Value& container, const Value& item) {
    if ((container.is(Kind::List) || container.is(Kind::Dict)) && mayReachContainers(item)) note(container);
  }
  // Frees every unreachable cycle among the noted containers and what they
  // reach; returns how many containers it freed.
  size_t collect();
  // How many containers are noted.
  size_t noted() const;

  static constexpr uint32_t bit(Kind k) { return uint32_t(1) << static_cast<unsigned>(k); }
  static_assert(static_cast<unsigned>(Kind::Stream) < 32, "a kind's bit fits a uint32_t");
  static bool canReferToValues(Kind k) {
    constexpr uint32_t kinds = bit(Kind::List) | bit(Kind::Dict) | bit(Kind::Tuple) | bit(Kind::Function) |
                               bit(Kind::Method) | bit(Kind::Slice) | bit(Kind::Lazy);
    return (kinds >> static_cast<unsigned>(k)) & 1;
  }
  // Whether `item` may refer to a list or dict, now or later: a tuple of
  // numbers, strs and tensors never will (a tuple does not change), so
  // storing `(i, i + 1)` closes no cycle and costs no note. A tuple's answer
  // was found when it was made (SeqObj::mayReachContainers).
  static bool mayReachContainers(const Value& item) {
    if (!canReferToValues(item.kind())) return false;
    return !item.is(Kind::Tuple) || item.as<SeqObj>().mayReachContainers;
  }

 private:
  static constexpr size_t kMinThreshold = 1000;
  void note(const Value& container);
  size_t collectLocked(std::unique_lock<std::mutex>& lock);

  struct Noted {
    std::weak_ptr<Object> object;
    Kind kind;
  };
  mutable std::mutex mutex_;
  std::unordered_map<const Object*, Noted> noted_;
  size_t newlyNoted_ = 0, threshold_ = kMinThreshold;
};

}  // namespace nn::rt
