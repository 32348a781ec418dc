// The progress bar of training loops (progress.h): a lazy sequence that
// hands out its iterable's items and redraws the bar as the loop takes them.
#include "stdlib/progress.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <ostream>

#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "runtime/status_line.h"
#include "runtime/tensor.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

std::string clockText(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  auto s = static_cast<int64_t>(seconds);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  return buf;
}

class Progress final : public LazySeqObj {
 public:
  Progress(Value items, int64_t total, std::string desc, double interval, std::shared_ptr<StatusLine> line)
      : items_(std::move(items)), total_(total), desc_(std::move(desc)), interval_(interval), line_(std::move(line)),
        start_(std::chrono::steady_clock::now()) {}

  // The loop is over when nothing refers to the sequence any more: the bar
  // shows what it took and, on a terminal, moves to the next line.
  ~Progress() override {
    if (taken_ == 0 && total_ > 0) return;
    line_->show(progressLine(desc_, taken_, total_, elapsed(), line_->terminal()), true);
  }

  const char* typeName() const override { return "progress"; }
  int64_t length() const override { return total_; }

  Value at(int64_t i, SourceLoc loc) override {
    std::lock_guard<std::mutex> lock(mutex_);
    double now = elapsed();
    bool terminal = line_->terminal();
    // On a terminal: at the start, and again at once after a print took
    // the bar off the screen.
    if ((terminal && (taken_ == 0 || !line_->drawn())) || now - shown_ >= interval_) {
      line_->show(progressLine(desc_, i, total_, now, terminal), false);
      shown_ = now;
    }
    taken_ = std::max(taken_, i + 1);
    return iterItem(items_, i, loc);
  }
  void forEachHeldValue(const std::function<void(Value&)>& f) override { f(items_); }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  Value items_;
  int64_t total_;
  std::string desc_;
  double interval_;
  std::shared_ptr<StatusLine> line_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  int64_t taken_ = 0;
  double shown_ = 0;
};

Value bProgress(CallContext& c, std::vector<Value>& args) {
  const Value* desc = c.kw("desc");
  const Value* interval = c.kw("interval");
  checkArity(c, args, 1, 1);
  // The loop's own view of the iterable, read item by item as it would be.
  Value items = iterable(args[0], c.loc);
  int64_t total = iterLength(items);
  std::string text;
  if (desc && !desc->is(Kind::None)) {
    if (!desc->is(Kind::Str)) fail(c.loc, std::string("progress(): desc must be a str, not ") + typeName(*desc));
    text = desc->asStr();
  }
  std::shared_ptr<StatusLine> line = c.interp.host().statusLine();
  double every = line->terminal() ? 0.1 : 5.0;
  if (interval && !interval->is(Kind::None)) {
    if (!interval->isNumber() || !(interval->asFloat() >= 0))
      fail(c.loc, "progress(): interval must be a number of seconds >= 0");
    every = interval->asFloat();
  }
  auto p = std::make_shared<Progress>(std::move(items), total, std::move(text), every, std::move(line));
  return Value::object(Kind::Lazy, std::move(p));
}

}  // namespace

std::string progressLine(const std::string& desc, int64_t done, int64_t total, double elapsed, bool terminal) {
  std::string s = desc.empty() ? "" : desc + ": ";
  double frac = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%3d%%", static_cast<int>(frac * 100));
  s += buf;
  if (terminal) {
    // Ten cells, each in eighths, as tqdm draws them.
    static const char* const kEighths[] = {"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589"};
    constexpr int kWidth = 10;
    auto eighths = static_cast<int>(frac * kWidth * 8);
    s += "|";
    for (int cell = 0; cell < kWidth; ++cell) {
      int fill = std::min(8, std::max(0, eighths - cell * 8));
      s += fill == 8 ? "\u2588" : fill > 0 ? kEighths[fill] : " ";
    }
    s += "|";
  }
  double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  std::string rateText = "?it/s";
  if (rate >= 1) {
    std::snprintf(buf, sizeof buf, "%.2fit/s", rate);
    rateText = buf;
  } else if (rate > 0) {
    std::snprintf(buf, sizeof buf, "%.2fs/it", 1 / rate);
    rateText = buf;
  }
  double left = rate > 0 ? static_cast<double>(total - done) / rate : NAN;
  s += ' ';
  s += std::to_string(done) + "/" + std::to_string(total) + " [" + clockText(elapsed) + "<" + clockText(left) +
       ", " + rateText + "]";
  return s;
}

void addProgressBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Progress).name] = bProgress;
}

}  // namespace nn::stdlib
