// The CPU's f32 kernels backed by oneDNN 2.x (the only file that includes
// it): matmul (batched, with broadcast batch dimensions), conv2d and its
// two gradients, and layer norm;
// kernels_cpu_nn.cpp and kernels_cpu_conv.cpp register them. Primitives are
// cached by their descriptors, per device (Device::kernelState), so
// repeated calls with the same shapes do not re-create (and re-JIT) them
// and two interpreter states share no cache.
// The engine is one immutable handle for the process.
#include <oneapi/dnnl/dnnl.hpp>

#include <omp.h>

#include <cstdlib>
#include <list>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "runtime/device.h"
#include "runtime/nn_ops.h"

namespace nn::rt {
namespace {

// Never destroyed: the thread pool's per-thread streams refer to it until
// the pool's threads end, which may be after static destructors ran.
// oneDNN's own process-wide primitive cache is switched off here, before
// any thread creates a primitive: the per-device caches below already keep
// primitives, and the global one would share them between devices and
// states. Its lookups also compare keys that point into primitives
// another thread is still publishing (ThreadSanitizer reports it as soon
// as two devices' threads create their first matmul together).
dnnl::engine& engine() {
  static dnnl::engine* e = [] {
    auto* made = new dnnl::engine(dnnl::engine::kind::cpu, 0);
    dnnl::set_primitive_cache_capacity(0);
    return made;
  }();
  return *e;
}

// One stream per thread: the graph executor runs primitives from several.
dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

dnnl::memory::dims toDims(const Shape& s) { return dnnl::memory::dims(s.begin(), s.end()); }

// oneDNN forks its OpenMP team for every primitive it runs. For a small
// problem the fork and join cost more than the work (on two cores, a
// log_softmax of [8, 4], when oneDNN computed it, took tens of thousands of
// instructions of waking and spinning), so one runs on the calling thread alone: its thread count
// is 1 for the call, which also keys the primitive (see key()). Small
// means fewer elements than nn's own loops start sharing between cores
// for (kParallelThreshold), or for a convolution fewer multiply-adds than
// the small matmul loop takes on (64x64x64).
class OneThreadIfSmall {
 public:
  explicit OneThreadIfSmall(bool small) : saved_(small ? omp_get_max_threads() : 1) {
    if (saved_ > 1) omp_set_num_threads(1);
  }
  ~OneThreadIfSmall() {
    if (saved_ > 1) omp_set_num_threads(saved_);
  }
  OneThreadIfSmall(const OneThreadIfSmall&) = delete;
  OneThreadIfSmall& operator=(const OneThreadIfSmall&) = delete;

 private:
  int saved_;
};
constexpr int64_t kSmallConvolution = 64 * 64 * 64;
bool smallConvolution(const Tensor& y, const Shape& w) {
  int64_t perOutput = 1;
  for (size_t d = 1; d < w.size(); ++d) perOutput *= w[d];
  return y.numel() * perOutput < kSmallConvolution;
}

// A primitive with the scratchpad it needs. Scratchpads are the caller's
// (scratchpad_mode::user): oneDNN's own library-managed scratchpad may be
// shared between primitives, and the graph executor runs primitives on
// several threads at once.
// Arguments in `relaid` are kept by the primitive in a layout of its own
// choosing (a convolution's blocked nChw16c, say): run() reorders them from
// nn's plain layout before it and, for results, back after it.
struct Primitive {
  dnnl::primitive prim;
  dnnl::memory::desc scratchpad;
  struct Relaid {
    int arg;
    dnnl::memory::desc plain, chosen;
    dnnl::reorder convert;  // plain -> chosen for an operand, chosen -> plain for a result
    dnnl::memory::desc convertScratchpad;
    bool result;
  };
  std::vector<Relaid> relaid;  // at most kMaxRelaid
};
constexpr size_t kMaxRelaid = 3;

// Creates the primitive of type Prim for an op descriptor, with the
// post-ops that follow it in the same pass over its output.
template <class Prim, class Desc>
Primitive build(const Desc& d, const dnnl::post_ops& post = dnnl::post_ops()) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_post_ops(post);
  typename Prim::primitive_desc pd(d, attr, engine());
  return {Prim(pd), pd.scratchpad_desc(), {}};
}

// A reusable buffer of this thread's, aligned for vector loads.
class ThreadBuffer {
 public:
  void* reserve(size_t bytes) {
    if (bytes > size_) {
      data_.reset(static_cast<char*>(std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign)));
      if (!data_) throw std::bad_alloc();
      size_ = bytes;
    }
    return data_.get();
  }

