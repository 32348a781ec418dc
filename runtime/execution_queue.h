// The order in which a device runs its kernels. Every kernel launch
// (dispatch.h) goes through its device's queue; work submitted to one queue
// runs one item at a time, in submission order, on the queue's thread, and
// run() returns when that item has finished, passing on what it threw.
// Two kinds exist: the immediate queue runs work on the calling thread (the
// host CPU, whose kernels parallelise inside with OpenMP and oneDNN, so
// launching costs nothing), and the worker queue owns a thread that runs
// the work of every caller (a logical CPU device, `cpu:N` of the
// heterogeneous issue, whose kernels must run on its own thread so that a
// partitioned graph runs its devices concurrently). A device with an
// asynchronous stream (CUDA) implements run() by enqueueing on it.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "support/function_ref.h"

namespace nn::rt {

class ExecutionQueue {
 public:
  virtual ~ExecutionQueue() = default;
  // Runs `work` after every item submitted before it; returns when it has
  // run, rethrowing its exception on the calling thread.
  virtual void run(FunctionRef<void()> work) = 0;
  // Queues `task` to run after everything submitted before it and returns
  // at once where the queue has a thread (else runs it). `task` must not
  // throw. (The merged DAG hands a device the
  // nodes placed on it this way: its thread runs them and those they make
  // ready there, with no hand-off between them.)
  virtual void post(std::function<void()> task) { run(task); }
  // Whether work runs on a thread of the queue's own (so a caller waits).
  virtual bool ownThread() const { return false; }
  // Returns once everything submitted before has finished (sync()): for a
  // queue whose run() returns at once, what run() returning means for the
  // others.
  virtual void wait() {
    run([] {});
  }
  // True when run() calls work on the calling thread, so a launch may call
  // the kernel directly.
  bool immediate() const { return immediate_; }

 protected:
  explicit ExecutionQueue(bool immediate) : immediate_(immediate) {}

 private:
  bool immediate_;
};

class ImmediateQueue final : public ExecutionQueue {
 public:
  ImmediateQueue() : ExecutionQueue(true) {}
  void run(FunctionRef<void()> work) override { work(); }
};

class WorkerQueue final : public ExecutionQueue {
 public:
  WorkerQueue();
  // Finishes the submitted work, then stops the thread.
  ~WorkerQueue() override;
  WorkerQueue(const WorkerQueue&) = delete;
  WorkerQueue& operator=(const WorkerQueue&) = delete;

  // Called on the queue's own thread (by work it runs), runs `work` at once.
  void run(FunctionRef<void()> work) override;
  void post(std::function<void()> task) override;
  bool ownThread() const override { return true; }
  // The thread that runs this queue's work.
  std::thread::id workerId() const { return worker_.get_id(); }

 private:
  // One submitted item: run()'s lives on its caller's stack until done;
  // post()'s owns its task and is freed once it has run.
  struct Item {
    FunctionRef<void()> work;
    std::exception_ptr error;
    bool done = false;
    std::unique_ptr<std::function<void()>> task;  // post()'s
  };
  void loop();

  std::mutex mutex_;
  std::condition_variable ready_, finished_;
  std::deque<Item*> pending_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace nn::rt
