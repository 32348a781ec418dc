// Python's string formatting: the format-spec mini-language (f-string
// fields, format()), implemented over snprintf for the numeric
// conversions, and the two template forms built on it, str.format and
// printf-style `%`. Defaults follow Python: strings align left, numbers
// right; a '0' flag means zero padding after the sign. A 0-d tensor
// formats as its Python scalar, as PyTorch's Tensor.__format__ does.
#include "runtime/format.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"
#include "support/float_repr.h"

namespace nn::rt {
namespace {

struct Spec {
  char fill = ' ';
  bool fillGiven = false;
  char align = 0;
  char sign = '-';
  bool alt = false;
  bool zero = false;
  int width = -1;
  char grouping = 0;
  int precision = -1;
  char type = 0;
  int minDigits = -1;  // printf's precision of an int: zeros in front (`%.3d`)
};

// The first `precision` characters of s (all of it for a negative one).
std::string truncated(const std::string& s, int precision) {
  if (precision < 0 || static_cast<size_t>(precision) >= utf8Length(s)) return s;
  std::vector<std::string> chars = utf8Chars(s);
  std::string out;
  for (int i = 0; i < precision; ++i) out += chars[i];
  return out;
}

bool isAlign(char c) { return c == '<' || c == '>' || c == '=' || c == '^'; }

// The decimal number at s[i] (advancing i past it); Python's limit on a
// width or precision.
int digitsAt(const std::string& s, size_t& i, SourceLoc loc) {
  int64_t n = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    n = n * 10 + (s[i] - '0');
    if (n > INT32_MAX) fail(loc, "too many decimal digits in format string");
  }
  return static_cast<int>(n);
}

Spec parseSpec(const std::string& s, SourceLoc loc) {
  Spec sp;
  size_t i = 0;
  if (s.size() >= 2 && isAlign(s[1])) {
    sp.fill = s[0];
    sp.fillGiven = true;
    sp.align = s[1];
    i = 2;
  } else if (!s.empty() && isAlign(s[0])) {
    sp.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp.sign = s[i++];
  if (i < s.size() && s[i] == '#') sp.alt = true, ++i;
  if (i < s.size() && s[i] == '0') sp.zero = true, ++i;
  if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) sp.width = digitsAt(s, i, loc);
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) sp.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i == s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) fail(loc, "format specifier missing precision");
    sp.precision = digitsAt(s, i, loc);
  }
  if (i < s.size()) sp.type = s[i++];
  if (i != s.size()) fail(loc, "invalid format specifier '" + s + "'");
  return sp;
}

std::string group(const std::string& digits, char sep, int every) {
  std::string out;
  int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % every == 0) out += sep;
    out += digits[i];
  }
  return out;
}

// Pads `sign + body` to the width; '=' puts the padding after the sign.
std::string pad(const Spec& sp, const std::string& sign, const std::string& body, char defaultAlign) {
  std::string text = sign + body;
  size_t shown = utf8Length(text);
  if (sp.width < 0 || static_cast<int>(shown) >= sp.width) return text;
  char align = sp.align ? sp.align : (sp.zero ? '=' : defaultAlign);
  char fill = sp.fillGiven ? sp.fill : (sp.zero ? '0' : ' ');
  size_t padLen = static_cast<size_t>(sp.width) - shown;
  checkHostAllocation(text.size() + padLen, 1);
  switch (align) {
    case '<': return text + std::string(padLen, fill);
    case '>': return std::string(padLen, fill) + text;
    case '^': return std::string(padLen / 2, fill) + text + std::string(padLen - padLen / 2, fill);
    default: return sign + std::string(padLen, fill) + body;
  }
}

std::string formatInt(int64_t v, const Spec& sp, SourceLoc loc) {
  char type = sp.type ? sp.type : 'd';
  uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::string digits, prefix;
  int every = 3;
  switch (type) {
    case 'd':
    case 'n': digits = std::to_string(mag); break;
    case 'b':
      do digits.insert(digits.begin(), char('0' + (mag & 1)));
      while (mag >>= 1);
      prefix = "0b", every = 4;
      break;
    case 'o': {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%llo", static_cast<unsigned long long>(mag));
      digits = buf, prefix = "0o", every = 4;
      break;
    }
    case 'x':
    case 'X': {
      char buf[32];
      std::snprintf(buf, sizeof buf, type == 'x' ? "%llx" : "%llX", static_cast<unsigned long long>(mag));
      digits = buf, prefix = type == 'x' ? "0x" : "0X", every = 4;
      break;
    }
    case 'c': {
      if (v < 0 || v > 0x10FFFF) fail(loc, "%c arg not in range(0x110000)", ErrorClass::OverflowError);
      auto cp = static_cast<uint32_t>(v);
      std::string s;
      if (cp < 0x80) {
        s += static_cast<char>(cp);
      } else {
        int extra = cp < 0x800 ? 1 : cp < 0x10000 ? 2 : 3;
        static const unsigned kLead[] = {0, 0xC0, 0xE0, 0xF0};
        s += static_cast<char>(kLead[extra] | (cp >> (6 * extra)));
        for (int k = extra - 1; k >= 0; --k) s += static_cast<char>(0x80 | ((cp >> (6 * k)) & 0x3F));
      }
      return pad(sp, "", s, '<');
    }
    default: fail(loc, std::string("Unknown format code '") + type + "' for object of type 'int'");
  }
  if (sp.precision >= 0) fail(loc, "precision not allowed in integer format specifier");
  if (sp.minDigits > static_cast<int>(digits.size())) digits.insert(0, sp.minDigits - digits.size(), '0');
  if (sp.grouping) {
    if (sp.grouping == ',' && type != 'd') fail(loc, "cannot specify ',' with '" + std::string(1, type) + "'");
    digits = group(digits, sp.grouping, every);
  }
  std::string sign = v < 0 ? "-" : sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "";
  if (sp.alt) sign += prefix;
  return pad(sp, sign, digits, '>');
}