 private:
  static constexpr size_t kAlign = 64;
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data_;
  size_t size_ = 0;
};

// Runs a primitive on this thread's stream with a scratchpad of this
// thread, converting the relaid arguments around it. The conversions run
// before or after the primitive on this in-order stream, so they share
// its scratchpad buffer.
void run(const Primitive& p, std::unordered_map<int, dnnl::memory> args) {
  thread_local ThreadBuffer scratch;
  thread_local ThreadBuffer relaidBuffers[kMaxRelaid];
  size_t bytes = p.scratchpad.get_size();
  for (const Primitive::Relaid& r : p.relaid) bytes = std::max(bytes, r.convertScratchpad.get_size());
  void* pad = bytes > 0 ? scratch.reserve(bytes) : nullptr;
  if (p.scratchpad.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(p.scratchpad, engine(), pad));
  auto convert = [&](const Primitive::Relaid& r, const dnnl::memory& from, const dnnl::memory& to) {
    std::unordered_map<int, dnnl::memory> a{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    if (r.convertScratchpad.get_size() > 0)
      a.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(r.convertScratchpad, engine(), pad));
    r.convert.execute(stream(), a);
  };
  std::vector<dnnl::memory> plain(p.relaid.size());
  for (size_t i = 0; i < p.relaid.size(); ++i) {
    const Primitive::Relaid& r = p.relaid[i];
    dnnl::memory chosen(r.chosen, engine(), relaidBuffers[i].reserve(r.chosen.get_size()));
    plain[i] = args.at(r.arg);
    if (!r.result) convert(r, plain[i], chosen);
    args[r.arg] = chosen;
  }
  p.prim.execute(stream(), args);
  for (size_t i = 0; i < p.relaid.size(); ++i)
    if (p.relaid[i].result) convert(p.relaid[i], args[p.relaid[i].arg], plain[i]);
  stream().wait();
}

// Lets the primitive of `pd` keep each of `plain` (argument, nn's layout)
// in the layout it chose for it, when that is another.
template <class Prim, class PrimitiveDesc>
Primitive withChosenLayouts(const PrimitiveDesc& pd, std::initializer_list<std::pair<int, dnnl::memory::desc>> plain,
                            int result) {
  Primitive p{Prim(pd), pd.scratchpad_desc(), {}};
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  for (const auto& [arg, md] : plain) {
    dnnl::memory::desc chosen = pd.query_md(dnnl::query::exec_arg_md, arg);
    if (chosen == md) continue;
    bool isResult = arg == result;
    auto convert = isResult ? dnnl::reorder::primitive_desc(engine(), chosen, engine(), md, attr)
                            : dnnl::reorder::primitive_desc(engine(), md, engine(), chosen, attr);
    p.relaid.push_back({arg, md, chosen, dnnl::reorder(convert), convert.scratchpad_desc(), isResult});
  }
  return p;
}

// An LRU cache of primitives keyed by a text form of their descriptors,
// one per device (so per interpreter state). get() returns a copy (primitives are reference-counted handles), so an
// eviction by another thread cannot pull one from under its user.
class PrimitiveCache final : public KernelState {
 public:
  template <class Make>
  Primitive get(const std::string& key, Make make) {
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
  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return order_.size();
  }

 private:
  // Enough for the distinct shapes of a typical model; each entry holds
  // JIT-compiled code, so the cache is bounded.
  static constexpr size_t kCapacity = 512;
  std::mutex mutex_;
  std::list<std::pair<std::string, Primitive>> order_;
  std::unordered_map<std::string, std::list<std::pair<std::string, Primitive>>::iterator> index_;
};

