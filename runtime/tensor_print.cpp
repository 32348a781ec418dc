// Tensor printing in NumPy's format (numpy/core/arrayprint.py with default
// options: precision 8, 'maxprec' float mode, line width 75, summarisation
// past 1000 elements with 3 edge items). print() uses the str form
// "[[1. 2.]\n [3. 4.]]"; the REPL echo uses the repr form
// "tensor([[1., 2.],\n        [3., 4.]], dtype=f32)".
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

#include "runtime/device.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"
#include "runtime/tensor_print.h"
#include "support/float_repr.h"

namespace nn::rt {
namespace {

constexpr int kPrecision = 8;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr size_t kLineWidth = 75;

// Shortest round-trip digits of v at its own precision (f32 or f64), in
// positional form with at most kPrecision fractional digits, trimmed of
// trailing zeros but keeping the point ("1.", "0.5", "0.33333333").
std::string positional(double v, bool isF32) {
  char buf[512];
  std::to_chars_result r = isF32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::fixed)
                                 : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  std::string s(buf, r.ptr);
  size_t dot = s.find('.');
  if (dot != std::string::npos && s.size() - dot - 1 > static_cast<size_t>(kPrecision)) {
    std::snprintf(buf, sizeof buf, "%.*f", kPrecision, v);
    s = buf;
    dot = s.find('.');
  }
  if (dot == std::string::npos) return s + ".";
  while (s.back() == '0') s.pop_back();
  return s;
}

// Shortest digits in scientific form: mantissa "d.ddd" (or "d.") and the
// exponent as a signed integer.
void scientific(double v, bool isF32, std::string& mantissa, int& exponent) {
  char buf[128];
  std::to_chars_result r = isF32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific)
                                 : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, r.ptr);
  size_t e = s.find('e');
  mantissa = s.substr(0, e);
  exponent = std::atoi(s.c_str() + e + 1);
  if (mantissa.find('.') == std::string::npos) mantissa += ".";
  size_t dot = mantissa.find('.');
  if (mantissa.size() - dot - 1 > static_cast<size_t>(kPrecision)) {
    std::snprintf(buf, sizeof buf, "%.*e", kPrecision, v);
    std::string t(buf);
    size_t te = t.find('e');
    mantissa = t.substr(0, te);
    exponent = std::atoi(t.c_str() + te + 1);
    while (mantissa.back() == '0') mantissa.pop_back();
  }
}

using Formatter = std::function<std::string(int64_t flatIndex)>;

// Builds the per-element formatter for the elements that will be shown.
Formatter makeFormatter(const Tensor& t, const std::vector<int64_t>& shown) {
  DType dt = t.dtype();
  if (dt == DType::Bool) {
    return [&t](int64_t i) { return t.flatAsInt(i) ? std::string(" True") : std::string("False"); };
  }
  if (isIntegral(dt)) {
    size_t width = 0;
    for (int64_t i : shown) width = std::max(width, std::to_string(t.flatAsInt(i)).size());
    return [&t, width](int64_t i) {
      std::string s = std::to_string(t.flatAsInt(i));
      return std::string(width - std::min(width, s.size()), ' ') + s;
    };
  }
  bool isF32 = dt == DType::F32;
  std::vector<double> finite;
  bool hasNonFinite = false, negInf = false;
  for (int64_t i : shown) {
    double v = t.flatAsDouble(i);
    if (std::isfinite(v)) finite.push_back(v);
    else {
      hasNonFinite = true;
      negInf = negInf || (std::isinf(v) && v < 0);
    }
  }
  bool expFormat = false;
  double maxVal = 0, minVal = INFINITY;
  for (double v : finite)
    if (v != 0) maxVal = std::max(maxVal, std::fabs(v)), minVal = std::min(minVal, std::fabs(v));
  if (maxVal > 0 && (maxVal >= 1e8 || minVal < 0.0001 || maxVal / minVal > 1000.0)) expFormat = true;

  size_t padLeft = 0, padRight = 0;
  int precision = 0, expSize = 0;
  if (expFormat) {
    for (double v : finite) {
      std::string m;
      int e;
      scientific(v, isF32, m, e);
      size_t dot = m.find('.');
      padLeft = std::max(padLeft, dot);
      precision = std::max(precision, static_cast<int>(m.size() - dot - 1));
      expSize = std::max(expSize, static_cast<int>(std::to_string(std::abs(e)).size()));
    }
    expSize = std::max(expSize, 2);
    padRight = static_cast<size_t>(expSize + 2 + precision);
  } else {
    for (double v : finite) {
      std::string s = positional(v, isF32);
      size_t dot = s.find('.');
      padLeft = std::max(padLeft, dot);
      padRight = std::max(padRight, s.size() - dot - 1);
    }
  }
  if (hasNonFinite) {
    size_t offset = padRight + 1;
    size_t nanLen = 3, infLen = 3 + (negInf ? 1 : 0);
    if (nanLen > offset) padLeft = std::max(padLeft, nanLen - offset);
    if (infLen > offset) padLeft = std::max(padLeft, infLen - offset);
  }
  return [&t, isF32, expFormat, padLeft, padRight, precision, expSize](int64_t i) -> std::string {
    double v = t.flatAsDouble(i);
    if (!std::isfinite(v)) {
      std::string s = std::isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
      size_t total = padLeft + padRight + 1;
      return std::string(total > s.size() ? total - s.size() : 0, ' ') + s;
    }
    if (expFormat) {
      std::string m;
      int e;
      scientific(v, isF32, m, e);
      size_t dot = m.find('.');
      std::string frac = m.substr(dot + 1);
      frac += std::string(static_cast<size_t>(precision) - frac.size(), '0');
      std::string digits = std::to_string(std::abs(e));
      if (digits.size() < static_cast<size_t>(expSize)) digits.insert(0, expSize - digits.size(), '0');
      std::string s = m.substr(0, dot) + "." + frac + "e" + (e < 0 ? "-" : "+") + digits;
      return std::string(padLeft > dot ? padLeft - dot : 0, ' ') + s;
    }
    std::string s = positional(v, isF32);
    size_t dot = s.find('.');
    size_t frac = s.size() - dot - 1;
    return std::string(padLeft > dot ? padLeft - dot : 0, ' ') + s + std::string(padRight - frac, ' ');
  };
}

