// The text form of annotations (see annotation.h): printing, and a
// recursive-descent parser for exactly what the printer writes.
#include "ir/annotation.h"

#include <cctype>

namespace nn::ir {

std::string Annotation::str() const {
  auto joined = [&](const char* sep) {
    std::string s;
    for (size_t i = 0; i < args.size(); ++i) s += (i ? sep : "") + args[i].str();
    return s;
  };
  switch (form) {
    case Form::Union: return joined(" | ");
    case Form::Each:
      if (type.kind == TypeKind::Dict) return "dict[str, " + args[0].str() + "]";
      if (type.kind == TypeKind::Tuple) return "tuple[" + args[0].str() + ", ...]";
      return type.str() + "[" + args[0].str() + "]";
    case Form::Items: return "tuple[" + (args.empty() ? std::string("()") : joined(", ")) + "]";
    case Form::Plain: break;
  }
  switch (type.kind) {
    case TypeKind::Any: return "Any";
    case TypeKind::None: return "None";
    case TypeKind::Func: return "Callable";
    default: return type.str();
  }
}

namespace {

class AnnotationParser {
 public:
  explicit AnnotationParser(std::string_view text) : text_(text) {}

  std::optional<Annotation> all() {
    std::optional<Annotation> a = annotation();
    skip();
    if (!a || i_ != text_.size()) return std::nullopt;
    return a;
  }

 private:
  std::optional<Annotation> annotation() {
    // Deeper than any annotation written by hand: the parser's recursion
    // stays well inside the stack, whatever the text.
    if (++depth_ > kMaxDepth) return std::nullopt;
    std::optional<Annotation> a = union_();
    --depth_;
    return a;
  }

  std::optional<Annotation> union_() {
    std::optional<Annotation> first = item();
    if (!first || !accept('|')) return first;
    Annotation u = Annotation::of(Type::any());
    u.form = Annotation::Form::Union;
    u.args.push_back(std::move(*first));
    do {
      std::optional<Annotation> next = item();
      if (!next) return std::nullopt;
      u.args.push_back(std::move(*next));
    } while (accept('|'));
    return u;
  }

  std::optional<Annotation> item() {
    skip();
    size_t start = i_;
    while (i_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[i_])) || text_[i_] == '_')) ++i_;
    std::string_view name = text_.substr(start, i_ - start);
    if (name == "Any") return Annotation::of(Type::any());
    if (name == "None") return Annotation::of(TypeKind::None);
    if (name == "Callable") return Annotation::of(TypeKind::Func);
    if (name == "list" || name == "dict" || name == "tuple") return container(name);
    // A scalar or tensor type: the type parser reads it, brackets and all.
    if (i_ < text_.size() && text_[i_] == '[') {
      size_t close = text_.find(']', i_);
      if (close == std::string_view::npos) return std::nullopt;
      i_ = close + 1;
    }
    std::optional<Type> t = Type::parse(text_.substr(start, i_ - start));
    bool scalarOrTensor = t && (t->kind == TypeKind::Bool || t->kind == TypeKind::Int || t->kind == TypeKind::Float ||
                                t->kind == TypeKind::Str || t->kind == TypeKind::Tensor);
    if (!scalarOrTensor) return std::nullopt;
    return Annotation::of(std::move(*t));
  }

  std::optional<Annotation> container(std::string_view name) {
    Annotation a = Annotation::of(*Type::parse(name));
    if (!accept('[')) return a;
    if (name == "tuple" && accept('(')) {
      if (!accept(')') || !accept(']')) return std::nullopt;
      a.form = Annotation::Form::Items;
      return a;
    }
    if (name == "dict") {
      std::optional<Annotation> key = item();
      if (!key || key->type.kind != TypeKind::Str || !accept(',')) return std::nullopt;
    }
    a.form = Annotation::Form::Each;
    do {
      skip();
      if (name == "tuple" && text_.substr(i_, 3) == "...") {
        i_ += 3;
        if (a.args.size() != 1 || a.form != Annotation::Form::Each) return std::nullopt;
        if (!accept(']')) return std::nullopt;
        return a;
      }
      std::optional<Annotation> arg = annotation();
      if (!arg) return std::nullopt;
      a.args.push_back(std::move(*arg));
      if (a.args.size() > 1) {
        if (name != "tuple") return std::nullopt;
        a.form = Annotation::Form::Items;
      }
    } while (accept(','));
    if (!accept(']')) return std::nullopt;
    // tuple[int] is a tuple of one int, not of any number of them.
    if (name == "tuple") a.form = Annotation::Form::Items;
    return a;
  }

  void skip() {
    while (i_ < text_.size() && text_[i_] == ' ') ++i_;
  }
  bool accept(char c) {
    skip();
    if (i_ < text_.size() && text_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  static constexpr int kMaxDepth = 100;
  std::string_view text_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

std::optional<Annotation> Annotation::parse(std::string_view text) { return AnnotationParser(text).all(); }

}  // namespace nn::ir