// The cache of the device that holds the result.
PrimitiveCache& cache(const Tensor& out) { return out.device().kernelState<PrimitiveCache>(); }

// Primitives are planned for the thread count they will run with: the
// executor's workers run single-threaded (thread_pool.h).
std::string key(const char* kind, std::initializer_list<const Shape*> shapes, int extra = 0) {
  std::ostringstream os;
  os << kind << ':' << extra << '@' << omp_get_max_threads();
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

size_t onednnCachedPrimitives(const Device& device) { return device.kernelState<PrimitiveCache>().size(); }

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
  Primitive prim = cache(out).get(k, [&] { return build<dnnl::matmul>(dnnl::matmul::desc(amd, bmd, cmd)); });
  dnnl::memory am(amd, engine(), a.data<float>());
  dnnl::memory bm(bmd, engine(), b.data<float>());
  dnnl::memory cm(cmd, engine(), out.data<float>());
  run(prim, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
}

// out [M, N] = x [M, K] @ w [N, K].T, then + bias [N], as one matmul whose
// bias add is a post-op applied to each output tile as it is made: the same
// f32 operations as the two kernels, one pass over the result. The bias is
// a binary post-op, not matmul's own bias argument, which may enter the
// accumulation and round differently. (oneDNN's relu post-op is not used:
// it maps NaN to 0 and gives -0.0 for negatives and NaN for -inf, where
// nn's relu, as PyTorch's, keeps NaN and gives +0.0.)
void onednnLinear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out) {
  using dt = dnnl::memory::data_type;
  int64_t m = x.dim(0), k = x.dim(1), n = w.dim(0);
  dnnl::memory::desc xmd({m, k}, dt::f32, {k, 1});
  // w [N, K] read as [K, N] in place, whichever of the two is row-major.
  dnnl::memory::desc wmd({k, n}, dt::f32, {w.strides()[1], w.strides()[0]});
  dnnl::memory::desc omd({m, n}, dt::f32, {n, 1});
  dnnl::memory::desc bmd({1, n}, dt::f32, {n, 1});
  Shape none;
  std::string key_ = key("linear", {&x.shape(), &w.shape(), &w.strides(), bias ? &bias->shape() : &none});
  Primitive prim = cache(out).get(key_, [&] {
    dnnl::post_ops post;
    if (bias) post.append_binary(dnnl::algorithm::binary_add, bmd);
    return build<dnnl::matmul>(dnnl::matmul::desc(xmd, wmd, omd), post);
  });
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, dnnl::memory(xmd, engine(), x.data<float>())},
                                             {DNNL_ARG_WEIGHTS, dnnl::memory(wmd, engine(), w.data<float>())},
                                             {DNNL_ARG_DST, dnnl::memory(omd, engine(), out.data<float>())}};
  if (bias)
    args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, dnnl::memory(bmd, engine(), bias->data<float>()));
  run(prim, args);
}

}  // namespace nn::rt

namespace nn::rt {

namespace {

// One convolution's memory descriptors (plain NCHW / OIHW, or GOIHW with
// groups) and geometry, shared by its forward and backward primitives.
// Their primitives are made for layouts of oneDNN's choosing (`anyX` ...):
// on NCHW it has only a generic im2col + GEMM convolution, 2-4x slower
// than its direct kernels over channel-blocked layouts on the CNN
// benchmark's shapes even with the conversions to and from them.
struct ConvGeometry {
  dnnl::memory::desc x, w, y;
  dnnl::memory::desc anyX, anyW, anyY;
  dnnl::memory::dims strides, dilation, padding;
  Shape params;  // for cache keys

