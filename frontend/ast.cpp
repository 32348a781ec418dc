// Operator spellings and the `--emit=ast` dump of the AST.
#include "frontend/ast.h"

#include <iomanip>
#include <sstream>

namespace nn::ast {

const char* binOpSymbol(BinOp op) {
  static const char* names[] = {"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"};
  return names[static_cast<int>(op)];
}
const char* unaryOpSymbol(UnaryOp op) {
  static const char* names[] = {"-", "+", "~", "not"};
  return names[static_cast<int>(op)];
}
const char* cmpOpSymbol(CmpOp op) {
  static const char* names[] = {"<", "<=", ">", ">=", "==", "!=", "in", "not in", "is", "is not"};
  return names[static_cast<int>(op)];
}

void forEachChild(const Expr& e, const std::function<void(const Expr&)>& fn) {
  auto each = [&](const std::vector<ExprPtr>& v) {
    for (const auto& x : v) fn(*x);
  };
  auto opt = [&](const ExprPtr& p) {
    if (p) fn(*p);
  };
  switch (e.kind) {
    case ExprKind::FStr:
      for (const auto& p : static_cast<const FStrExpr&>(e).parts) {
        opt(p.expr);
        for (const auto& q : p.specFields) opt(q.expr);
      }
      break;
    case ExprKind::Tuple: each(static_cast<const TupleExpr&>(e).elts); break;
    case ExprKind::List: each(static_cast<const ListExpr&>(e).elts); break;
    case ExprKind::Dict:
      for (const auto& k : static_cast<const DictExpr&>(e).keys) opt(k);
      each(static_cast<const DictExpr&>(e).values);
      break;
    case ExprKind::Unary: fn(*static_cast<const UnaryExpr&>(e).operand); break;
    case ExprKind::Binary:
      fn(*static_cast<const BinaryExpr&>(e).lhs);
      fn(*static_cast<const BinaryExpr&>(e).rhs);
      break;
    case ExprKind::Compare: each(static_cast<const CompareExpr&>(e).operands); break;
    case ExprKind::BoolOp: each(static_cast<const BoolOpExpr&>(e).values); break;
    case ExprKind::IfExp: {
      const auto& x = static_cast<const IfExpr&>(e);
      fn(*x.cond), fn(*x.then), fn(*x.orelse);
      break;
    }
    case ExprKind::Lambda: {
      const auto& x = static_cast<const LambdaExpr&>(e);
      for (const auto& p : x.params) opt(p.defaultValue);
      fn(*x.body);
      break;
    }
    case ExprKind::Call: {
      const auto& x = static_cast<const CallExpr&>(e);
      fn(*x.func);
      each(x.args);
      for (const auto& k : x.keywords) fn(*k.value);
      break;
    }
    case ExprKind::Attribute: fn(*static_cast<const AttributeExpr&>(e).value); break;
    case ExprKind::Subscript:
      fn(*static_cast<const SubscriptExpr&>(e).value);
      fn(*static_cast<const SubscriptExpr&>(e).index);
      break;
    case ExprKind::Slice: {
      const auto& x = static_cast<const SliceExpr&>(e);
      opt(x.lower), opt(x.upper), opt(x.step);
      break;
    }
    case ExprKind::ListComp: {
      const auto& x = static_cast<const ListCompExpr&>(e);
      if (x.key) fn(*x.key);
      fn(*x.elt);
      for (const auto& g : x.generators) {
        fn(*g.target), fn(*g.iter);
        each(g.ifs);
      }
      break;
    }
    case ExprKind::Starred: fn(*static_cast<const StarredExpr&>(e).value); break;
    case ExprKind::Named:
      fn(*static_cast<const NamedExpr&>(e).target);
      fn(*static_cast<const NamedExpr&>(e).value);
      break;
    default: break;
  }
}

namespace {

class Dumper {
 public:
  explicit Dumper(std::ostream& os) : os_(os) {}

  void body(const Body& b, int d) {
    for (const auto& s : b) stmt(*s, d);
  }

 private:
  void line(int d, const std::string& text, const SourceLoc& l) {
    os_ << std::string(2 * d, ' ') << text << "  @" << l.line << ":" << l.col << "\n";
  }
  static std::string quote(const std::string& s) {
    std::ostringstream o;
    o << std::quoted(s);
    return o.str();
  }

