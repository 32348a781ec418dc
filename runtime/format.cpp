// Python's format-spec mini-language, implemented over snprintf for the
// numeric conversions. Defaults follow Python: strings align left, numbers
// right; a '0' flag means zero padding after the sign.
#include "runtime/format.h"

#include <cmath>
#include <cstdio>

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
};

bool isAlign(char c) { return c == '<' || c == '>' || c == '=' || c == '^'; }

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
  size_t start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i > start) sp.width = std::stoi(s.substr(start, i - start));
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) sp.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start) fail(loc, "format specifier missing precision");
    sp.precision = std::stoi(s.substr(start, i - start));
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
      if (v < 0 || v > 0x10FFFF) fail(loc, "%c arg not in range(0x110000)");
      std::string s;
      if (v < 0x80) s += static_cast<char>(v);
      else fail(loc, "format type 'c' supports only ASCII here");
      return pad(sp, "", s, '<');
    }
    default: fail(loc, std::string("unknown format code '") + type + "' for object of type 'int'");
  }
  if (sp.precision >= 0) fail(loc, "precision not allowed in integer format specifier");
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
      fail(loc, std::string("unknown format code '") + type + "' for object of type 'float'");
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
  Spec sp = parseSpec(spec, loc);
  switch (v.kind()) {
    case Kind::Int:
    case Kind::Bool:
      if (sp.type && std::string("eEfFgG%").find(sp.type) != std::string::npos)
        return formatFloat(v.asFloat(), sp, loc);
      return formatInt(v.asInt(), sp, loc);
    case Kind::Float:
      if (sp.type == 'd') fail(loc, "unknown format code 'd' for object of type 'float'");
      return formatFloat(v.asFloat(), sp, loc);
    case Kind::Str: {
      if (sp.type && sp.type != 's')
        fail(loc, std::string("unknown format code '") + sp.type + "' for object of type 'str'");
      if (sp.sign != '-') fail(loc, "sign not allowed in string format specifier");
      std::string s = v.asStr();
      if (sp.precision >= 0 && static_cast<size_t>(sp.precision) < utf8Length(s)) {
        std::vector<std::string> chars = utf8Chars(s);
        s.clear();
        for (int i = 0; i < sp.precision; ++i) s += chars[i];
      }
      return pad(sp, "", s, '<');
    }
    default:
      fail(loc, std::string("unsupported format string passed to ") + typeName(v) + ".__format__");
  }
}

}  // namespace nn::rt