  ConvGeometry(const Shape& xs, const Shape& ws, const Shape& ys, const ConvParams& p)
      : strides{p.strideH, p.strideW}, dilation{p.dilH - 1, p.dilW - 1}, padding{p.padH, p.padW} {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    Shape wdims = ws;
    if (p.groups > 1) wdims = {p.groups, ws[0] / p.groups, ws[1], ws[2], ws[3]};
    x = dnnl::memory::desc(toDims(xs), dt::f32, tag::nchw);
    w = dnnl::memory::desc(toDims(wdims), dt::f32, p.groups > 1 ? tag::goihw : tag::oihw);
    y = dnnl::memory::desc(toDims(ys), dt::f32, tag::nchw);
    anyX = dnnl::memory::desc(toDims(xs), dt::f32, tag::any);
    anyW = dnnl::memory::desc(toDims(wdims), dt::f32, tag::any);
    anyY = dnnl::memory::desc(toDims(ys), dt::f32, tag::any);
    params = {p.strideH, p.strideW, p.padH, p.padW, p.dilH, p.dilW, p.groups};
  }

  // The forward primitive's descriptor for training, which the backward
  // primitives take as their hint.
  dnnl::convolution_forward::primitive_desc trainingHint() const {
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, anyX,
                                      anyW, anyY, strides, dilation, padding, padding);
    return dnnl::convolution_forward::primitive_desc(d, engine());
  }
};

// Creates a backward primitive of type Prim from its descriptor and the
// forward primitive's, with a scratchpad of the caller's (see build), in
// the layouts it chooses for `plain`'s arguments.
template <class Prim, class Desc, class Hint>
Primitive buildBackward(const Desc& d, const Hint& hint,
                        std::initializer_list<std::pair<int, dnnl::memory::desc>> plain, int result) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  typename Prim::primitive_desc pd(d, attr, engine(), hint);
  return withChosenLayouts<Prim>(pd, plain, result);
}

dnnl::memory memoryOf(const dnnl::memory::desc& md, const Tensor& t) {
  return dnnl::memory(md, engine(), t.data<float>());
}

}  // namespace

// NCHW convolution; w is [OC, IC/groups, KH, KW]; bias may be null.
void onednnConv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out) {
  OneThreadIfSmall threads(smallConvolution(out, w.shape()));
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  ConvGeometry c(x.shape(), w.shape(), out.shape(), p);
  Shape bshape = bias ? bias->shape() : Shape{};
  std::string k = key("conv2d", {&x.shape(), &w.shape(), &bshape, &c.params});
  dnnl::memory::desc bmd({out.dim(1)}, dt::f32, tag::a);
  Primitive prim = cache(out).get(k, [&] {
    auto alg = dnnl::algorithm::convolution_direct;
    auto kind = dnnl::prop_kind::forward_inference;
    auto d = bias ? dnnl::convolution_forward::desc(kind, alg, c.anyX, c.anyW, bmd, c.anyY, c.strides, c.dilation,
                                                    c.padding, c.padding)
                  : dnnl::convolution_forward::desc(kind, alg, c.anyX, c.anyW, c.anyY, c.strides, c.dilation,
                                                    c.padding, c.padding);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::convolution_forward::primitive_desc pd(d, attr, engine());
    return withChosenLayouts<dnnl::convolution_forward>(
        pd, {{DNNL_ARG_SRC, c.x}, {DNNL_ARG_WEIGHTS, c.w}, {DNNL_ARG_DST, c.y}}, DNNL_ARG_DST);
  });
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, memoryOf(c.x, x)}, {DNNL_ARG_WEIGHTS, memoryOf(c.w, w)}, {DNNL_ARG_DST, memoryOf(c.y, out)}};
  if (bias) args.emplace(DNNL_ARG_BIAS, memoryOf(bmd, *bias));
  run(prim, args);
}