  void expr(const Expr& e, int d) {
    switch (e.kind) {
      case ExprKind::Name: line(d, "Name " + static_cast<const NameExpr&>(e).id, e.loc); break;
      case ExprKind::Int: line(d, "Int " + std::to_string(static_cast<const IntExpr&>(e).value), e.loc); break;
      case ExprKind::Float: {
        std::ostringstream o;
        o << std::setprecision(17) << static_cast<const FloatExpr&>(e).value;
        line(d, "Float " + o.str(), e.loc);
        break;
      }
      case ExprKind::Str: line(d, "Str " + quote(static_cast<const StrExpr&>(e).value), e.loc); break;
      case ExprKind::FStr: {
        line(d, "FStr", e.loc);
        for (const auto& p : static_cast<const FStrExpr&>(e).parts) {
          if (!p.expr) {
            line(d + 1, "Text " + quote(p.literal), e.loc);
            continue;
          }
          std::string field = "Field";
          if (p.conversion) field += std::string(" !") + p.conversion;
          if (!p.spec.empty()) field += " :" + p.spec;
          if (!p.specFields.empty()) field += " :(fields)";
          line(d + 1, field, p.expr->loc);
          expr(*p.expr, d + 2);
          for (const auto& q : p.specFields) {
            if (q.expr) expr(*q.expr, d + 2);
            else line(d + 2, "Text " + quote(q.literal), e.loc);
          }
        }
        break;
      }
      case ExprKind::Bool: line(d, static_cast<const BoolExpr&>(e).value ? "True" : "False", e.loc); break;
      case ExprKind::None: line(d, "None", e.loc); break;
      case ExprKind::Ellipsis: line(d, "Ellipsis", e.loc); break;
      case ExprKind::Tuple: list("Tuple", static_cast<const TupleExpr&>(e).elts, e.loc, d); break;
      case ExprKind::List: list("List", static_cast<const ListExpr&>(e).elts, e.loc, d); break;
      case ExprKind::Dict: {
        const auto& x = static_cast<const DictExpr&>(e);
        line(d, "Dict", e.loc);
        for (size_t i = 0; i < x.keys.size(); ++i) {
          if (x.keys[i]) expr(*x.keys[i], d + 1);
          else line(d + 1, "DictUnpack", x.values[i]->loc);
          expr(*x.values[i], d + 2);
        }
        break;
      }
      case ExprKind::Unary: {
        const auto& x = static_cast<const UnaryExpr&>(e);
        line(d, std::string("Unary ") + unaryOpSymbol(x.op), e.loc);
        expr(*x.operand, d + 1);
        break;
      }
      case ExprKind::Binary: {
        const auto& x = static_cast<const BinaryExpr&>(e);
        line(d, std::string("Binary ") + binOpSymbol(x.op), e.loc);
        expr(*x.lhs, d + 1);
        expr(*x.rhs, d + 1);
        break;
      }
      case ExprKind::Compare: {
        const auto& x = static_cast<const CompareExpr&>(e);
        std::string ops = "Compare";
        for (CmpOp op : x.ops) ops += std::string(" ") + cmpOpSymbol(op);
        list(ops, x.operands, e.loc, d);
        break;
      }
      case ExprKind::BoolOp: {
        const auto& x = static_cast<const BoolOpExpr&>(e);
        list(x.isAnd ? "And" : "Or", x.values, e.loc, d);
        break;
      }
      case ExprKind::IfExp: {
        const auto& x = static_cast<const IfExpr&>(e);
        line(d, "IfExp", e.loc);
        expr(*x.cond, d + 1);
        expr(*x.then, d + 1);
        expr(*x.orelse, d + 1);
        break;
      }
      case ExprKind::Lambda: {
        const auto& x = static_cast<const LambdaExpr&>(e);
        line(d, "Lambda" + params(x.params), e.loc);
        expr(*x.body, d + 1);
        break;
      }
      case ExprKind::Call: {
        const auto& x = static_cast<const CallExpr&>(e);
        line(d, "Call", e.loc);
        expr(*x.func, d + 1);
        for (const auto& a : x.args) expr(*a, d + 1);
        for (const auto& k : x.keywords) {
          line(d + 1, k.name.empty() ? "Keyword **" : "Keyword " + k.name, k.loc);
          expr(*k.value, d + 2);
        }
        break;
      }
      case ExprKind::Attribute: {
        const auto& x = static_cast<const AttributeExpr&>(e);
        line(d, "Attribute ." + x.attr, e.loc);
        expr(*x.value, d + 1);
        break;
      }
      case ExprKind::Subscript: {
        const auto& x = static_cast<const SubscriptExpr&>(e);
        line(d, "Subscript", e.loc);
        expr(*x.value, d + 1);
        expr(*x.index, d + 1);
        break;
      }
      case ExprKind::Slice: {
        const auto& x = static_cast<const SliceExpr&>(e);
        line(d, "Slice", e.loc);
        for (const ExprPtr* p : {&x.lower, &x.upper, &x.step}) {
          if (*p) expr(**p, d + 1);
          else line(d + 1, "-", e.loc);
        }
        break;
      }
      case ExprKind::ListComp: {
        const auto& x = static_cast<const ListCompExpr&>(e);
        line(d, x.key ? "DictComp" : "ListComp", e.loc);
        if (x.key) expr(*x.key, d + 1);
        expr(*x.elt, d + 1);
        for (const auto& g : x.generators) {
          line(d + 1, "For", g.target->loc);
          expr(*g.target, d + 2);
          expr(*g.iter, d + 2);
          for (const auto& c : g.ifs) expr(*c, d + 2);
        }
        break;
      }
      case ExprKind::Starred:
        line(d, "Starred", e.loc);
        expr(*static_cast<const StarredExpr&>(e).value, d + 1);
        break;
      case ExprKind::Named:
        line(d, "Named", e.loc);
        expr(*static_cast<const NamedExpr&>(e).target, d + 1);
        expr(*static_cast<const NamedExpr&>(e).value, d + 1);
        break;
    }
  }