std::string formatFloat(double v, const Spec& sp, SourceLoc loc) {
  char type = sp.type;
  bool neg = std::signbit(v) && !std::isnan(v);
  double mag = std::fabs(v);
  std::string body;
  char buf[512];
  int prec = sp.precision;
  if (type == 0 && prec < 0) {
    body = floatRepr(mag);
  } else {
    bool percent = type == '%';
    if (percent) mag *= 100;
    char conv = type == 0 ? 'g' : percent ? 'f' : type;
    if (conv != 'e' && conv != 'E' && conv != 'f' && conv != 'F' && conv != 'g' && conv != 'G')
      fail(loc, std::string("Unknown format code '") + type + "' for object of type 'float'");
    if (prec < 0) prec = 6;
    if ((conv == 'g' || conv == 'G') && prec == 0) prec = 1;
    if (prec > 200) fail(loc, "precision too big");
    std::string fmt = std::string("%") + (sp.alt ? "#" : "") + ".*" + conv;
    std::snprintf(buf, sizeof buf, fmt.c_str(), prec, mag);
    body = buf;
    // Python's untyped format keeps a ".0" on fixed-point results.
    if (type == 0 && std::isfinite(mag) && body.find_first_of(".e") == std::string::npos) body += ".0";
    if (percent) body += "%";
  }
  if (sp.grouping && std::isfinite(mag)) {
    size_t end = body.find_first_of(".eE%");
    if (end == std::string::npos) end = body.size();
    body = group(body.substr(0, end), sp.grouping, 3) + body.substr(end);
  }
  std::string sign = neg ? "-" : sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "";
  return pad(sp, sign, body, '>');
}

}  // namespace

std::string formatValue(const Value& v, const std::string& spec, SourceLoc loc) {
  if (spec.empty()) return str(v);
  if (v.is(Kind::Tensor) && tensorOf(v).ndim() == 0) return formatValue(item(tensorOf(v), loc), spec, loc);
  Spec sp = parseSpec(spec, loc);
  switch (v.kind()) {
    case Kind::Int:
    case Kind::Bool:
      if (sp.type && std::string("eEfFgG%").find(sp.type) != std::string::npos)
        return formatFloat(v.asFloat(), sp, loc);
      return formatInt(v.asInt(), sp, loc);
    case Kind::Float:
      if (sp.type == 'd') fail(loc, "Unknown format code 'd' for object of type 'float'");
      return formatFloat(v.asFloat(), sp, loc);
    case Kind::Str: {
      if (sp.type && sp.type != 's')
        fail(loc, std::string("Unknown format code '") + sp.type + "' for object of type 'str'");
      if (sp.sign != '-') fail(loc, "sign not allowed in string format specifier");
      if (sp.grouping) fail(loc, std::string("cannot specify '") + sp.grouping + "' with 's'");
      return pad(sp, "", truncated(v.asStr(), sp.precision), '<');
    }
    default:
      fail(loc, std::string("unsupported format string passed to ") + typeName(v) + ".__format__");
  }
}

