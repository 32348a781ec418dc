// The cycle collector (see cycle_collector.h).
#include "runtime/cycle_collector.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace nn::rt {
namespace {

// Calls f on every value `o` (of kind k) holds.
template <class F>
void forEachReferent(Object* o, Kind k, F&& f) {
  switch (k) {
    case Kind::Tuple:
    case Kind::List:
      for (Value& v : static_cast<SeqObj*>(o)->items) f(v);
      return;
    case Kind::Dict:
      for (auto& kv : static_cast<DictObj*>(o)->items) f(kv.second);
      return;
    case Kind::Function: {
      auto* fo = static_cast<FunctionObj*>(o);
      for (Value& v : fo->captures) f(v);
      for (Value& v : fo->defaults) f(v);
      for (auto& kv : fo->kwDefaults) f(kv.second);
      return;
    }
    case Kind::Method: f(static_cast<MethodObj*>(o)->self); return;
    case Kind::Slice: {
      auto* s = static_cast<SliceObj*>(o);
      f(s->start), f(s->stop), f(s->step);
      return;
    }
    case Kind::Lazy: static_cast<LazySeqObj*>(o)->forEachHeldValue(f); return;
    default: return;
  }
}

// Whether `o` holds anything that can hold values: a tuple of numbers,
// say, can be on no cycle and keeps nothing examined alive, so it is left
// out (CPython untracks such tuples), which keeps a collection cheap when a
// live list holds a million of them.
bool holdsContainers(Object* o, Kind k) {
  bool found = false;
  forEachReferent(o, k, [&](Value& v) { found = found || CycleCollector::canReferToValues(v.kind()); });
  return found;
}

// Moves every value `o` holds into `trash`, leaving it empty.
void moveReferents(Object* o, Kind k, std::vector<Value>& trash) {
  forEachReferent(o, k, [&](Value& v) { trash.push_back(std::exchange(v, Value::none())); });
  if (k == Kind::Tuple || k == Kind::List) static_cast<SeqObj*>(o)->items.clear();
  if (k == Kind::Dict) static_cast<DictObj*>(o)->clear();
}

struct Examined {
  Kind kind;
  long refs;  // references from outside the examined set (after subtracting)
  bool reachable = false;
};

}  // namespace

void CycleCollector::note(const Value& container) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto [it, added] = noted_.try_emplace(container.ptr());
  if (!added && !it->second.object.expired()) return;
  // A freed container's address can be reused by a new one.
  it->second = Noted{container.weak(), container.kind()};
  if (++newlyNoted_ >= threshold_) collectLocked(lock);
}

size_t CycleCollector::noted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return noted_.size();
}

size_t CycleCollector::collect() {
  std::unique_lock<std::mutex> lock(mutex_);
  return collectLocked(lock);
}

size_t CycleCollector::collectLocked(std::unique_lock<std::mutex>& lock) {
  // The noted containers still alive, held for the duration.
  std::vector<std::pair<std::shared_ptr<Object>, Kind>> roots;
  for (auto& [raw, noted] : noted_)
    if (std::shared_ptr<Object> held = noted.object.lock()) roots.emplace_back(std::move(held), noted.kind);
  noted_.clear();
  newlyNoted_ = 0;

  // Every container reachable from them, with its reference count less
  // the references from inside the set. `roots` holds one reference each.
  std::unordered_map<Object*, Examined> examined;
  std::vector<Object*> pending;
  for (auto& [held, kind] : roots) {
    examined.emplace(held.get(), Examined{kind, held.use_count() - 1});
    pending.push_back(held.get());
  }
  // Each container is expanded once, so each internal reference is
  // subtracted once.
  while (!pending.empty()) {
    Object* o = pending.back();
    pending.pop_back();
    forEachReferent(o, examined.at(o).kind, [&](Value& v) {
      if (!canReferToValues(v.kind())) return;
      Object* child = const_cast<Object*>(v.ptr());
      if (!holdsContainers(child, v.kind()) && !examined.count(child)) return;
      auto [it, added] = examined.try_emplace(child, Examined{v.kind(), v.useCount()});
      if (added) pending.push_back(child);
      --it->second.refs;
    });
  }

  // What is referenced from outside, and all it reaches, is alive.
  // `survived` counts the values the living containers hold: the part of
  // this collection's work that the next one repeats.
  for (auto& [o, e] : examined)
    if (e.refs > 0 && !e.reachable) {
      e.reachable = true;
      pending.push_back(o);
    }
  size_t survived = 0;
  while (!pending.empty()) {
    Object* o = pending.back();
    pending.pop_back();
    forEachReferent(o, examined.at(o).kind, [&](Value& v) {
      ++survived;
      if (!canReferToValues(v.kind())) return;
      auto it = examined.find(const_cast<Object*>(v.ptr()));
      if (it != examined.end() && !it->second.reachable) {
        it->second.reachable = true;
        pending.push_back(it->first);
      }
    });
  }

  // The rest is referenced only from itself. Hold each unreachable
  // container through a reference from another one, empty them all, then
  // let go: nothing is freed while its contents are being moved.
  std::vector<Value> holders, trash;
  size_t freed = 0;
  for (auto& [o, e] : examined) {
    if (e.reachable) continue;
    ++freed;
    forEachReferent(o, e.kind, [&](Value& v) {
      if (!canReferToValues(v.kind())) return;
      auto it = examined.find(const_cast<Object*>(v.ptr()));
      if (it != examined.end() && !it->second.reachable) holders.push_back(v);
    });
  }
  for (auto& [o, e] : examined)
    if (!e.reachable) moveReferents(o, e.kind, trash);

  // Reachable noted containers stay noted; the next collection waits for a
  // quarter as many new ones as the living containers hold values. (Not
  // as this one visited: garbage visited once would raise the threshold,
  // and a program making small cycles would keep more garbage each time.)
  for (auto& [held, kind] : roots)
    if (examined.at(held.get()).reachable) noted_.emplace(held.get(), Noted{held, kind});
  threshold_ = std::max(kMinThreshold, survived / 4);
  lock.unlock();
  trash.clear();
  holders.clear();
  roots.clear();
  lock.lock();
  return freed;
}

}  // namespace nn::rt
