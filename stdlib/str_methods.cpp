// The methods of strs (str.split, str.find, str.upper, ...) with Python 3's
// meaning. A str is UTF-8, and as in Python every position, width and
// length counts code points: find's result, start/end arguments, ljust's
// width. Whitespace, case and character classes are runtime/unicode.h's.
#include <algorithm>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "runtime/unicode.h"
#include "stdlib/builtins.h"
#include "stdlib/host_methods.h"

namespace nn::stdlib {

using namespace nn::rt;

const std::string& strArg(CallContext& c, const Value& v, const char* what) {
  if (!v.is(Kind::Str)) fail(c.loc, std::string(what) + " must be str, not " + typeName(v), ErrorClass::TypeError);
  return v.asStr();
}

namespace {

// A str's code points by index, found by walking the str (no table: a
// method asks for a few positions, and a table of a large str would be
// larger than the str). An ASCII str's indices are its byte offsets.
class Text {
 public:
  explicit Text(const std::string& s)
      : s_(s), ascii_(std::all_of(s.begin(), s.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x80; })) {
    length_ = ascii_ ? static_cast<int64_t>(s.size()) : indexOf(s.size());
  }
  int64_t length() const { return length_; }
  // The byte where code point k starts (the end for k == length()).
  size_t byteAt(int64_t k) const {
    if (ascii_) return static_cast<size_t>(k);
    size_t b = 0;
    for (int64_t i = 0; i < k && b < s_.size(); ++i) b += decodeUtf8(s_, b).len;
    return b;
  }
  // The index of the code point that starts at byte b.
  int64_t indexOf(size_t b) const {
    if (ascii_) return static_cast<int64_t>(b);
    int64_t k = 0;
    for (size_t i = 0; i < b; i += decodeUtf8(s_, i).len) ++k;
    return k;
  }
  // Code points [from, to) as bytes.
  std::string slice(int64_t from, int64_t to) const {
    size_t b = byteAt(from);
    return s_.substr(b, byteAt(to) - b);
  }

 private:
  const std::string& s_;
  bool ascii_;
  int64_t length_;
};

// Where the code point that ends at byte e (> 0) starts: back over the
// continuation bytes of a well-formed sequence, else the one byte before e.
size_t previousStart(const std::string& s, size_t e) {
  size_t b = e - 1;
  while (b > 0 && e - b < 4 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) --b;
  return decodeUtf8(s, b).len == e - b ? b : e - 1;
}

// How recased() changes a code point's case: kept, or to its full upper,
// lower or title case mapping.
enum class Case { Keep, Upper, Lower, Title };

// Python's lowering of a capital sigma at byte b (of n bytes): final (ς)
// when a cased letter comes before it and none after, case-ignorable
// characters (apostrophes, accents) skipped on both sides.
char32_t lowerSigma(const std::string& s, size_t b, size_t n) {
  size_t i = b;
  char32_t before = 0;
  while (i > 0) {
    i = previousStart(s, i);
    before = decodeUtf8(s, i).cp;
    if (!isCaseIgnorable(before)) break;
    before = 0;
  }
  if (!before || !isCased(before)) return 0x3C3;
  for (size_t j = b + n; j < s.size();) {
    CodePoint p = decodeUtf8(s, j);
    if (!isCaseIgnorable(p.cp)) return isCased(p.cp) ? 0x3C3 : 0x3C2;
    j += p.len;
  }
  return 0x3C2;
}

// s with each code point's case changed as `caseOf(cp, index)` says; a
// malformed byte is kept as it is. Runs of code points changed alike are
// mapped together (a title case, and a capital sigma's lowering, which
// needs the whole str's context, alone).
template <class CaseOf>
std::string recased(const std::string& s, CaseOf caseOf) {
  std::string out;
  out.reserve(s.size());
  size_t runStart = 0;
  Case run = Case::Keep;
  auto flush = [&](size_t end) {
    if (run == Case::Keep) out.append(s, runStart, end - runStart);
    else appendCaseMapped(s.data() + runStart, end - runStart, run == Case::Upper ? CaseMapping::Upper
                                                                : run == Case::Lower ? CaseMapping::Lower
                                                                                     : CaseMapping::Title,
                          out);
    runStart = end;
  };
  size_t index = 0;
  for (size_t i = 0; i < s.size(); ++index) {
    CodePoint p = static_cast<unsigned char>(s[i]) < 0x80 ? CodePoint{static_cast<unsigned char>(s[i]), 1}
                                                           : decodeUtf8(s, i);
    Case to = p.malformed ? Case::Keep : caseOf(p.cp, index);
    bool alone = to == Case::Title || (to == Case::Lower && p.cp == 0x3A3);
    if (to != run || alone) {
      flush(i);
      run = alone ? Case::Keep : to;
    }
    if (alone) {
      if (to == Case::Lower) appendUtf8(lowerSigma(s, i, p.len), out);
      else appendCaseMapped(s.data() + i, p.len, CaseMapping::Title, out);
      runStart = i + p.len;
    }
    i += p.len;
  }
  flush(s.size());
  return out;
}

// Whether every code point satisfies `pred` (and there is one).
template <class Pred>
bool allOf(const std::string& s, Pred pred) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size();) {
    CodePoint p = decodeUtf8(s, i);
    if (!pred(p.cp)) return false;
    i += p.len;
  }
  return true;
}

