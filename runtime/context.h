// What one interpreter state owns at run time and passes down, instead of
// process-wide objects: its devices (the CPU, with its own allocator, so
// memory is counted and cached per state, and those registered at run
// time), its random generator and clock, the thread pool its graphs run on (a handle: states may share a pool, which is internally
// synchronised), and the context its compilations give the passes. Two
// states built on two contexts share no mutable data, so they can run in
// two threads at once. Tensors must not outlive the context that made them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "passes/passes.h"
#include "runtime/clock.h"
#include "runtime/cycle_collector.h"
#include "runtime/device.h"
#include "runtime/jit/jit.h"
#include "runtime/random.h"
#include "runtime/thread_pool.h"

namespace nn::rt {

class Context {
 public:
  // `pool`: where graph mode runs independent nodes.
  explicit Context(ThreadPool& pool);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Where creation builtins (zeros, tensor, rand, load, ...) put tensors.
  CpuDevice& cpu() { return cpu_; }
  // The limit on the host memory this state's CPU devices hold together.
  MemoryCap& memoryCap() { return memoryCap_; }
  // The devices of this state by name, the CPU first. Devices are
  // registered at run time (a plugin's, the heterogeneous issue's cpu:N);
  // the context keeps each alive as long as itself. Registering a name
  // twice is an error (std::invalid_argument, a host-program bug). A
  // device whose memory the host cannot address gets the host-made
  // creation kernels it lacks (host_made_kernels.h).
  const std::vector<Device*>& devices() const { return devices_; }
  Device* findDevice(std::string_view name) const;
  Device& addDevice(std::unique_ptr<Device> device);
  // seed/rand/randn/randint; an unseeded state starts from a random seed.
  RandomGenerator& rng() { return rng_; }
  // time()'s clock.
  Clock& clock() { return clock_; }
  ThreadPool& pool() { return pool_; }
  // Frees reference cycles among lists and dicts (cycle_collector.h).
  CycleCollector& cycles() { return cycles_; }
  passes::PassContext& passes() { return passes_; }
  // The LLVM JIT that compiles fused nodes (runtime/jit/jit.h), made on
  // first use: null when turned off, or when the host target cannot be
  // set up (fused nodes then run op by op).
  void setJit(bool on) { jitOn_ = on; }
  jit::Engine* jit();
  // The engine if it was made (asks for nothing).
  jit::Engine* jitIfMade() const { return jit_.get(); }
  // The engine's hooks and cache (set before its first use).
  jit::EngineOptions jitOptions;
  // The device a name that does not exist maps to ("cpu"), with a
  // warning; empty: naming one is an error (--device-fallback).
  std::string deviceFallback;
  // Why each device plugin that was loaded added no device ("PATH: why"),
  // for the error that names a device nothing provides, and for --stats.
  std::vector<std::string> pluginNotes;

 private:
  MemoryCap memoryCap_;  // before the devices that count against it
  CpuDevice cpu_;
  std::vector<std::unique_ptr<Device>> added_;
  std::vector<Device*> devices_;
  RandomGenerator rng_;
  Clock clock_;
  CycleCollector cycles_;
  ThreadPool& pool_;
  passes::PassContext passes_;
  bool jitOn_ = false;
  std::once_flag jitOnce_;
  std::unique_ptr<jit::Engine> jit_;
};

}  // namespace nn::rt
