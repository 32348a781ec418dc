// The runtime's thread pool for the graph executor: a fixed set of workers
// taking tasks from one FIFO queue. Kernels keep their own OpenMP
// parallelism; workers run kernels single-threaded (OpenMP's per-thread
// limit is set to 1 on each worker), so two independent ops run on two
// cores instead of both fighting for both.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nn::rt {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void submit(std::function<void()> task);
  // The workers the pool runs (started by the first task).
  unsigned size() const { return count_; }
  // What handing a task to a worker and hearing back costs on this
  // machine, in nanoseconds: the median of a few empty round trips,
  // measured on first use (a few microseconds on bare metal, tens on a
  // small virtual machine). The graph executor weighs it against the work
  // it could overlap (execution_plan.h).
  double handOffNanos();
  // The process-wide pool (one worker per hardware thread), made on first
  // use.
  static ThreadPool& shared();

 private:
  void work();
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::once_flag measured_;
  // The workers start with the first task, not with the pool: a program
  // that never hands one off (scalar code, the REPL's first lines) stays
  // one thread, and the C++ library's reference counts of a
  // single-threaded process are plain additions, not atomic ones (a
  // twentieth of a small function's interpreted call).
  unsigned count_;
  std::once_flag started_;
  double handOff_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace nn::rt
