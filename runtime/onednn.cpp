// CPU kernels backed by oneDNN 2.x (the only file that includes it): matmul
// (batched, with broadcast batch dimensions) and softmax / log-softmax for
// f32. Primitives are cached by their descriptors so repeated calls with the
// same shapes do not re-create (and re-JIT) them. f64 and integer inputs use
// the reference loops in nn_ops.cpp, which the tests also use as oracles.
#include <oneapi/dnnl/dnnl.hpp>

#include <list>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "runtime/nn_ops.h"

namespace nn::rt {
namespace {

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream& stream() {
  static dnnl::stream s(engine());
  return s;
}

dnnl::memory::dims toDims(const Shape& s) { return dnnl::memory::dims(s.begin(), s.end()); }

// An LRU cache of primitives keyed by a text form of their descriptors.
class PrimitiveCache {
 public:
  template <class Make>
  dnnl::primitive& get(const std::string& key, Make make) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second;
    }
    order_.emplace_front(key, make());
    index_[key] = order_.begin();
    if (order_.size() > kCapacity) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }
  size_t size() const { return order_.size(); }

 private:
  // Enough for the distinct shapes of a typical model; each entry holds
  // JIT-compiled code, so the cache is bounded.
  static constexpr size_t kCapacity = 512;
  std::mutex mutex_;
  std::list<std::pair<std::string, dnnl::primitive>> order_;
  std::unordered_map<std::string, std::list<std::pair<std::string, dnnl::primitive>>::iterator> index_;
};

PrimitiveCache& cache() {
  static PrimitiveCache c;
  return c;
}

std::string key(const char* kind, std::initializer_list<const Shape*> shapes, int extra = 0) {
  std::ostringstream os;
  os << kind << ':' << extra;
  for (const Shape* s : shapes) {
    os << '|';
    for (int64_t d : *s) os << d << ',';
  }
  return os.str();
}

// Plain strides oneDNN can read directly; anything else is copied first.
bool plainStrides(const Tensor& t) {
  for (size_t i = 0; i < t.strides().size(); ++i)
    if (t.strides()[i] <= 0 && t.shape()[i] != 1) return false;
  return true;
}

}  // namespace

size_t onednnCachedPrimitives() { return cache().size(); }

// a: [..., M, K], b: [..., K, N], same rank, batch dims equal or 1.
void onednnMatmul(const Tensor& a0, const Tensor& b0, Tensor& out) {
  Tensor a = plainStrides(a0) ? a0 : a0.contiguous();
  Tensor b = plainStrides(b0) ? b0 : b0.contiguous();
  // A stride for a size-1 dimension is irrelevant; give oneDNN a valid one.
  auto strides = [](const Tensor& t) {
    Shape s = t.strides();
    for (size_t i = 0; i < s.size(); ++i)
      if (t.shape()[i] == 1) s[i] = i + 1 < s.size() ? s[i + 1] * t.shape()[i + 1] : 1;
    return s;
  };
  Shape as = strides(a), bs = strides(b);
  using dt = dnnl::memory::data_type;
  dnnl::memory::desc amd(toDims(a.shape()), dt::f32, toDims(as));
  dnnl::memory::desc bmd(toDims(b.shape()), dt::f32, toDims(bs));
  dnnl::memory::desc cmd(toDims(out.shape()), dt::f32, toDims(out.strides()));
  std::string k = key("matmul", {&a.shape(), &as, &b.shape(), &bs, &out.shape()});
  dnnl::primitive& prim = cache().get(k, [&] {
    return dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(amd, bmd, cmd), engine()));
  });
  dnnl::memory am(amd, engine(), a.data<float>());
  dnnl::memory bm(bmd, engine(), b.data<float>());
  dnnl::memory cm(cmd, engine(), out.data<float>());
  prim.execute(stream(), {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  stream().wait();
}

// Softmax or log-softmax of a contiguous f32 tensor along `axis`.
void onednnSoftmax(const Tensor& x, int axis, bool log, Tensor& out) {
  using dt = dnnl::memory::data_type;
  dnnl::memory::desc md(toDims(x.shape()), dt::f32, toDims(x.strides()));
  std::string k = key(log ? "logsoftmax" : "softmax", {&x.shape()}, axis);
  dnnl::primitive& prim = cache().get(k, [&]() -> dnnl::primitive {
    if (log)
      return dnnl::logsoftmax_forward(dnnl::logsoftmax_forward::primitive_desc(
          dnnl::logsoftmax_forward::desc(dnnl::prop_kind::forward_inference, md, axis), engine()));
    return dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, axis), engine()));
  });
  dnnl::memory src(md, engine(), x.data<float>());
  dnnl::memory dst(md, engine(), out.data<float>());
  prim.execute(stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  stream().wait();
}

}  // namespace nn::rt
