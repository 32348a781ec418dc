// data.batches (stdlib/lib/data.nn calls _batches here): the mini-batches
// of a data set as a lazy sequence of (x, y) tuples, in a seeded shuffled
// order, that prepares batch i + 1 on a background thread while the loop
// body works on batch i (the seeds' asynchronous data pipeline). A batch is
// a view of the rows when the order is not shuffled, and a gather of them
// when it is. By default it prefetches only where a core is free for it. The prefetching thread runs its kernels single-threaded, so it
// takes one core's share instead of competing with the step's kernels for
// all of them.
#include <omp.h>

#include <algorithm>
#include <future>
#include <mutex>
#include <numeric>
#include <thread>

#include "ir/builtins.h"
#include "runtime/random.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

class Batches final : public LazySeqObj {
 public:
  Batches(Value x, Value y, int64_t size, int64_t count, std::vector<int64_t> order, bool prefetch)
      : x_(std::move(x)), y_(std::move(y)), size_(size), count_(count), order_(std::move(order)),
        prefetch_(prefetch) {}

  // The future of a running prefetch is waited for here (std::async's
  // futures block in their destructor), before the tensors it reads go.
  ~Batches() override = default;

  const char* typeName() const override { return "batches"; }
  int64_t length() const override { return count_; }

  Value at(int64_t i, SourceLoc loc) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Value batch;
    if (next_.valid() && nextIndex_ == i) {
      // Rethrows what the background thread threw (out of memory).
      batch = next_.get();
    } else {
      if (next_.valid()) next_.wait();
      batch = make(i, loc);
    }
    if (prefetch_ && i + 1 < count_) {
      nextIndex_ = i + 1;
      next_ = std::async(std::launch::async, [this, i, loc] {
        omp_set_num_threads(1);
        return make(i + 1, loc);
      });
    }
    return batch;
  }

 private:
  Value rows(const Value& data, int64_t i, SourceLoc loc) const {
    const Tensor& t = tensorOf(data);
    int64_t start = i * size_, stop = std::min(start + size_, t.dim(0));
    if (order_.empty())
      return makeTensorValue(tensorGetItem(t, makeSlice(Value::integer(start), Value::integer(stop), Value::none()), loc));
    // Index arrays are read on the host (a GPU's first copied there).
    Tensor index = Tensor::empty(DType::I64, {stop - start}, t.device().hostSide());
    std::copy(order_.begin() + start, order_.begin() + stop, index.data<int64_t>());
    return makeTensorValue(tensorGetItem(t, makeTensorValue(std::move(index)), loc));
  }

  Value make(int64_t i, SourceLoc loc) const {
    if (y_.is(Kind::None)) return rows(x_, i, loc);
    return makeTuple({rows(x_, i, loc), rows(y_, i, loc)});
  }

  Value x_, y_;
  int64_t size_, count_;
  std::vector<int64_t> order_;  // empty: the data's own order
  bool prefetch_;
  std::mutex mutex_;  // two loops may read one sequence from two workers
  int64_t nextIndex_ = -1;
  std::future<Value> next_;  // last: destroyed (waited for) first
};

bool flag(CallContext& c, const Value& v, const char* what) {
  if (!v.is(Kind::Bool)) fail(c.loc, std::string("data.batches(): ") + what + " must be True or False, not " + typeName(v));
  return v.asBool();
}

// _batches(x, y, size, shuffle, seed, drop_last, prefetch): data.nn passes
// every argument.
Value bBatches(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 7, 7);
  const Value &x = args[0], &y = args[1];
  if (!x.is(Kind::Tensor) || tensorOf(x).ndim() == 0)
    fail(c.loc, std::string("data.batches(): x must be a tensor of one or more dimensions, not ") +
                    (x.is(Kind::Tensor) ? "a 0-d tensor" : typeName(x)));
  int64_t n = tensorOf(x).dim(0);
  if (!y.is(Kind::None)) {
    if (!y.is(Kind::Tensor) || tensorOf(y).ndim() == 0)
      fail(c.loc, std::string("data.batches(): y must be None or a tensor of one or more dimensions, not ") +
                      (y.is(Kind::Tensor) ? "a 0-d tensor" : typeName(y)));
    if (tensorOf(y).dim(0) != n)
      fail(c.loc, "data.batches(): x has " + std::to_string(n) + " rows but y has " + std::to_string(tensorOf(y).dim(0)));
  }
  if (!args[2].isIntLike() || args[2].is(Kind::Bool) || args[2].asInt() < 1)
    fail(c.loc, "data.batches(): size must be an int >= 1, not " + repr(args[2]));
  int64_t size = args[2].asInt();
  bool shuffle = flag(c, args[3], "shuffle");
  if (!args[4].isIntLike() || args[4].is(Kind::Bool))
    fail(c.loc, std::string("data.batches(): seed must be an int, not ") + typeName(args[4]));
  bool dropLast = flag(c, args[5], "drop_last");
  // None: prefetch where a core is free for it. Where the kernels already
  // use every core (OpenMP's default) a gathering thread only competes
  // with them: bench/bench_graph.cpp's epoch ran 5% slower with it on two
  // cores, and hid 40% of the gathers with a core to spare.
  bool prefetch = args[6].is(Kind::None) ? std::thread::hardware_concurrency() > static_cast<unsigned>(omp_get_max_threads())
                                         : flag(c, args[6], "prefetch");
  int64_t count = dropLast ? n / size : (n + size - 1) / size;
  std::vector<int64_t> order;
  if (shuffle) {
    // Fisher-Yates over the state-independent Philox stream of `seed`, so a
    // seed gives the same order on every run and platform.
    order.resize(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    RandomGenerator rng(static_cast<uint64_t>(args[4].asInt()));
    for (int64_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng.below(static_cast<uint64_t>(i) + 1)]);
  }
  return Value::object(Kind::Lazy, std::make_shared<Batches>(x, y, size, count, std::move(order), prefetch));
}

}  // namespace

void addDataBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Batches).name] = bBatches;
}

}  // namespace nn::stdlib
