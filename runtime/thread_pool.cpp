// The graph executor's worker threads (see thread_pool.h).
#include "runtime/thread_pool.h"

#include <omp.h>

#include <algorithm>
#include <chrono>

namespace nn::rt {

ThreadPool::ThreadPool(unsigned workers) : count_(workers) {}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::submit(std::function<void()> task) {
  std::call_once(started_, [this] {
    for (unsigned i = 0; i < count_; ++i) workers_.emplace_back([this] { work(); });
  });
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void ThreadPool::work() {
  omp_set_num_threads(1);
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    // Tasks report their own errors (the executor records them per node);
    // nothing may end a worker.
    try {
      task();
    } catch (...) {
    }
  }
}

double ThreadPool::handOffNanos() {
  std::call_once(measured_, [this] {
    using Clock = std::chrono::steady_clock;
    std::vector<double> trips;
    for (int i = 0; i < 9; ++i) {
      std::mutex m;
      std::condition_variable done;
      bool ran = false;
      auto t0 = Clock::now();
      submit([&] {
        std::lock_guard<std::mutex> lock(m);
        ran = true;
        done.notify_one();
      });
      std::unique_lock<std::mutex> lock(m);
      done.wait(lock, [&] { return ran; });
      trips.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
    }
    std::nth_element(trips.begin(), trips.begin() + 4, trips.end());
    handOff_ = trips[4];
  });
  return handOff_;
}

ThreadPool& ThreadPool::shared() {
  static ThreadPool pool(std::max(2u, std::thread::hardware_concurrency()));
  return pool;
}

}  // namespace nn::rt
