// The C embedding API's values (include/nn/nn.h): handles over runtime
// values — scalars, strs, tuples and lists, tensors copied in or over the
// host's own memory — the globals of a state's main module, and calls of
// its functions. A handle shares its state's Embedded, so it stays valid
// (and frees its memory correctly) even after the state is freed.
#include <cstring>
#include <limits>
#include <new>
#include <optional>

#include "nn/nn.h"
#include "runtime/tensor_ops.h"
#include "stdlib/embed_state.h"

using nn::embed::Embedded;
using nn::rt::Kind;
using nn::rt::Tensor;
using nn::rt::Value;

namespace {

nn_value* wrap(const std::shared_ptr<Embedded>& owner, Value v) {
  try {
    auto* h = new nn_value;
    h->owner = owner;
    h->value = std::move(v);
    return h;
  } catch (...) {
    return nullptr;
  }
}

nn_value* make(nn_state* state, Value v) {
  if (!state || !state->impl) return nullptr;
  return wrap(state->impl, std::move(v));
}

bool dtypeFrom(nn_dtype d, nn::rt::DType& out) {
  switch (d) {
    case NN_F32: out = nn::rt::DType::F32; return true;
    case NN_F64: out = nn::rt::DType::F64; return true;
    case NN_I32: out = nn::rt::DType::I32; return true;
    case NN_I64: out = nn::rt::DType::I64; return true;
    case NN_BOOL: out = nn::rt::DType::Bool; return true;
  }
  return false;
}

nn_dtype dtypeTo(nn::rt::DType d) {
  switch (d) {
    case nn::rt::DType::F32: return NN_F32;
    case nn::rt::DType::F64: return NN_F64;
    case nn::rt::DType::I32: return NN_I32;
    case nn::rt::DType::I64: return NN_I64;
    case nn::rt::DType::Bool: return NN_BOOL;
  }
  return NN_F32;
}

struct TensorArgs {
  nn::rt::DType dtype = nn::rt::DType::F32;
  nn::rt::Shape dims;
  size_t numel = 1;
};

// A tensor's dtype and dims as the host gave them, checked; nullopt (with
// the state's last error set) when they are wrong.
std::optional<TensorArgs> tensorArgs(Embedded& e, const char* fn, nn_dtype dtype, const int64_t* shape, int ndim) {
  std::string where = std::string(fn) + ": ";
  auto wrong = [&](const std::string& why) {
    e.invalid(where + why);
    return std::nullopt;
  };
  TensorArgs t;
  if (!dtypeFrom(dtype, t.dtype)) return wrong("unknown dtype " + std::to_string(static_cast<int>(dtype)));
  if (ndim < 0 || ndim > 64) return wrong("ndim must be between 0 and 64");
  if (ndim > 0 && !shape) return wrong("no shape (NULL)");
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return wrong("dim " + std::to_string(i) + " is negative");
    t.dims.push_back(shape[i]);
  }
  // At most 8 bytes an element, so the byte count fits a size_t too.
  std::optional<int64_t> numel = nn::rt::checkedNumel(t.dims);
  if (!numel || static_cast<uint64_t>(*numel) > std::numeric_limits<size_t>::max() / 8)
    return wrong("the shape has too many elements");
  t.numel = static_cast<size_t>(*numel);
  return t;
}

// The handles' values must come from this state: another state's tensors
// live in another context's memory.
bool sameState(Embedded& e, const char* fn, const nn_value* v) {
  if (!v) return e.invalid(std::string(fn) + ": no value (NULL)"), false;
  if (v->owner.get() != &e) return e.invalid(std::string(fn) + ": a value of another state"), false;
  return true;
}

