// Dims: the shape and strides of a tensor. A vector of int64 with room for
// six dimensions inside the object, so creating a tensor of ordinary rank
// allocates nothing for its shape and strides (they are copied on every op,
// and two heap allocations per op were a measurable share of the per-op
// overhead). Higher ranks spill to the heap. The interface is the subset of
// std::vector the runtime uses, plus a conversion to std::vector.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace nn::rt {

class Dims {
 public:
  using value_type = int64_t;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;
  static constexpr size_t kInline = 6;

  Dims() = default;
  Dims(std::initializer_list<int64_t> v) { assign(v.begin(), v.end()); }
  explicit Dims(size_t n, int64_t value = 0) {
    reserve(n);
    std::fill_n(data_, n, value);
    size_ = n;
  }
  template <class It, class = decltype(*std::declval<It>())>
  Dims(It first, It last) {
    assign(first, last);
  }
  Dims(const std::vector<int64_t>& v) { assign(v.begin(), v.end()); }  // NOLINT: implicit by design
  Dims(const Dims& o) { assign(o.begin(), o.end()); }
  Dims(Dims&& o) noexcept { take(o); }
  Dims& operator=(const Dims& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  Dims& operator=(Dims&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~Dims() { release(); }

  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }  // NOLINT

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t& back() { return data_[size_ - 1]; }
  int64_t back() const { return data_[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= cap_) return;
    int64_t* p = new int64_t[n];
    std::copy(data_, data_ + size_, p);
    if (data_ != inline_) delete[] data_;
    data_ = p;
    cap_ = n;
  }
  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    if (n > size_) std::fill(data_ + size_, data_ + n, value);
    size_ = n;
  }
  void clear() { size_ = 0; }
  void push_back(int64_t v) {
    if (size_ == cap_) reserve(cap_ * 2);
    data_[size_++] = v;
  }
  iterator insert(const_iterator pos, int64_t v) { return insert(pos, 1, v); }
  iterator insert(const_iterator pos, size_t count, int64_t v) {
    size_t at = static_cast<size_t>(pos - data_);
    reserve(std::max(size_ + count, cap_ * 2));
    std::copy_backward(data_ + at, data_ + size_, data_ + size_ + count);
    std::fill_n(data_ + at, count, v);
    size_ += count;
    return data_ + at;
  }
  iterator erase(const_iterator pos) {
    size_t at = static_cast<size_t>(pos - data_);
    std::copy(data_ + at + 1, data_ + size_, data_ + at);
    --size_;
    return data_ + at;
  }

  friend bool operator==(const Dims& a, const Dims& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const Dims& a, const Dims& b) { return !(a == b); }

 private:
  template <class It>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    size_ = 0;
    reserve(n);
    std::copy(first, last, data_);
    size_ = n;
  }
  void release() {
    if (data_ != inline_) delete[] data_;
    data_ = inline_;
    cap_ = kInline;
    size_ = 0;
  }
  void take(Dims& o) {
    if (o.data_ == o.inline_) {
      data_ = inline_;
      cap_ = kInline;
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = kInline;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  int64_t inline_[kInline] = {};
  int64_t* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = kInline;
};

}  // namespace nn::rt