// The gradient g of conv2d(dx's shape, w) with respect to its input.
void onednnConv2dGradInput(const Tensor& g, const Tensor& w, const ConvParams& p, Tensor& dx) {
  OneThreadIfSmall threads(smallConvolution(g, w.shape()));
  ConvGeometry c(dx.shape(), w.shape(), g.shape(), p);
  std::string k = key("conv2d_grad_input", {&dx.shape(), &w.shape(), &c.params});
  Primitive prim = cache(dx).get(k, [&] {
    return buildBackward<dnnl::convolution_backward_data>(
        dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, c.anyX, c.anyW, c.anyY, c.strides,
                                              c.dilation, c.padding, c.padding),
        c.trainingHint(), {{DNNL_ARG_DIFF_DST, c.y}, {DNNL_ARG_WEIGHTS, c.w}, {DNNL_ARG_DIFF_SRC, c.x}},
        DNNL_ARG_DIFF_SRC);
  });
  run(prim, {{DNNL_ARG_DIFF_DST, memoryOf(c.y, g)}, {DNNL_ARG_WEIGHTS, memoryOf(c.w, w)},
             {DNNL_ARG_DIFF_SRC, memoryOf(c.x, dx)}});
}

// The gradient g of conv2d(x, dw's shape) with respect to its weight.
void onednnConv2dGradWeight(const Tensor& g, const Tensor& x, const ConvParams& p, Tensor& dw) {
  OneThreadIfSmall threads(smallConvolution(g, dw.shape()));
  ConvGeometry c(x.shape(), dw.shape(), g.shape(), p);
  std::string k = key("conv2d_grad_weight", {&x.shape(), &dw.shape(), &c.params});
  Primitive prim = cache(dw).get(k, [&] {
    return buildBackward<dnnl::convolution_backward_weights>(
        dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, c.anyX, c.anyW, c.anyY,
                                                 c.strides, c.dilation, c.padding, c.padding),
        c.trainingHint(), {{DNNL_ARG_DIFF_DST, c.y}, {DNNL_ARG_SRC, c.x}, {DNNL_ARG_DIFF_WEIGHTS, c.w}},
        DNNL_ARG_DIFF_WEIGHTS);
  });
  run(prim, {{DNNL_ARG_DIFF_DST, memoryOf(c.y, g)}, {DNNL_ARG_SRC, memoryOf(c.x, x)},
             {DNNL_ARG_DIFF_WEIGHTS, memoryOf(c.w, dw)}});
}

// Adds the optional scale/shift of a normalisation to its flags and arguments.
static dnnl::normalization_flags withAffine(dnnl::normalization_flags flags, const Tensor* gamma, const Tensor* beta) {
  if (gamma) flags = flags | dnnl::normalization_flags::use_scale;
  if (beta) flags = flags | dnnl::normalization_flags::use_shift;
  return flags;
}

static void affineArgs(std::unordered_map<int, dnnl::memory>& args, const dnnl::memory::desc& md, const Tensor* gamma,
                       const Tensor* beta) {
  if (gamma) args.emplace(DNNL_ARG_SCALE, dnnl::memory(md, engine(), gamma->data<float>()));
  if (beta) args.emplace(DNNL_ARG_SHIFT, dnnl::memory(md, engine(), beta->data<float>()));
}

// Layer norm over the last axis of a contiguous tensor.
void onednnLayerNorm(const Tensor& x, const Tensor* gamma, const Tensor* beta, float eps, Tensor& out) {
  OneThreadIfSmall threads(x.numel() < kParallelThreshold);
  using dt = dnnl::memory::data_type;
  dnnl::memory::desc md(toDims(x.shape()), dt::f32, toDims(x.strides()));
  auto flags = withAffine(dnnl::normalization_flags::none, gamma, beta);
  Shape f = {gamma ? 1 : 0, beta ? 1 : 0};
  std::string k = key("layernorm", {&x.shape(), &f}, static_cast<int>(eps * 1e9f));
  Primitive prim = cache(out).get(k, [&] {
    return build<dnnl::layer_normalization_forward>(
        dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_inference, md, eps, flags));
  });
  dnnl::memory::desc cmd({x.shape().back()}, dt::f32, dnnl::memory::format_tag::a);
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, dnnl::memory(md, engine(), x.data<float>())},
                                             {DNNL_ARG_DST, dnnl::memory(md, engine(), out.data<float>())}};
  affineArgs(args, cmd, gamma, beta);
  run(prim, args);
}

}  // namespace nn::rt
