// Runs a test's body on a thread of its own, for what each thread keeps
// (ScratchValues' vectors, FrameSlots' stack): the body starts with none.
#pragma once

#include <thread>

namespace nn::test {

template <class F>
void onFreshThread(F body) {
  std::thread t(body);
  t.join();
}

}  // namespace nn::test