const std::string& self(std::vector<Value>& a) { return a[0].asStr(); }

// ---- start/end windows (find, count, startswith, ...) ----

// Python's adjusted bounds of s[start:end] for the search methods: a
// negative bound counts from the end; end is clamped to the length but
// start is not (a start past the end finds nothing, not even "").
struct Window {
  int64_t start, end;
};

Window window(CallContext& c, std::vector<Value>& a, size_t first, int64_t length) {
  auto bound = [&](size_t i, int64_t otherwise) {
    if (a.size() <= i || a[i].is(Kind::None)) return otherwise;
    int64_t v = toIndex(a[i], c.loc);
    if (v < 0) v = std::max<int64_t>(0, v + length);
    return v;
  };
  Window w{bound(first, 0), bound(first + 1, length)};
  w.end = std::min(w.end, length);
  return w;
}

// The first (or last) occurrence of sub in s's window, as a code point
// index; -1 when there is none.
int64_t search(CallContext& c, std::vector<Value>& a, bool last) {
  checkArity(c, a, 2, 4);
  const std::string& s = self(a);
  const std::string& sub = strArg(c, a[1], "substring");
  Text text(s);
  Window w = window(c, a, 2, text.length());
  int64_t subLength = Text(sub).length();
  if (w.start > w.end - subLength) return -1;  // not w.start + subLength: start may be huge
  size_t from = text.byteAt(w.start), to = text.byteAt(w.end);
  size_t p = last ? s.rfind(sub, to - sub.size()) : s.find(sub, from);
  if (p == std::string::npos || p < from || p + sub.size() > to) return -1;
  return text.indexOf(p);
}

// ---- the methods ----

Value sJoin(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 2);
  // A list's or tuple's items are read where they are (no user code runs
  // meanwhile to change them): a copy would count each str up and down.
  std::vector<Value> copied;
  const std::vector<Value>& parts = a[1].is(Kind::List) || a[1].is(Kind::Tuple)
                                        ? a[1].as<SeqObj>().items
                                        : (copied = iterate(a[1], c.loc));
  // Sized first: a list may hold one large str many times.
  size_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i + 16 < parts.size()) __builtin_prefetch(parts[i + 16].ptr());  // a long list's strs are seldom cached
    if (!parts[i].is(Kind::Str))
      fail(c.loc, "sequence item " + std::to_string(i) + ": expected str instance, " + typeName(parts[i]) + " found");
    total += parts[i].asStr().size() + self(a).size();
  }
  checkHostAllocation(total, 1);
  std::string out;
  out.reserve(total);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += self(a);
    out += parts[i].asStr();
  }
  return Value::str(std::move(out));
}