namespace {

// A field's conversion: !s, !r or !a (ASCII repr: nn's repr of non-ASCII
// text is already escaped only where Python escapes it, so !a is !r).
Value convert(const Value& v, char conv, SourceLoc loc) {
  switch (conv) {
    case 0: return v;
    case 's': return Value::str(str(v));
    case 'r':
    case 'a': return Value::str(repr(v));
    default: fail(loc, std::string("Unknown conversion specifier ") + conv, ErrorClass::ValueError);
  }
}

bool allDigits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// Automatic field numbering runs on through the fields nested in specs.
struct Numbering {
  size_t next = 0;
  enum { None, Auto, Manual } mode = None;
};

std::string expandTemplate(const std::string& fmt, const std::vector<Value>& args,
                           const std::vector<std::string>& names, const std::vector<Value>& kwargs, SourceLoc loc,
                           Numbering& numbering, int depth) {
  if (depth > 1) fail(loc, "Max string recursion exceeded", ErrorClass::ValueError);
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '}') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '}') { out += '}'; ++i; continue; }
      fail(loc, "Single '}' encountered in format string");
    }
    if (c != '{') { out += c; continue; }
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') { out += '{'; ++i; continue; }
    // The field runs to the '}' that closes it (a spec may nest fields).
    size_t j = i + 1;
    int open = 1;
    for (; j < fmt.size(); ++j) {
      if (fmt[j] == '{') ++open;
      else if (fmt[j] == '}' && --open == 0) break;
    }
    if (j >= fmt.size()) fail(loc, open > 1 || fmt.find('}', i) != std::string::npos ? "expected '}' before end of string" : "Single '{' encountered in format string", ErrorClass::ValueError);
    std::string field = fmt.substr(i + 1, j - i - 1);
    i = j;
    // field_name ('[' keys may hold any character but ']'), then !conv, :spec.
    size_t k = 0;
    for (int bracket = 0; k < field.size(); ++k) {
      if (field[k] == '[') bracket = 1;
      else if (field[k] == ']') bracket = 0;
      else if (!bracket && (field[k] == '!' || field[k] == ':')) break;
    }
    std::string name = field.substr(0, k);
    char conv = 0;
    std::string spec;
    if (k < field.size() && field[k] == '!') {
      if (k + 1 >= field.size()) fail(loc, "end of string while looking for conversion specifier");
      conv = field[k + 1];
      k += 2;
      if (k < field.size() && field[k] != ':') fail(loc, "expected ':' after conversion specifier");
    }
    if (k < field.size()) spec = field.substr(k + 1);
    size_t end = name.find_first_of(".[");
    std::string head = name.substr(0, end);
    Value v;
    if (head.empty() || allDigits(head)) {
      bool automatic = head.empty();
      if (numbering.mode == (automatic ? Numbering::Manual : Numbering::Auto))
        fail(loc, automatic ? "cannot switch from manual field specification to automatic field numbering"
                            : "cannot switch from automatic field numbering to manual field specification",
             ErrorClass::ValueError);
      numbering.mode = automatic ? Numbering::Auto : Numbering::Manual;
      if (head.size() > 9) fail(loc, "Too many decimal digits in format string", ErrorClass::ValueError);
      size_t index = automatic ? numbering.next++ : std::stoul(head);
      if (index >= args.size())
        fail(loc, "Replacement index " + std::to_string(index) + " out of range for positional args tuple",
             ErrorClass::IndexError);
      v = args[index];
    } else {
      size_t at = 0;
      while (at < names.size() && names[at] != head) ++at;
      if (at == names.size()) fail(loc, "'" + head + "'", ErrorClass::KeyError);
      v = kwargs[at];
    }
    // Accessors: [key] indexes (digits: an int), .name is not supported.
    while (end != std::string::npos && end < name.size()) {
      if (name[end] == '.') fail(loc, "attribute access in a format field ('" + name + "') is not supported");
      size_t close = name.find(']', end);
      if (close == std::string::npos) fail(loc, "Missing ']' in format string");
      std::string key = name.substr(end + 1, close - end - 1);
      if (key.empty()) fail(loc, "Empty attribute in format string");
      Value index = allDigits(key) && key.size() < 19 ? Value::integer(std::stoll(key)) : Value::str(key);
      v = getItem(v, index, loc);
      end = close + 1;
      if (end < name.size() && name[end] != '[' && name[end] != '.')
        fail(loc, "Only '.' or '[' may follow ']' in format field specifier");
    }
    if (spec.find('{') != std::string::npos) spec = expandTemplate(spec, args, names, kwargs, loc, numbering, depth + 1);
    out += formatValue(convert(v, conv, loc), spec, loc);
  }
  return out;
}

}  // namespace

std::string formatTemplate(const std::string& fmt, const std::vector<Value>& args,
                           const std::vector<std::string>& names, const std::vector<Value>& kwargs, SourceLoc loc) {
  Numbering numbering;
  return expandTemplate(fmt, args, names, kwargs, loc, numbering, 0);
}

namespace {

// The value a numeric %-conversion formats: a number, or a one-element
// tensor's Python scalar (PyTorch's __float__/__index__).
Value numberFor(const Value& v, char conv, SourceLoc loc) {
  Value x = v.is(Kind::Tensor) && tensorOf(v).numel() == 1 ? item(tensorOf(v), loc) : v;
  bool integral = conv == 'x' || conv == 'X' || conv == 'o' || conv == 'c';
  if (!x.isNumber() || (integral && x.is(Kind::Float)))
    fail(loc, std::string("%") + conv + " format: " + (integral ? "an integer" : "a real number") +
                  " is required, not " + typeName(x),
         ErrorClass::TypeError);
  return x;
}

}  // namespace