// arrayprint._formatArray
class Layout {
 public:
  Layout(const Tensor& t, const Formatter& fmt, const std::string& separator, bool summarize)
      : t_(t), fmt_(fmt), sep_(separator), summarize_(summarize) {}

  std::string recurse(std::vector<int64_t>& index, const std::string& hanging, size_t width) {
    size_t axis = index.size();
    size_t axesLeft = t_.ndim() - axis;
    if (axesLeft == 0) return fmt_(flat(index));
    std::string nextHanging = hanging + " ";
    size_t nextWidth = width - 1;
    int64_t len = t_.dim(static_cast<int>(axis));
    bool summary = summarize_ && 2 * kEdgeItems < len;
    int64_t leading = summary ? kEdgeItems : 0;
    int64_t trailing = summary ? kEdgeItems : len;
    std::string s;
    auto child = [&](int64_t i) {
      index.push_back(i < 0 ? len + i : i);
      std::string r = recurse(index, nextHanging, nextWidth);
      index.pop_back();
      return r;
    };
    std::string sepTrim = sep_.substr(0, sep_.find_last_not_of(' ') + 1);
    if (axesLeft == 1) {
      size_t elemWidth = width - sepTrim.size();
      std::string line = hanging;
      for (int64_t i = 0; i < leading; ++i) {
        extend(s, line, child(i), elemWidth, hanging);
        line += sep_;
      }
      if (summary) {
        extend(s, line, "...", elemWidth, hanging);
        line += sep_;
      }
      for (int64_t i = trailing; i > 1; --i) {
        extend(s, line, child(-i), elemWidth, hanging);
        line += sep_;
      }
      extend(s, line, child(-1), elemWidth, hanging);
      s += line;
    } else {
      std::string lineSep = sepTrim + std::string(axesLeft - 1, '\n');
      for (int64_t i = 0; i < leading; ++i) s += hanging + child(i) + lineSep;
      if (summary) s += hanging + "..." + lineSep;
      for (int64_t i = trailing; i > 1; --i) s += hanging + child(-i) + lineSep;
      s += hanging + child(-1);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }

 private:
  int64_t flat(const std::vector<int64_t>& index) const {
    int64_t f = 0;
    for (size_t d = 0; d < index.size(); ++d) f = f * t_.dim(static_cast<int>(d)) + index[d];
    return f;
  }
  static void extend(std::string& s, std::string& line, const std::string& word, size_t width,
                     const std::string& prefix) {
    bool wrap = line.size() + word.size() > width && line.size() > prefix.size();
    if (wrap) {
      s += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
      line = prefix;
    }
    line += word;
  }

  const Tensor& t_;
  const Formatter& fmt_;
  std::string sep_;
  bool summarize_;
};

// Flat indices of the elements that are shown (all, or the summarised edges).
void shownIndices(const Tensor& t, bool summarize, std::vector<int64_t>& out) {
  std::vector<int64_t> index;
  std::function<void(int)> walk = [&](int axis) {
    if (axis == t.ndim()) {
      int64_t f = 0;
      for (int d = 0; d < t.ndim(); ++d) f = f * t.dim(d) + index[d];
      out.push_back(f);
      return;
    }
    int64_t len = t.dim(axis);
    for (int64_t i = 0; i < len; ++i) {
      if (summarize && 2 * kEdgeItems < len && i == kEdgeItems) i = len - kEdgeItems;
      index.push_back(i);
      walk(axis + 1);
      index.pop_back();
    }
  };
  walk(0);
}

std::string scalarText(const Tensor& t) {
  switch (t.dtype()) {
    case DType::Bool: return t.flatAsInt(0) ? "True" : "False";
    case DType::I32:
    case DType::I64: return std::to_string(t.flatAsInt(0));
    case DType::F32: return floatReprF32(static_cast<float>(t.flatAsDouble(0)));
    case DType::F64: return floatRepr(t.flatAsDouble(0));
  }
  return "?";
}

std::string format(const Tensor& t, const std::string& separator, size_t prefixLen) {
  if (t.ndim() == 0) return scalarText(t);
  if (t.numel() == 0) return "[]";
  bool summarize = t.numel() > kThreshold;
  std::vector<int64_t> shown;
  shownIndices(t, summarize, shown);
  Formatter fmt = makeFormatter(t, shown);
  Layout layout(t, fmt, separator, summarize);
  std::vector<int64_t> index;
  return layout.recurse(index, std::string(prefixLen + 1, ' '), kLineWidth);
}

}  // namespace

std::string tensorStr(const Tensor& t) { return format(readableOnHost(t, {}), " ", 0); }

// PyTorch's form, which names the device when it is not the default one.
std::string tensorRepr(const Tensor& t) {
  const std::string prefix = "tensor(";
  std::string body = format(readableOnHost(t, {}), ", ", prefix.size());
  std::string text = prefix + body;
  if (t.device().name() != "cpu") {
    text += ", device='";
    text += t.device().name();
    text += '\'';
  }
  return text + ", dtype=" + dtypeName(t.dtype()) + ")";
}

}  // namespace nn::rt