// split and rsplit: at most maxsplit splits, counted from the start or the
// end; sep None splits at runs of whitespace and drops empty parts.
Value splitImpl(CallContext& c, std::vector<Value>& a, bool fromEnd) {
  c.keywordsToPositions(a, 1, {{"sep", Value::none()}, {"maxsplit", Value::integer(-1)}});
  checkArity(c, a, 1, 3);
  const std::string& s = self(a);
  int64_t maxsplit = a.size() == 3 ? toIndex(a[2], c.loc) : -1;
  // Each part becomes its str at once: no list of std::strings between.
  std::vector<Value> parts;
  auto more = [&] { return maxsplit < 0 || static_cast<int64_t>(parts.size()) < maxsplit; };
  auto add = [&](size_t at, size_t n) { parts.push_back(Value::str(s.substr(at, n))); };
  if (a.size() < 2 || a[1].is(Kind::None)) {
    auto spaceAt = [&](size_t b) { return isPythonSpace(decodeUtf8(s, b).cp); };
    auto next = [&](size_t b) { return b + decodeUtf8(s, b).len; };
    if (!fromEnd) {
      size_t i = 0;
      while (true) {
        while (i < s.size() && spaceAt(i)) i = next(i);
        if (i == s.size()) break;
        if (!more()) {  // the rest, its trailing whitespace kept (Python's)
          add(i, std::string::npos);
          break;
        }
        size_t j = i;
        while (j < s.size() && !spaceAt(j)) j = next(j);
        add(i, j - i);
        i = j;
      }
    } else {
      size_t e = s.size();
      while (true) {
        while (e > 0 && spaceAt(previousStart(s, e))) e = previousStart(s, e);
        if (e == 0) break;
        if (!more()) {  // the rest, its leading whitespace kept
          add(0, e);
          break;
        }
        size_t b = e;
        while (b > 0 && !spaceAt(previousStart(s, b))) b = previousStart(s, b);
        add(b, e - b);
        e = b;
      }
      std::reverse(parts.begin(), parts.end());
    }
  } else {
    const std::string& sep = strArg(c, a[1], "separator");
    if (sep.empty()) fail(c.loc, "empty separator", ErrorClass::ValueError);
    if (!fromEnd) {
      size_t start = 0, p;
      while (more() && (p = s.find(sep, start)) != std::string::npos) {
        add(start, p - start);
        start = p + sep.size();
      }
      add(start, std::string::npos);
    } else {
      size_t end = s.size();
      while (more() && end >= sep.size()) {
        size_t p = s.rfind(sep, end - sep.size());
        if (p == std::string::npos) break;
        add(p + sep.size(), end - p - sep.size());
        end = p;
      }
      add(0, end);
      std::reverse(parts.begin(), parts.end());
    }
  }
  return makeList(std::move(parts));
}
Value sSplit(CallContext& c, std::vector<Value>& a) { return splitImpl(c, a, false); }
Value sRsplit(CallContext& c, std::vector<Value>& a) { return splitImpl(c, a, true); }

Value sSplitlines(CallContext& c, std::vector<Value>& a) {
  c.keywordsToPositions(a, 1, {{"keepends", Value::boolean(false)}});
  checkArity(c, a, 1, 2);
  bool keepends = a.size() == 2 && truthy(a[1], c.loc);
  const std::string& s = self(a);
  std::vector<Value> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    CodePoint p = decodeUtf8(s, i);
    if (!isLineBreak(p.cp)) {
      i += p.len;
      continue;
    }
    size_t end = i + p.len;
    if (p.cp == '\r' && end < s.size() && s[end] == '\n') ++end;  // \r\n is one break
    out.push_back(Value::str(s.substr(start, (keepends ? end : i) - start)));
    start = i = end;
  }
  if (start < s.size()) out.push_back(Value::str(s.substr(start)));
  return makeList(std::move(out));
}

// strip, lstrip, rstrip: the code points in chars (whitespace when None)
// removed from the ends.
Value stripImpl(CallContext& c, std::vector<Value>& a, bool left, bool right) {
  checkArity(c, a, 1, 2);
  const std::string& s = self(a);
  std::vector<char32_t> chars;
  bool spaces = a.size() < 2 || a[1].is(Kind::None);
  if (!spaces) {
    const std::string& set = strArg(c, a[1], "strip chars");
    for (size_t i = 0; i < set.size(); i += decodeUtf8(set, i).len) chars.push_back(decodeUtf8(set, i).cp);
  }
  auto stripped = [&](char32_t cp) {
    return spaces ? isPythonSpace(cp) : std::find(chars.begin(), chars.end(), cp) != chars.end();
  };
  size_t b = 0, e = s.size();
  while (left && b < e) {
    CodePoint p = decodeUtf8(s, b);
    if (!stripped(p.cp)) break;
    b += p.len;
  }
  while (right && e > b) {
    size_t q = previousStart(s, e);
    if (q < b || !stripped(decodeUtf8(s, q).cp)) break;
    e = q;
  }
  return Value::str(s.substr(b, e - b));
}
Value sStrip(CallContext& c, std::vector<Value>& a) { return stripImpl(c, a, true, true); }
Value sLstrip(CallContext& c, std::vector<Value>& a) { return stripImpl(c, a, true, false); }
Value sRstrip(CallContext& c, std::vector<Value>& a) { return stripImpl(c, a, false, true); }