std::string percentFormat(const std::string& fmt, const Value& values, SourceLoc loc) {
  std::vector<Value> args;
  bool mapping = values.is(Kind::Dict);
  if (values.is(Kind::Tuple)) args = values.as<SeqObj>().items;
  else args.push_back(values);
  size_t next = 0;
  auto take = [&]() -> const Value& {
    if (next >= args.size()) fail(loc, "not enough arguments for format string", ErrorClass::TypeError);
    return args[next++];
  };
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') { out += fmt[i]; continue; }
    if (++i >= fmt.size()) fail(loc, "incomplete format", ErrorClass::ValueError);
    Value mapped;
    bool keyed = fmt[i] == '(';
    if (keyed) {
      if (!mapping) fail(loc, "format requires a mapping", ErrorClass::TypeError);
      size_t close = fmt.find(')', i);
      if (close == std::string::npos) fail(loc, "incomplete format key", ErrorClass::ValueError);
      mapped = getItem(values, Value::str(fmt.substr(i + 1, close - i - 1)), loc);
      i = close + 1;
    }
    Spec sp;
    bool left = false;
    for (; i < fmt.size() && std::string("-+ #0").find(fmt[i]) != std::string::npos; ++i) {
      if (fmt[i] == '-') left = true;
      else if (fmt[i] == '+') sp.sign = '+';
      else if (fmt[i] == ' ' && sp.sign != '+') sp.sign = ' ';
      else if (fmt[i] == '#') sp.alt = true;
      else if (fmt[i] == '0') sp.zero = true;
    }
    auto number = [&](int& into) {
      if (i < fmt.size() && fmt[i] == '*') {
        const Value& w = take();
        if (!w.isIntLike()) fail(loc, "* wants int", ErrorClass::TypeError);
        into = static_cast<int>(std::clamp<int64_t>(w.asInt(), -INT32_MAX, INT32_MAX));
        ++i;
      } else if (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) {
        into = digitsAt(fmt, i, loc);
      }
    };
    number(sp.width);
    if (sp.width < -1) left = true, sp.width = -sp.width;
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      sp.precision = 0;
      number(sp.precision);
    }
    if (i >= fmt.size()) fail(loc, "incomplete format", ErrorClass::ValueError);
    char conv = fmt[i];
    if (conv == '%') { out += '%'; continue; }
    const Value& v = keyed ? mapped : take();
    if (left) sp.align = '<', sp.zero = false;
    std::string text;
    switch (conv) {
      case 's':
      case 'r':
      case 'a': {
        sp.zero = false;
        text = pad(sp, "", truncated(conv == 's' ? str(v) : repr(v), sp.precision), '>');
        break;
      }
      case 'd':
      case 'i':
      case 'u':
      case 'x':
      case 'X':
      case 'o': {
        Value x = numberFor(v, conv, loc);
        int64_t n = x.is(Kind::Float) ? static_cast<int64_t>(std::trunc(x.asFloat())) : x.asInt();
        if (x.is(Kind::Float) && !std::isfinite(x.asFloat()))
          fail(loc, "cannot convert float " + floatRepr(x.asFloat()) + " to integer",
               std::isnan(x.asFloat()) ? ErrorClass::ValueError : ErrorClass::OverflowError);
        sp.minDigits = sp.precision;
        sp.precision = -1;
        sp.type = conv == 'i' || conv == 'u' ? 'd' : conv;
        text = formatInt(n, sp, loc);
        break;
      }
      case 'c': {
        if (v.is(Kind::Str)) {
          if (utf8Length(v.asStr()) != 1) fail(loc, "%c requires an int or a unicode character, not a string of length " + std::to_string(utf8Length(v.asStr())), ErrorClass::TypeError);
          text = pad(sp, "", v.asStr(), '>');
        } else {
          sp.type = 'c';
          if (!left) sp.align = '>';
          text = formatInt(numberFor(v, conv, loc).asInt(), sp, loc);
        }
        break;
      }
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G': {
        sp.type = conv;
        if (sp.precision < 0) sp.precision = 6;
        text = formatFloat(numberFor(v, conv, loc).asFloat(), sp, loc);
        break;
      }
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%x", static_cast<unsigned char>(conv));
        fail(loc, std::string("unsupported format character '") + conv + "' (" + hex + ") at index " + std::to_string(i),
             ErrorClass::ValueError);
      }
    }
    out += text;
  }
  if (!mapping && next < args.size()) fail(loc, "not all arguments converted during string formatting", ErrorClass::TypeError);
  return out;
}

}  // namespace nn::rt
