// Host functions of the C embedding API (include/nn/nn.h): a host
// application's callback registered under a name. The front end resolves
// the name to the op host_function {name}, whose value is a builtin object
// carrying the callback; a call of it is an effect (passes/effects.cpp), so
// graph mode keeps host calls in program order and never merges, drops or
// moves them (tests: EmbedApi.*Host*, tests/ir/host_function_effects.ir).
#include <memory>
#include <string>
#include <vector>

#include "nn/nn.h"
#include "runtime/interpreter.h"
#include "stdlib/embed_state.h"
#include "support/error_class.h"

using nn::embed::Embedded;
using nn::rt::Value;

namespace {

struct HostFunctionObj : nn::rt::BuiltinObj {
  nn_host_fn callback = nullptr;
  void* context = nullptr;
  // The state's; the function lives in its globals or in a handle that
  // keeps the state alive.
  Embedded* owner = nullptr;
};

struct Handles {
  std::vector<nn_value*> items;
  ~Handles() {
    for (nn_value* h : items) nn_value_free(h);
  }
};

Value callHost(nn::rt::CallContext& ctx, std::vector<Value>& args) {
  const auto& host = static_cast<const HostFunctionObj&>(*ctx.builtin);
  Embedded& e = *host.owner;
  std::shared_ptr<Embedded> keep = e.shared_from_this();
  Handles in;
  in.items.reserve(args.size());
  for (Value& a : args) {
    auto* h = new nn_value;
    h->owner = keep;
    h->value = a;
    in.items.push_back(h);
  }
  nn_value* out = nullptr;
  e.raised = Embedded::Raised{};
  nn_status status = NN_ERROR;
  try {
    status = host.callback(host.context, e.handle, in.items.data(), in.items.size(), &out);
  } catch (...) {
    nn::fail(ctx.loc, "host function " + host.name + "() threw a C++ exception");
  }
  std::unique_ptr<nn_value, void (*)(nn_value*)> result(out, nn_value_free);
  if (status != NN_OK) {
    Embedded::Raised raised = std::move(e.raised);
    e.raised = Embedded::Raised{};
    std::string message = raised.set ? raised.message
                                     : "host function " + host.name + "() failed with status " + std::to_string(status);
    nn::ErrorClass c = nn::errorClassNamed(raised.type).value_or(nn::ErrorClass::RuntimeError);
    nn::fail(ctx.loc, message, c);
  }
  if (!result) return Value::none();
  if (result->owner.get() != &e)
    nn::fail(ctx.loc, "host function " + host.name + "() returned a value of another state");
  return result->value;
}

}  // namespace

extern "C" {

nn_status nn_register_function(nn_state* state, const char* name, nn_host_fn fn, void* context) {
  if (!state || !state->impl) return NN_INVALID_ARGUMENT;
  Embedded& e = *state->impl;
  if (!name || !*name || !fn) return e.invalid("nn_register_function: no name or no function (NULL)");
  try {
    auto obj = std::make_shared<HostFunctionObj>();
    obj->name = name;
    obj->fn = callHost;
    obj->keywords = "";  // the C callback has positional arguments only
    obj->callback = fn;
    obj->context = context;
    obj->owner = &e;
    e.state().registerHostFunction(name, Value::object(nn::rt::Kind::Builtin, std::move(obj)));
    e.clearError();
    return NN_OK;
  } catch (...) {
    return e.invalid("nn_register_function: out of memory", NN_OUT_OF_MEMORY);
  }
}

nn_status nn_raise(nn_state* state, const char* type, const char* message) {
  if (!state || !state->impl) return NN_INVALID_ARGUMENT;
  try {
    Embedded::Raised& r = state->impl->raised;
    r.set = true;
    r.type = type ? type : "RuntimeError";
    r.message = message ? message : "";
    return NN_OK;
  } catch (...) {
    return NN_OUT_OF_MEMORY;
  }
}

}  // extern "C"