// ---- case ----

template <class CaseOf>
Value caseImpl(CallContext& c, std::vector<Value>& a, CaseOf caseOf) {
  checkArity(c, a, 1, 1);
  return Value::str(recased(self(a), caseOf));
}
// Whole strs through the mapping (the final sigma's context is there).
Value mapImpl(CallContext& c, std::vector<Value>& a, CaseMapping m) {
  checkArity(c, a, 1, 1);
  return Value::str(caseMapped(self(a), m));
}
Value sUpper(CallContext& c, std::vector<Value>& a) { return mapImpl(c, a, CaseMapping::Upper); }
Value sLower(CallContext& c, std::vector<Value>& a) { return mapImpl(c, a, CaseMapping::Lower); }
Value sCasefold(CallContext& c, std::vector<Value>& a) { return mapImpl(c, a, CaseMapping::Fold); }
Value sSwapcase(CallContext& c, std::vector<Value>& a) {
  return caseImpl(c, a, [](char32_t cp, size_t) {
    return isUppercase(cp) ? Case::Lower : isLowercase(cp) ? Case::Upper : Case::Keep;
  });
}
// The first code point in title case, the rest in lower case.
Value sCapitalize(CallContext& c, std::vector<Value>& a) {
  return caseImpl(c, a, [](char32_t, size_t i) { return i == 0 ? Case::Title : Case::Lower; });
}
// Each word's first letter in title case, its other letters in lower case;
// a word is a run of cased letters ("they're" is two).
Value sTitle(CallContext& c, std::vector<Value>& a) {
  bool previousCased = false;
  return caseImpl(c, a, [&](char32_t cp, size_t) {
    Case to = previousCased ? Case::Lower : Case::Title;
    previousCased = isCased(cp);
    return to;
  });
}

// ---- character classes ----

// Whether every code point satisfies `pred`; `empty`: the answer for "".
template <class Pred>
Value allCodePoints(CallContext& c, std::vector<Value>& a, Pred pred, bool empty = false) {
  checkArity(c, a, 1, 1);
  const std::string& s = self(a);
  return Value::boolean(s.empty() ? empty : allOf(s, pred));
}
Value sIsalpha(CallContext& c, std::vector<Value>& a) { return allCodePoints(c, a, isAlpha); }
Value sIsdecimal(CallContext& c, std::vector<Value>& a) { return allCodePoints(c, a, isDecimal); }
Value sIsdigit(CallContext& c, std::vector<Value>& a) { return allCodePoints(c, a, isDigit); }
Value sIsnumeric(CallContext& c, std::vector<Value>& a) { return allCodePoints(c, a, isNumeric); }
Value sIsalnum(CallContext& c, std::vector<Value>& a) {
  return allCodePoints(c, a, [](char32_t cp) { return isAlpha(cp) || isNumeric(cp); });
}
Value sIsspace(CallContext& c, std::vector<Value>& a) { return allCodePoints(c, a, isPythonSpace); }
Value sIsprintable(CallContext& c, std::vector<Value>& a) { return allCodePoints(c, a, isPrintable, true); }
Value sIsascii(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  const std::string& s = self(a);
  return Value::boolean(std::all_of(s.begin(), s.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x80; }));
}
Value sIsidentifier(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  const std::string& s = self(a);
  bool first = true;
  return Value::boolean(!s.empty() && allOf(s, [&](char32_t cp) {
    bool ok = first ? isIdentifierStart(cp) : isIdentifierContinue(cp);
    first = false;
    return ok;
  }));
}
// isupper and islower: some character is in that case, and none is in
// the other case or in title case (Python's rule).
Value caseTest(CallContext& c, std::vector<Value>& a, bool upperCase) {
  checkArity(c, a, 1, 1);
  bool cased = false;
  const std::string& s = self(a);
  for (size_t i = 0; i < s.size();) {
    CodePoint p = decodeUtf8(s, i);
    bool wanted = upperCase ? isUppercase(p.cp) : isLowercase(p.cp);
    bool other = upperCase ? isLowercase(p.cp) : isUppercase(p.cp);
    if (other || isTitlecase(p.cp)) return Value::boolean(false);
    cased |= wanted;
    i += p.len;
  }
  return Value::boolean(cased);
}
Value sIsupper(CallContext& c, std::vector<Value>& a) { return caseTest(c, a, true); }
Value sIslower(CallContext& c, std::vector<Value>& a) { return caseTest(c, a, false); }
// Python's rule: some character is cased; upper- and titlecase ones
// follow uncased ones only, lowercase ones cased ones only.
Value sIstitle(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 1, 1);
  bool cased = false, previousCased = false;
  const std::string& s = self(a);
  for (size_t i = 0; i < s.size();) {
    CodePoint p = decodeUtf8(s, i);
    i += p.len;
    bool starts = isUppercase(p.cp) || isTitlecase(p.cp), continues = isLowercase(p.cp);
    if ((starts && previousCased) || (continues && !previousCased)) return Value::boolean(false);
    previousCased = starts || continues;
    cased |= previousCased;
  }
  return Value::boolean(cased);
}

