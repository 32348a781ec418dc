// The per-thread spares behind ScratchValues (scratch_values.h).
#include "runtime/scratch_values.h"

namespace nn::rt {

namespace {

// Bounds: at most this many spares per thread, each of at most this many
// values (32 bytes each: 512 KiB per thread at worst).
constexpr size_t kMaxSpares = 32, kMaxKeptCapacity = 512;

// Room for every spare is made once, so giving one back cannot fail.
std::vector<std::vector<Value>>& spares() {
  thread_local std::vector<std::vector<Value>> s = [] {
    std::vector<std::vector<Value>> v;
    v.reserve(kMaxSpares);
    return v;
  }();
  return s;
}

}  // namespace

ScratchValues::ScratchValues() {
  std::vector<std::vector<Value>>& s = spares();
  if (!s.empty()) {
    v_ = std::move(s.back());
    s.pop_back();
  }
}

ScratchValues::~ScratchValues() {
  v_.clear();
  // A callee may have taken the buffer (moved the vector away).
  if (v_.capacity() == 0 || v_.capacity() > kMaxKeptCapacity) return;
  std::vector<std::vector<Value>>& s = spares();
  if (s.size() < kMaxSpares) s.push_back(std::move(v_));
}

}  // namespace nn::rt