  void list(const std::string& head, const std::vector<ExprPtr>& elts, const SourceLoc& l, int d) {
    line(d, head, l);
    for (const auto& x : elts) expr(*x, d + 1);
  }

  static std::string params(const std::vector<Param>& ps) {
    std::string s = "(";
    for (size_t i = 0; i < ps.size(); ++i) {
      if (i) s += ", ";
      if (ps[i].kind == ir::ParamKind::VarArgs) s += "*";
      if (ps[i].kind == ir::ParamKind::VarKeywords) s += "**";
      if (ps[i].kind == ir::ParamKind::KeywordOnly && (i == 0 || ps[i - 1].kind == ir::ParamKind::Positional))
        s += "*, ";
      s += ps[i].name;
      if (ps[i].defaultValue) s += "=...";
    }
    return s + ")";
  }

  void stmt(const Stmt& s, int d) {
    switch (s.kind) {
      case StmtKind::Expr:
        line(d, "ExprStmt", s.loc);
        expr(*static_cast<const ExprStmt&>(s).value, d + 1);
        break;
      case StmtKind::Assign: {
        const auto& x = static_cast<const AssignStmt&>(s);
        line(d, "Assign", s.loc);
        for (const auto& t : x.targets) expr(*t, d + 1);
        if (x.annotation) expr(*x.annotation, d + 1);
        if (x.value) expr(*x.value, d + 1);
        break;
      }
      case StmtKind::AugAssign: {
        const auto& x = static_cast<const AugAssignStmt&>(s);
        line(d, std::string("AugAssign ") + binOpSymbol(x.op) + "=", s.loc);
        expr(*x.target, d + 1);
        expr(*x.value, d + 1);
        break;
      }
      case StmtKind::If: {
        const auto& x = static_cast<const IfStmt&>(s);
        line(d, "If", s.loc);
        expr(*x.cond, d + 1);
        body(x.then, d + 1);
        if (!x.orelse.empty()) {
          line(d, "Else", s.loc);
          body(x.orelse, d + 1);
        }
        break;
      }
      case StmtKind::While: {
        const auto& x = static_cast<const WhileStmt&>(s);
        line(d, "While", s.loc);
        expr(*x.cond, d + 1);
        body(x.body, d + 1);
        if (!x.orelse.empty()) {
          line(d, "Else", s.loc);
          body(x.orelse, d + 1);
        }
        break;
      }
      case StmtKind::For: {
        const auto& x = static_cast<const ForStmt&>(s);
        line(d, "For", s.loc);
        expr(*x.target, d + 1);
        expr(*x.iter, d + 1);
        body(x.body, d + 1);
        if (!x.orelse.empty()) {
          line(d, "Else", s.loc);
          body(x.orelse, d + 1);
        }
        break;
      }
      case StmtKind::FuncDef: {
        const auto& x = static_cast<const FuncDefStmt&>(s);
        for (const auto& dec : x.decorators) {
          line(d, "Decorator", dec.loc);
          expr(*dec.expr, d + 1);
        }
        line(d, "FuncDef " + x.name + params(x.params), s.loc);
        body(x.body, d + 1);
        break;
      }
      case StmtKind::Return: {
        const auto& x = static_cast<const ReturnStmt&>(s);
        line(d, "Return", s.loc);
        if (x.value) expr(*x.value, d + 1);
        break;
      }
      case StmtKind::Pass: line(d, "Pass", s.loc); break;
      case StmtKind::Break: line(d, "Break", s.loc); break;
      case StmtKind::Continue: line(d, "Continue", s.loc); break;
      case StmtKind::Global: {
        std::string names = "Global";
        for (const auto& n : static_cast<const GlobalStmt&>(s).names) names += " " + n;
        line(d, names, s.loc);
        break;
      }
      case StmtKind::Import: {
        std::string names = "Import";
        for (const auto& n : static_cast<const ImportStmt&>(s).names)
          names += " " + n.name + (n.asName.empty() ? "" : " as " + n.asName);
        line(d, names, s.loc);
        break;
      }
      case StmtKind::ImportFrom: {
        const auto& x = static_cast<const ImportFromStmt&>(s);
        std::string names = "ImportFrom " + x.module + ":";
        for (const auto& n : x.names) names += " " + n.name + (n.asName.empty() ? "" : " as " + n.asName);
        line(d, names, s.loc);
        break;
      }
      case StmtKind::Assert: {
        const auto& x = static_cast<const AssertStmt&>(s);
        line(d, "Assert", s.loc);
        expr(*x.test, d + 1);
        if (x.msg) expr(*x.msg, d + 1);
        break;
      }
      case StmtKind::Del:
        line(d, "Del", s.loc);
        expr(*static_cast<const DelStmt&>(s).target, d + 1);
        break;
      case StmtKind::Raise: {
        const auto& x = static_cast<const RaiseStmt&>(s);
        line(d, "Raise", s.loc);
        if (x.exc) expr(*x.exc, d + 1);
        break;
      }
      case StmtKind::With: {
        const auto& x = static_cast<const WithStmt&>(s);
        line(d, "With", s.loc);
        for (const auto& i : x.items) expr(*i, d + 1);
        body(x.body, d + 1);
        break;
      }
      case StmtKind::Try: {
        const auto& x = static_cast<const TryStmt&>(s);
        line(d, "Try", s.loc);
        body(x.body, d + 1);
        for (const auto& h : x.handlers) {
          line(d + 1, "Except" + std::string(h.name.empty() ? "" : " as " + h.name), h.loc);
          if (h.type) expr(*h.type, d + 2);
          body(h.body, d + 2);
        }
        if (!x.orelse.empty()) {
          line(d + 1, "Else", s.loc);
          body(x.orelse, d + 2);
        }
        if (!x.finalbody.empty()) {
          line(d + 1, "Finally", s.loc);
          body(x.finalbody, d + 2);
        }
        break;
      }
      case StmtKind::Unsupported:
        line(d, "Unsupported " + static_cast<const UnsupportedStmt&>(s).what, s.loc);
        break;
    }
  }

  std::ostream& os_;
};

}  // namespace

void dump(const Module& m, std::ostream& os) {
  os << "Module\n";
  Dumper(os).body(m.body, 1);
}

}  // namespace nn::ast
