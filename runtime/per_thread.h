// One T per thread, made on the thread's first use and destroyed when the
// thread ends, reached through a plain thread_local pointer: a
// thread_local object with a destructor is reached through a wrapper that
// checks its initialisation on every access, which a call's hot path (its
// frame, its argument vector) would pay on every call.
#pragma once

namespace nn::rt {

template <class T>
[[gnu::noinline]] T& madePerThread(T*& current) {
  static thread_local T made;
  current = &made;
  return made;
}

template <class T>
T& perThread() {
  static thread_local T* current = nullptr;
  if (current) [[likely]]
    return *current;
  return madePerThread(current);
}

}  // namespace nn::rt
