// The per-state runtime context (see context.h).
#include "runtime/context.h"

#include <random>
#include <stdexcept>

#include "runtime/constant_eval.h"
#include "runtime/host_made_kernels.h"

namespace nn::rt {

Context::Context(ThreadPool& pool)
    : rng_((uint64_t(std::random_device{}()) << 32) | std::random_device{}()),
      pool_(pool),
      passes_{constantEvaluator(), {}} {
  cpu_.allocator().setCap(&memoryCap_);
  devices_.push_back(&cpu_);
}

Context::~Context() = default;

jit::Engine* Context::jit() {
  if (!jitOn_) return nullptr;
  std::call_once(jitOnce_, [this] { jit_ = jit::Engine::create(jitOptions); });
  return jit_.get();
}

Device* Context::findDevice(std::string_view name) const {
  for (Device* d : devices_)
    if (d->name() == name) return d;
  return nullptr;
}

Device& Context::addDevice(std::unique_ptr<Device> device) {
  if (!device) throw std::invalid_argument("no device to register");
  if (findDevice(device->name())) throw std::invalid_argument("a device named '" + device->name() + "' exists already");
  device->setHost(cpu_);
  // The logical CPUs' memory is the host's: it counts against the cap.
  if (auto* worker = dynamic_cast<WorkerCpuDevice*>(device.get())) worker->allocator().setCap(&memoryCap_);
  // Creation ops the device cannot run itself are made on the host.
  if (!device->hostMemory()) device->extendKernels(addHostMadeKernels);
  devices_.push_back(device.get());
  added_.push_back(std::move(device));
  return *devices_.back();
}

}  // namespace nn::rt