// ---- searching ----

Value sFind(CallContext& c, std::vector<Value>& a) { return Value::integer(search(c, a, false)); }
Value sRfind(CallContext& c, std::vector<Value>& a) { return Value::integer(search(c, a, true)); }
Value sIndex(CallContext& c, std::vector<Value>& a) {
  int64_t at = search(c, a, false);
  if (at < 0) fail(c.loc, "substring not found", ErrorClass::ValueError);
  return Value::integer(at);
}
Value sRindex(CallContext& c, std::vector<Value>& a) {
  int64_t at = search(c, a, true);
  if (at < 0) fail(c.loc, "substring not found", ErrorClass::ValueError);
  return Value::integer(at);
}
// Non-overlapping occurrences in the window; "" occurs once per position.
Value sCount(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 4);
  const std::string& s = self(a);
  const std::string& sub = strArg(c, a[1], "substring");
  Text text(s);
  Window w = window(c, a, 2, text.length());
  if (w.start > w.end) return Value::integer(0);
  if (sub.empty()) return Value::integer(w.end - w.start + 1);
  size_t from = text.byteAt(w.start), to = text.byteAt(w.end);
  int64_t n = 0;
  for (size_t p = s.find(sub, from); p != std::string::npos && p + sub.size() <= to; p = s.find(sub, p + sub.size()))
    ++n;
  return Value::integer(n);
}

// startswith and endswith: of a str, or of any str of a tuple.
Value affixImpl(CallContext& c, std::vector<Value>& a, bool atEnd) {
  checkArity(c, a, 2, 4);
  const char* name = atEnd ? "endswith" : "startswith";
  std::vector<Value> affixes;
  if (a[1].is(Kind::Tuple)) affixes = a[1].as<SeqObj>().items;
  else affixes.push_back(a[1]);
  const std::string& s = self(a);
  Text text(s);
  Window w = window(c, a, 2, text.length());
  for (const Value& v : affixes) {
    if (!v.is(Kind::Str))
      fail(c.loc, std::string(name) + " first arg must be str or a tuple of str, not " + typeName(v),
           ErrorClass::TypeError);
    int64_t n = Text(v.asStr()).length();
    if (w.start > w.end - n) continue;
    int64_t from = atEnd ? w.end - n : w.start;
    if (text.slice(from, from + n) == v.asStr()) return Value::boolean(true);
  }
  return Value::boolean(false);
}
Value sStartswith(CallContext& c, std::vector<Value>& a) { return affixImpl(c, a, false); }
Value sEndswith(CallContext& c, std::vector<Value>& a) { return affixImpl(c, a, true); }