nn_value* sequence(nn_state* state, nn_value* const* items, size_t n, bool list) {
  if (!state || !state->impl || (n && !items)) return nullptr;
  try {
    std::vector<Value> vs;
    vs.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (!sameState(*state->impl, list ? "nn_list" : "nn_tuple", items[i])) return nullptr;
      vs.push_back(items[i]->value);
    }
    return make(state, list ? nn::rt::makeList(std::move(vs)) : nn::rt::makeTuple(std::move(vs)));
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

extern "C" {

void nn_value_free(nn_value* value) { delete value; }

nn_kind nn_value_kind(const nn_value* value) {
  if (!value) return NN_KIND_NONE;
  switch (value->value.kind()) {
    case Kind::None: return NN_KIND_NONE;
    case Kind::Bool: return NN_KIND_BOOL;
    case Kind::Int: return NN_KIND_INT;
    case Kind::Float: return NN_KIND_FLOAT;
    case Kind::Str: return NN_KIND_STR;
    case Kind::Tensor: return NN_KIND_TENSOR;
    case Kind::Tuple: return NN_KIND_TUPLE;
    case Kind::List: return NN_KIND_LIST;
    case Kind::Dict: return NN_KIND_DICT;
    case Kind::Function: case Kind::Builtin: case Kind::Method: return NN_KIND_FUNCTION;
    default: return NN_KIND_OTHER;
  }
}

nn_value* nn_value_copy(const nn_value* value) { return value ? wrap(value->owner, value->value) : nullptr; }

const char* nn_value_str(nn_value* value) {
  if (!value) return nullptr;
  try {
    value->text = nn::rt::str(value->value);
    return value->text.c_str();
  } catch (const nn::NnError& err) {
    value->owner->invalid("nn_value_str: " + err.diag().message);
  } catch (...) {
  }
  return nullptr;
}

nn_value* nn_none(nn_state* state) { return make(state, Value::none()); }
nn_value* nn_bool(nn_state* state, int value) { return make(state, Value::boolean(value != 0)); }
nn_value* nn_int(nn_state* state, int64_t value) { return make(state, Value::integer(value)); }
nn_value* nn_float(nn_state* state, double value) { return make(state, Value::real(value)); }

nn_value* nn_str(nn_state* state, const char* text, ptrdiff_t length) {
  if (!state || !text) return nullptr;
  try {
    return make(state, Value::str(length < 0 ? std::string(text) : std::string(text, static_cast<size_t>(length))));
  } catch (...) {
    return nullptr;
  }
}

nn_value* nn_tuple(nn_state* state, nn_value* const* items, size_t n) {
  return sequence(state, items, n, false);
}
nn_value* nn_list(nn_state* state, nn_value* const* items, size_t n) { return sequence(state, items, n, true); }

nn_value* nn_dict(nn_state* state, const char* const* keys, nn_value* const* values, size_t n) {
  if (!state || !state->impl || (n && (!keys || !values))) return nullptr;
  try {
    Value d = nn::rt::makeDict();
    auto& dict = d.as<nn::rt::DictObj>();
    for (size_t i = 0; i < n; ++i) {
      if (!keys[i]) return state->impl->invalid("nn_dict: key " + std::to_string(i) + " is NULL"), nullptr;
      if (!sameState(*state->impl, "nn_dict", values[i])) return nullptr;
      dict.set(keys[i], values[i]->value);
    }
    return make(state, std::move(d));
  } catch (...) {
    return nullptr;
  }
}

size_t nn_dict_size(const nn_value* value) {
  if (!value || !value->value.is(Kind::Dict)) return 0;
  return value->value.as<nn::rt::DictObj>().items.size();
}

const char* nn_dict_key(const nn_value* value, size_t i) {
  if (i >= nn_dict_size(value)) return nullptr;
  return value->value.as<nn::rt::DictObj>().items[i].first.c_str();
}

nn_value* nn_dict_value(const nn_value* value, size_t i) {
  if (i >= nn_dict_size(value)) return nullptr;
  return wrap(value->owner, value->value.as<nn::rt::DictObj>().items[i].second);
}

nn_value* nn_dict_get(const nn_value* value, const char* key) {
  if (!key || !value || !value->value.is(Kind::Dict)) return nullptr;
  try {
    const Value* v = value->value.as<nn::rt::DictObj>().find(key);
    return v ? wrap(value->owner, *v) : nullptr;
  } catch (...) {
    return nullptr;
  }
}

nn_status nn_get_bool(const nn_value* value, int* out) {
  if (!value || !out || !value->value.is(Kind::Bool)) return NN_INVALID_ARGUMENT;
  *out = value->value.asBool() ? 1 : 0;
  return NN_OK;
}

nn_status nn_get_int(const nn_value* value, int64_t* out) {
  if (!value || !out || !value->value.isIntLike()) return NN_INVALID_ARGUMENT;
  *out = value->value.asInt();
  return NN_OK;
}

nn_status nn_get_float(const nn_value* value, double* out) {
  if (!value || !out || !value->value.isNumber()) return NN_INVALID_ARGUMENT;
  *out = value->value.asFloat();
  return NN_OK;
}

const char* nn_get_str(const nn_value* value, size_t* length) {
  if (!value || !value->value.is(Kind::Str)) return nullptr;
  const std::string& s = value->value.asStr();
  if (length) *length = s.size();
  return s.c_str();
}

size_t nn_sequence_size(const nn_value* value) {
  if (!value || !(value->value.is(Kind::Tuple) || value->value.is(Kind::List))) return 0;
  return value->value.as<nn::rt::SeqObj>().items.size();
}

nn_value* nn_sequence_item(const nn_value* value, size_t i) {
  if (i >= nn_sequence_size(value)) return nullptr;
  return wrap(value->owner, value->value.as<nn::rt::SeqObj>().items[i]);
}

nn_status nn_get_global(nn_state* state, const char* name, nn_value** out) {
  return nn::embed::guardedEntry(state, [&](Embedded& e) {
    if (!name || !out) return e.invalid("nn_get_global: no name or no place for the result (NULL)");
    *out = nullptr;
    const Value* v = e.state().global(name);
    if (!v || v->is(Kind::Undef)) {
      nn::Error err;
      err.message = "name '" + std::string(name) + "' is not defined";
      err.diagnostic.message = err.message;
      err.diagnostic.errorClass = nn::ErrorClass::NameError;
      return e.fail(err, NN_ERROR);
    }
    *out = wrap(state->impl, *v);
    if (!*out) return NN_OUT_OF_MEMORY;
    e.clearError();
    return NN_OK;
  });
}

nn_status nn_set_global(nn_state* state, const char* name, const nn_value* value) {
  return nn::embed::guardedEntry(state, [&](Embedded& e) {
    if (!name || !*name) return e.invalid("nn_set_global: no name");
    if (!sameState(e, "nn_set_global", value)) return NN_INVALID_ARGUMENT;
    // Compiled code binds the functions it calls (runtime/compile_cache.h)
    // and checks those bindings as each call starts: a global rebound in
    // the middle of a run could go unseen.
    if (e.running())
      return e.invalid("nn_set_global: the state is running (a host function may make and read values, not rebind globals)");
    e.state().setGlobal(name, value->value);
    e.clearError();
    return NN_OK;
  });
}

nn_status nn_call(nn_state* state, const nn_value* function, nn_value* const* args, size_t nargs,
                  nn_value** result) {
  return nn_call_kw(state, function, args, nargs, nullptr, nullptr, 0, result);
}

nn_status nn_call_kw(nn_state* state, const nn_value* function, nn_value* const* args, size_t nargs,
                     const char* const* kwnames, nn_value* const* kwargs, size_t nkw, nn_value** result) {
  return nn::embed::guardedEntry(state, [&](Embedded& e) {
    if (result) *result = nullptr;
    if (!sameState(e, "nn_call", function)) return NN_INVALID_ARGUMENT;
    if (nargs && !args) return e.invalid("nn_call: no arguments (NULL) for nargs > 0");
    if (nkw && (!kwnames || !kwargs)) return e.invalid("nn_call_kw: no keyword names or values (NULL) for nkw > 0");
    std::vector<Value> in, kwin;
    std::vector<std::string> names;
    in.reserve(nargs);
    for (size_t i = 0; i < nargs; ++i) {
      if (!sameState(e, "nn_call", args[i])) return NN_INVALID_ARGUMENT;
      in.push_back(args[i]->value);
    }
    for (size_t i = 0; i < nkw; ++i) {
      if (!kwnames[i]) return e.invalid("nn_call_kw: keyword name " + std::to_string(i) + " is NULL");
      if (!sameState(e, "nn_call_kw", kwargs[i])) return NN_INVALID_ARGUMENT;
      names.emplace_back(kwnames[i]);
      kwin.push_back(kwargs[i]->value);
    }
    Value out;
    nn_status st =
        e.run([&] { return e.state().call(function->value, std::move(in), names, std::move(kwin), out); });
    if (st == NN_OK && result) {
      *result = wrap(state->impl, std::move(out));
      if (!*result) return NN_OUT_OF_MEMORY;
    }
    return st;
  });
}

nn_status nn_call_global(nn_state* state, const char* name, nn_value* const* args, size_t nargs,
                         nn_value** result) {
  if (!state || !state->impl) return NN_INVALID_ARGUMENT;
  if (!name) return state->impl->invalid("nn_call_global: no name (NULL)");
  const Value* fn = state->impl->state().global(name);
  if (!fn || fn->is(Kind::Undef)) {  // nn_get_global's NameError
    nn_value* none = nullptr;
    return nn_get_global(state, name, &none);
  }
  // A handle on the stack: the call reads the function, owns nothing of it.
  nn_value function;
  function.owner = state->impl;
  function.value = *fn;
  return nn_call(state, &function, args, nargs, result);
}

nn_value* nn_tensor_copy(nn_state* state, nn_dtype dtype, const int64_t* shape, int ndim, const void* data) {
  if (!state || !state->impl) return nullptr;
  Embedded& e = *state->impl;
  try {
    std::optional<TensorArgs> a = tensorArgs(e, "nn_tensor_copy", dtype, shape, ndim);
    if (!a) return nullptr;
    if (a->numel && !data) return e.invalid("nn_tensor_copy: no data (NULL)"), nullptr;
    Tensor t = Tensor::empty(a->dtype, a->dims, e.state().context().cpu());
    if (a->numel) std::memcpy(t.bytes(), data, a->numel * nn::rt::dtypeSize(a->dtype));
    e.clearError();
    return make(state, nn::rt::makeTensorValue(std::move(t)));
  } catch (const nn::rt::MemoryLimitExceeded& err) {
    e.invalid(std::string("nn_tensor_copy: ") + err.what(), NN_OUT_OF_MEMORY);
  } catch (const std::bad_alloc&) {
    e.invalid("nn_tensor_copy: out of memory", NN_OUT_OF_MEMORY);
  } catch (...) {
  }
  return nullptr;
}

nn_value* nn_tensor_wrap(nn_state* state, nn_dtype dtype, const int64_t* shape, int ndim, void* data,
                         void (*release)(void*), void* release_context) {
  if (!state || !state->impl) return nullptr;
  Embedded& e = *state->impl;
  try {
    std::optional<TensorArgs> a = tensorArgs(e, "nn_tensor_wrap", dtype, shape, ndim);
    if (!a) return nullptr;
    if (!data) return e.invalid("nn_tensor_wrap: no data (NULL)"), nullptr;
    if (reinterpret_cast<uintptr_t>(data) % nn::rt::dtypeSize(a->dtype))
      return e.invalid("nn_tensor_wrap: data is not aligned to its dtype's size"), nullptr;
    // The handle is made first: a failure after the tensor owns `data`
    // would call `release` for memory the host still thinks it owns.
    nn_value* h = make(state, Value::none());
    if (!h) return nullptr;
    h->value = nn::rt::makeTensorValue(Tensor::borrow(a->dtype, a->dims, data, e.state().context().cpu(), release,
                                                      release_context));
    e.clearError();
    return h;
  } catch (...) {
    e.invalid("nn_tensor_wrap: out of memory", NN_OUT_OF_MEMORY);
  }
  return nullptr;
}

nn_status nn_tensor_info(const nn_value* tensor, nn_dtype* dtype, int* ndim, const int64_t** shape) {
  if (!tensor || !tensor->value.is(Kind::Tensor)) return NN_INVALID_ARGUMENT;
  const Tensor& t = nn::rt::tensorOf(tensor->value);
  if (dtype) *dtype = dtypeTo(t.dtype());
  if (ndim) *ndim = t.ndim();
  if (shape) {
    auto& dims = const_cast<nn_value*>(tensor)->shape;
    dims.assign(t.shape().begin(), t.shape().end());
    *shape = dims.data();
  }
  return NN_OK;
}

const void* nn_tensor_data(nn_value* tensor) {
  if (!tensor || !tensor->value.is(Kind::Tensor)) return nullptr;
  const Tensor& t = nn::rt::tensorOf(tensor->value);
  try {
    if (t.device().hostMemory() && t.isContiguous()) return t.bytes();
    if (!tensor->haveReadable) {
      tensor->readable = nn::rt::readableOnHost(t, {}).contiguous();
      tensor->haveReadable = true;
    }
    return tensor->readable.bytes();
  } catch (const nn::NnError& err) {
    tensor->owner->invalid("nn_tensor_data: " + err.diag().message);
  } catch (...) {
    tensor->owner->invalid("nn_tensor_data: out of memory", NN_OUT_OF_MEMORY);
  }
  return nullptr;
}

int64_t nn_tensor_numel(const nn_value* tensor) {
  if (!tensor || !tensor->value.is(Kind::Tensor)) return 0;
  return nn::rt::tensorOf(tensor->value).numel();
}

size_t nn_tensor_nbytes(const nn_value* tensor) {
  if (!tensor || !tensor->value.is(Kind::Tensor)) return 0;
  const Tensor& t = nn::rt::tensorOf(tensor->value);
  return static_cast<size_t>(t.numel()) * nn::rt::dtypeSize(t.dtype());
}

}  // extern "C"
