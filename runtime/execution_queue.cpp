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
  // Work running here launching a kernel on this device: waiting for the
  // queue would wait for itself.
  if (std::this_thread::get_id() == worker_.get_id()) {
    work();
    return;
  }
  Item item{work, nullptr, false, nullptr};
  std::unique_lock<std::mutex> lock(mutex_);
  pending_.push_back(&item);
  ready_.notify_one();
  finished_.wait(lock, [&] { return item.done; });
  if (item.error) std::rethrow_exception(item.error);
}

void WorkerQueue::post(std::function<void()> task) {
  auto owned = std::make_unique<std::function<void()>>(std::move(task));
  auto* item = new Item{FunctionRef<void()>(*owned), nullptr, false, std::move(owned)};
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.push_back(item);
  ready_.notify_one();
}

void WorkerQueue::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    ready_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
    // Callers wait for their items, and the executor for the work it
    // posts, so none is pending once stopping.
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
    if (item->task) {
      delete item;  // nobody waits for it; its task catches what it throws
      continue;
    }
    item->done = true;
    // Several callers may wait at once, each for its own item.
    finished_.notify_all();
  }
}

}  // namespace nn::rt