// partition and rpartition: (before, sep, after) around the first (last)
// sep; without one, the str and two empty strs (in rpartition's order).
Value partitionImpl(CallContext& c, std::vector<Value>& a, bool last) {
  checkArity(c, a, 2, 2);
  const std::string& s = self(a);
  const std::string& sep = strArg(c, a[1], "separator");
  if (sep.empty()) fail(c.loc, "empty separator", ErrorClass::ValueError);
  size_t p = last ? s.rfind(sep) : s.find(sep);
  if (p == std::string::npos)
    return last ? makeTuple({Value::str(""), Value::str(""), a[0]}) : makeTuple({a[0], Value::str(""), Value::str("")});
  return makeTuple({Value::str(s.substr(0, p)), a[1], Value::str(s.substr(p + sep.size()))});
}
Value sPartition(CallContext& c, std::vector<Value>& a) { return partitionImpl(c, a, false); }
Value sRpartition(CallContext& c, std::vector<Value>& a) { return partitionImpl(c, a, true); }

// ---- rewriting ----

// Every occurrence of old (the first count, when count is not negative)
// replaced by new; an empty old matches before every code point and at
// the end, as Python's.
Value sReplace(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 3, 4);
  const std::string& s = self(a);
  const std::string& from = strArg(c, a[1], "old");
  const std::string& to = strArg(c, a[2], "new");
  int64_t count = a.size() == 4 ? toIndex(a[3], c.loc) : -1;
  // The match after byte b (a match of "" is at every code point and at
  // the end), or npos.
  auto nextMatch = [&](size_t b, bool first) {
    if (!from.empty()) return s.find(from, b);
    if (first) return b;
    return b < s.size() ? b + decodeUtf8(s, b).len : std::string::npos;
  };
  // Counted first, so the result's size is checked before it is made.
  size_t matches = 0;
  for (size_t p = nextMatch(0, true); p != std::string::npos && (count < 0 || matches < static_cast<size_t>(count));
       p = nextMatch(p + from.size(), false))
    ++matches;
  // In two steps: the product of two large sizes must not wrap.
  checkHostAllocation(matches, std::max<size_t>(to.size(), 1));
  checkHostAllocation(s.size() - matches * from.size() + matches * to.size(), 1);
  std::string out;
  out.reserve(s.size() - matches * from.size() + matches * to.size());
  size_t start = 0, done = 0;
  for (size_t p = nextMatch(0, true); p != std::string::npos && done < matches; p = nextMatch(p + from.size(), false)) {
    out.append(s, start, p - start);
    out += to;
    start = p + from.size();
    ++done;
  }
  out.append(s, start, std::string::npos);
  return Value::str(std::move(out));
}

Value sRemoveprefix(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 2);
  const std::string& s = self(a);
  const std::string& p = strArg(c, a[1], "prefix");
  return s.compare(0, p.size(), p) == 0 ? Value::str(s.substr(p.size())) : a[0];
}
Value sRemovesuffix(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 2);
  const std::string& s = self(a);
  const std::string& p = strArg(c, a[1], "suffix");
  bool ends = !p.empty() && s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
  return ends ? Value::str(s.substr(0, s.size() - p.size())) : a[0];
}

// ---- padding ----

// The code points to add to reach `width`, or 0.
size_t padding(CallContext& c, const Value& width, const std::string& s) {
  int64_t w = toIndex(width, c.loc), n = Text(s).length();
  if (w <= n) return 0;
  size_t add = static_cast<size_t>(w - n);
  checkHostAllocation(add, 4);
  return add;
}

