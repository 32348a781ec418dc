// The device builtins (language.md §7): devices(), device(name), sync(),
// and the one resolution of a device name that every builtin and op taking
// one uses (memory_stats, reset_peak_memory_stats, x.to). `cpu` is `cpu:0`
// and `cuda` is `cuda:0`; a well-formed name that does not exist is a
// located error listing those that do, or, with --device-fallback, the
// fallback device and one warning at that place.
#include <cctype>

#include "ir/builtins.h"
#include "ir/placement.h"
#include "runtime/context.h"
#include "stdlib/builtins.h"

namespace nn::stdlib {

using rt::CallContext;
using rt::Kind;
using rt::Value;

namespace {

// "cpu", "cuda", or either with ":N".
bool wellFormed(const std::string& name) {
  size_t colon = name.find(':');
  std::string kind = name.substr(0, colon);
  if (kind != "cpu" && kind != "cuda") return false;
  if (colon == std::string::npos) return true;
  std::string index = name.substr(colon + 1);
  if (index.empty() || index.size() > 4) return false;
  for (char ch : index)
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
  return true;
}

std::string deviceList(const rt::Context& ctx) {
  std::string names;
  for (const rt::Device* d : ctx.devices()) names += (names.empty() ? "" : ", ") + d->name();
  return names;
}

Value bDevices(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 0);
  std::vector<Value> names;
  for (const rt::Device* d : c.interp.context().devices()) names.push_back(Value::str(d->name()));
  return rt::makeList(std::move(names));
}

Value bDevice(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  if (!args[0].is(Kind::Str)) fail(c.loc, "device(): the name must be a str, not " + std::string(typeName(args[0])));
  return Value::str(deviceNamed(c.interp, args[0].asStr(), c.loc).name());
}

// Every device's queue (or the named device's) runs an empty item: it
// returns once the work submitted before it has finished.
Value bSync(CallContext& c, std::vector<Value>& args) {
  c.keywordsToPositions(args, 0, {{"device", Value::none()}});
  checkArity(c, args, 0, 1);
  if (!args.empty() && !args[0].is(Kind::None)) {
    if (!args[0].is(Kind::Str)) fail(c.loc, "sync(): the device must be a str, not " + std::string(typeName(args[0])));
    deviceNamed(c.interp, args[0].asStr(), c.loc).queue().wait();
    return Value::none();
  }
  for (rt::Device* d : c.interp.context().devices()) d->queue().wait();
  return Value::none();
}

// The allocator of the device named by the optional argument or device=
// keyword (the CPU by default).
rt::Allocator& allocatorArg(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 1);
  const Value* named = c.kw("device");
  if (named && !args.empty()) fail(c.loc, c.name + "() got multiple values for argument 'device'");
  const Value* d = named ? named : args.empty() ? nullptr : &args[0];
  if (d && !d->is(Kind::None)) {
    if (!d->is(Kind::Str)) fail(c.loc, c.name + "(): device must be a str, not " + typeName(*d));
    return deviceNamed(c.interp, d->asStr(), c.loc).allocator();
  }
  return c.interp.context().cpu().allocator();
}

// {"live_bytes": ..., "peak_bytes": ...} of a device's tensor memory:
// readings of the state's clock (clock.h), so that --check eager's eager
// run sees the graph run's.
Value bMemoryStats(CallContext& c, std::vector<Value>& args) {
  rt::Allocator& a = allocatorArg(c, args);
  rt::Clock& clock = c.interp.context().clock();
  auto bytes = [&](size_t live) { return Value::integer(static_cast<int64_t>(clock.reading(static_cast<double>(live)))); };
  Value d = rt::makeDict();
  auto& obj = d.as<rt::DictObj>();
  obj.set("live_bytes", bytes(a.liveBytes()));
  obj.set("peak_bytes", bytes(a.peakBytes()));
  return d;
}

Value bResetPeakMemoryStats(CallContext& c, std::vector<Value>& args) {
  allocatorArg(c, args).resetPeak();
  return Value::none();
}

}  // namespace

rt::Device& deviceNamed(rt::Interpreter& interp, const std::string& name, SourceLoc loc) {
  rt::Context& ctx = interp.context();
  if (!wellFormed(name))
    fail(loc, "invalid device name '" + name + "' (expected cpu, cpu:N or cuda:N)", ErrorClass::ValueError);
  if (rt::Device* d = ctx.findDevice(ir::canonicalDevice(name))) return *d;
  if (!ctx.deviceFallback.empty())
    if (rt::Device* fallback = ctx.findDevice(ctx.deviceFallback)) {
      Diagnostic d;
      d.severity = Severity::Warning;
      d.loc = loc;
      d.message = "device '" + name + "' does not exist; using " + fallback->name() + " (--device-fallback)";
      interp.warnOnce(d);
      return *fallback;
    }
  NnError missing("device '" + name + "' does not exist (devices: " + deviceList(ctx) + ")", loc);
  missing.diag().errorClass = ErrorClass::RuntimeError;
  // Only plugins add cuda devices: say why the ones loaded added none.
  if (name.rfind("cuda", 0) == 0)
    for (const std::string& note : ctx.pluginNotes)
      missing.diag().notes.emplace_back(SourceLoc(), "device plugin " + note);
  throw missing;
}

void addDeviceBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Devices).name] = bDevices;
  table[ir::builtinInfo(ir::Builtin::Device).name] = bDevice;
  table[ir::builtinInfo(ir::Builtin::Sync).name] = bSync;
  table[ir::builtinInfo(ir::Builtin::MemoryStats).name] = bMemoryStats;
  table[ir::builtinInfo(ir::Builtin::ResetPeakMemoryStats).name] = bResetPeakMemoryStats;
}

}  // namespace nn::stdlib
