// The worker queue's thread (see execution_queue.h).
#include "runtime/execution_queue.h"

namespace nn::rt {

WorkerQueue::WorkerQueue() : ExecutionQueue(false), worker_([this] { loop(); }) {}

WorkerQueue::~WorkerQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_one();
  worker_.join();
}

void WorkerQueue::run(FunctionRef<void()> work) {
  Item item{work, nullptr, false};
  std::unique_lock<std::mutex> lock(mutex_);
  pending_.push_back(&item);
  ready_.notify_one();
  finished_.wait(lock, [&] { return item.done; });
  if (item.error) std::rethrow_exception(item.error);
}

void WorkerQueue::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    ready_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
    // Callers wait for their items, so none is pending once stopping.
    if (pending_.empty()) return;
    Item* item = pending_.front();
    pending_.pop_front();
    lock.unlock();
    try {
      item->work();
    } catch (...) {
      item->error = std::current_exception();
    }
    lock.lock();
    item->done = true;
    // Several callers may wait at once, each for its own item.
    finished_.notify_all();
  }
}

}  // namespace nn::rt