// ljust, rjust and center: `how` says how much of the padding goes left.
template <class Left>
Value justifyImpl(CallContext& c, std::vector<Value>& a, Left leftOf) {
  checkArity(c, a, 2, 3);
  std::string fill = " ";
  if (a.size() == 3) {
    fill = strArg(c, a[2], "fill character");
    if (Text(fill).length() != 1)
      fail(c.loc, "The fill character must be exactly one character long", ErrorClass::TypeError);
  }
  size_t add = padding(c, a[1], self(a));
  if (add == 0) return a[0];
  size_t left = leftOf(add, static_cast<size_t>(toIndex(a[1], c.loc)));
  std::string out;
  for (size_t i = 0; i < left; ++i) out += fill;
  out += self(a);
  for (size_t i = left; i < add; ++i) out += fill;
  return Value::str(std::move(out));
}
Value sLjust(CallContext& c, std::vector<Value>& a) {
  return justifyImpl(c, a, [](size_t, size_t) { return size_t(0); });
}
Value sRjust(CallContext& c, std::vector<Value>& a) {
  return justifyImpl(c, a, [](size_t add, size_t) { return add; });
}
// CPython's split of the padding: the odd one goes left when the width is odd.
Value sCenter(CallContext& c, std::vector<Value>& a) {
  return justifyImpl(c, a, [](size_t add, size_t width) { return add / 2 + (add & width & 1); });
}
// Zeros on the left, after a leading sign.
Value sZfill(CallContext& c, std::vector<Value>& a) {
  checkArity(c, a, 2, 2);
  const std::string& s = self(a);
  size_t add = padding(c, a[1], s);
  if (add == 0) return a[0];
  size_t sign = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
  return Value::str(s.substr(0, sign) + std::string(add, '0') + s.substr(sign));
}

// Each tab replaced by the spaces to the next multiple of tabsize columns
// (characters since the last line break); tabsize <= 0 drops tabs.
Value sExpandtabs(CallContext& c, std::vector<Value>& a) {
  c.keywordsToPositions(a, 1, {{"tabsize", Value::integer(8)}});
  checkArity(c, a, 1, 2);
  int64_t tabsize = a.size() == 2 ? toIndex(a[1], c.loc) : 8;
  const std::string& s = self(a);
  std::string out;
  int64_t column = 0;
  for (size_t i = 0; i < s.size();) {
    CodePoint p = decodeUtf8(s, i);
    if (p.cp == '\t') {
      if (tabsize > 0) {
        int64_t spaces = tabsize - column % tabsize;
        checkHostAllocation(out.size() + static_cast<size_t>(spaces), 1);
        out.append(static_cast<size_t>(spaces), ' ');
        column += spaces;
      }
    } else {
      out.append(s, i, p.len);
      column = p.cp == '\n' || p.cp == '\r' ? 0 : column + 1;
    }
    i += p.len;
  }
  return Value::str(std::move(out));
}

// str.format: every keyword argument is a field name.
Value sFormat(CallContext& c, std::vector<Value>& a) {
  std::vector<Value> args(a.begin() + 1, a.end());
  c.markAllUsed();
  return Value::str(formatTemplate(self(a), args, c.kwnames, c.kwargs, c.loc));
}

}  // namespace

const std::vector<HostMethod>& strMethods() {
  static const std::vector<HostMethod> methods = {
      {"join", sJoin},         {"split", sSplit, "sep maxsplit"},
      {"rsplit", sRsplit, "sep maxsplit"}, {"splitlines", sSplitlines, "keepends"},
      {"strip", sStrip},       {"lstrip", sLstrip},
      {"rstrip", sRstrip},     {"upper", sUpper},
      {"lower", sLower},       {"swapcase", sSwapcase},
      {"capitalize", sCapitalize}, {"title", sTitle},
      {"casefold", sCasefold},    {"isalpha", sIsalpha},
      {"isdigit", sIsdigit},   {"isalnum", sIsalnum},
      {"isdecimal", sIsdecimal}, {"isnumeric", sIsnumeric},
      {"isprintable", sIsprintable}, {"isascii", sIsascii},
      {"isidentifier", sIsidentifier},
      {"isspace", sIsspace},   {"isupper", sIsupper},
      {"istitle", sIstitle},   {"expandtabs", sExpandtabs, "tabsize"},
      {"islower", sIslower},   {"find", sFind},
      {"rfind", sRfind},       {"index", sIndex},
      {"rindex", sRindex},     {"count", sCount},
      {"startswith", sStartswith}, {"endswith", sEndswith},
      {"partition", sPartition}, {"rpartition", sRpartition},
      {"replace", sReplace},   {"removeprefix", sRemoveprefix},
      {"removesuffix", sRemovesuffix}, {"ljust", sLjust},
      {"rjust", sRjust},       {"center", sCenter},
      {"zfill", sZfill},       {"format", sFormat, "*"}};
  return methods;
}

}  // namespace nn::stdlib
