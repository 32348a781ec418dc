// Printing and parsing of IR type names.
#include "ir/types.h"

#include <cctype>

namespace nn::ir {

static const char* const kTypeNames[] = {"any", "none", "bool", "int", "float", "str",
                                         "tuple", "list", "dict", "func", "module", "tensor", "token"};

std::string Dim::str() const {
  if (isKnown()) return std::to_string(size);
  return sym.empty() ? "?" : sym;
}

std::string shapeStr(const DimList& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i].str();
  return s + "]";
}

std::string Type::str() const {
  if (kind != TypeKind::Tensor) return kTypeNames[static_cast<int>(kind)];
  if (!dtype) return shape ? "tensor" + shapeStr(*shape) : "tensor";
  return std::string(dtypeName(*dtype)) + (shape ? shapeStr(*shape) : "[...]");
}

static std::optional<DimList> parseDims(std::string_view text) {
  DimList dims;
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  skip();
  if (i == text.size()) return dims;
  while (true) {
    skip();
    size_t start = i;
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '?')) ++i;
    std::string_view d = text.substr(start, i - start);
    if (d.empty()) return std::nullopt;
    if (d == "?") dims.push_back(Dim::unknown());
    else if (std::isdigit(static_cast<unsigned char>(d[0]))) {
      int64_t n = 0;
      for (char c : d) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, c - '0', &n)) return std::nullopt;
      }
      dims.push_back(Dim::known(n));
    } else {
      dims.push_back(Dim::symbol(std::string(d)));
    }
    skip();
    if (i == text.size()) return dims;
    if (text[i] != ',') return std::nullopt;
    ++i;
  }
}

std::optional<Type> Type::parse(std::string_view text) {
  size_t bracket = text.find('[');
  std::string_view head = text.substr(0, bracket);
  std::optional<DimList> shape;
  if (bracket != std::string_view::npos) {
    if (text.back() != ']') return std::nullopt;
    std::string_view inside = text.substr(bracket + 1, text.size() - bracket - 2);
    if (auto dt = dtypeFromName(head); dt && inside == "...") return Type::tensor(*dt);
    shape = parseDims(inside);
    if (!shape) return std::nullopt;
    if (auto dt = dtypeFromName(head)) return Type::tensor(*dt, std::move(shape));
  }
  for (int i = 0; i < static_cast<int>(std::size(kTypeNames)); ++i)
    if (head == kTypeNames[i]) {
      Type t{static_cast<TypeKind>(i)};
      if (shape && t.kind != TypeKind::Tensor) return std::nullopt;
      t.shape = std::move(shape);
      return t;
    }
  return std::nullopt;
}

}  // namespace nn::ir
