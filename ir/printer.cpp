// Stable text printing of the IR. Format:
//
//   module "f.nn"
//
//   func @f(%x: any, %n: any) captures(%0: any) {
//     %1 = const 1 : int loc(2:9-2:10)
//     %2, %3 = loop %1, %x : any, any loc(3:5-6:1) {
//     ^cond(%4: any, %5: any):
//       ...
//       condition %6
//     ^body(%7: any, %8: any):
//       yield %9, %10
//     }
//     return %3
//   }
#include <iomanip>
#include <sstream>
#include <unordered_map>

#include "ir/text.h"
#include "support/float_repr.h"

namespace nn::ir {
namespace {

std::string quoteString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string attrText(const Attr& a) {
  struct V {
    std::string operator()(const NoneAttr&) const { return "none"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      std::string s = floatRepr(d);
      return s;
    }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return quoteString(s); }
    std::string operator()(const std::vector<std::string>& l) const {
      std::string out = "[";
      for (size_t i = 0; i < l.size(); ++i) out += (i ? ", " : "") + quoteString(l[i]);
      return out + "]";
    }
    std::string operator()(const Ints& l) const {
      std::string out = "(";
      for (size_t i = 0; i < l.size(); ++i) out += (i ? ", " : "") + std::to_string(l[i]);
      return out + ")";
    }
  };
  return std::visit(V{}, a);
}

const char* blockLabel(Op op, size_t i) {
  if (op == Op::If) return i == 0 ? "then" : "else";
  if (op == Op::Loop) return i == 0 ? "cond" : "body";
  if (op == Op::Try) return i == 0 ? "body" : "handler";
  if (op == Op::Fused) return "body";
  return "block";
}

class Printer {
 public:
  explicit Printer(std::ostream& os) : os_(os) {}

  void function(const Function& f) {
    names_.clear();
    next_ = 0;
    os_ << "func @" << f.name() << "(";
    const Block* body = f.body();
    // Python's markers: `*%args`, `**%kwargs`, a bare `*` before keyword-only
    // parameters that no `*args` precedes.
    bool starred = false;
    for (size_t i = 0; i < f.numParams(); ++i) {
      Value* v = body->arg(i);
      names_[v] = "%" + f.paramNames()[i];
      os_ << (i ? ", " : "");
      switch (f.paramKind(i)) {
        case ParamKind::Positional: break;
        case ParamKind::VarArgs: os_ << "*"; starred = true; break;
        case ParamKind::KeywordOnly:
          if (!starred) os_ << "*, ";
          starred = true;
          break;
        case ParamKind::VarKeywords: os_ << "**"; break;
      }
      os_ << names_[v] << ": " << v->type().str();
    }
    os_ << ")";
    if (f.numCaptures()) {
      os_ << " captures(";
      for (size_t i = 0; i < f.numCaptures(); ++i) {
        Value* v = body->arg(f.numParams() + i);
        os_ << (i ? ", " : "") << define(v) << ": " << v->type().str() << " "
            << quoteString(f.captureNames()[i]);
      }
      os_ << ")";
    }
    if (f.returnAnnotation()) os_ << " -> " << f.returnAnnotation()->str();
    os_ << " " << loc(f.loc()) << "{\n";
    nodes(*body, 1);
    os_ << "}\n";
  }

 private:
  std::string define(const Value* v) {
    std::string n = "%";  // appended, not "%" + ...: GCC 12's -O3 warns falsely (-Wrestrict) on that
    n += std::to_string(next_++);
    names_[v] = n;
    return n;
  }
  std::string use(const Value* v) {
    auto it = names_.find(v);
    return it == names_.end() ? "%<undefined>" : it->second;
  }
  static std::string loc(const SourceLoc& l) {
    if (!l.line) return "";
    std::ostringstream o;
    o << "loc(" << l.line << ":" << l.col << "-" << l.endLine << ":" << l.endCol << ") ";
    return o.str();
  }

  void nodes(const Block& b, int depth) {
    for (const auto& n : b.nodes()) node(*n, depth);
  }

  void node(const Node& n, int depth) {
    std::string indent(2 * depth, ' ');
    os_ << indent;
    for (size_t i = 0; i < n.numResults(); ++i) os_ << (i ? ", " : "") << define(n.result(i));
    if (n.numResults()) os_ << " = ";
    os_ << n.info().name;
    for (size_t i = 0; i < n.operands().size(); ++i) os_ << (i ? ", " : " ") << use(n.operand(i));
    if (!n.attrs().empty()) {
      os_ << " {";
      for (size_t i = 0; i < n.attrs().size(); ++i)
        os_ << (i ? ", " : "") << n.attrs()[i].first << " = " << attrText(n.attrs()[i].second);
      os_ << "}";
    }
    if (n.numResults()) {
      os_ << " :";
      for (size_t i = 0; i < n.numResults(); ++i) os_ << (i ? ", " : " ") << n.result(i)->type().str();
    }
    std::string l = loc(n.loc());
    if (!l.empty()) os_ << " " << l.substr(0, l.size() - 1);
    for (const SourceLoc& site : n.inlinedAt()) {
      std::string s = loc(site);
      os_ << " inlined" << s.substr(3, s.size() - 4);
    }
    if (n.token()) {
      os_ << " order(";
      for (size_t i = 0; i < n.orderAfter().size(); ++i) os_ << (i ? ", " : "") << use(n.orderAfter()[i]);
      os_ << (n.orderAfter().empty() ? "-> " : " -> ") << define(n.token()) << ")";
    }
    if (n.numBlocks() == 0) {
      os_ << "\n";
      return;
    }
    os_ << " {\n";
    for (size_t i = 0; i < n.numBlocks(); ++i) {
      const Block* b = n.block(i);
      os_ << indent << "^" << blockLabel(n.op(), i) << "(";
      for (size_t a = 0; a < b->numArgs(); ++a)
        os_ << (a ? ", " : "") << define(b->arg(a)) << ": " << b->arg(a)->type().str();
      os_ << "):\n";
      nodes(*b, depth + 1);
    }
    os_ << indent << "}\n";
  }

  std::ostream& os_;
  std::unordered_map<const Value*, std::string> names_;
  uint32_t next_ = 0;
};

}  // namespace

void print(const Function& f, std::ostream& os) { Printer(os).function(f); }

void print(const Graph& g, std::ostream& os) {
  os << "module " << quoteString(g.sourceName()) << "\n";
  for (const auto& f : g.functions()) {
    os << "\n";
    print(*f, os);
  }
}

std::string toString(const Graph& g) {
  std::ostringstream os;
  print(g, os);
  return os.str();
}

}  // namespace nn::ir
