// The abstract syntax tree of nn. It is the project's own tree: no ANTLR type
// appears here, every node carries its source range, and it is what name
// resolution and SSA lowering consume. Nodes are plain structs owned through
// unique_ptr; `kind` says which struct a node is.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "ir/param_kind.h"
#include "support/source.h"

namespace nn::ast {

enum class ExprKind {
  Name, Int, Float, Str, FStr, Bool, None, Ellipsis,
  Tuple, List, Dict, Unary, Binary, Compare, BoolOp, IfExp, Lambda,
  Call, Attribute, Subscript, Slice, ListComp, Starred, Named,
};

enum class StmtKind {
  Expr, Assign, AugAssign, If, While, For, FuncDef, Return, Pass, Break,
  Continue, Global, Import, ImportFrom, Assert, Raise, With, Try, Del, Unsupported,
};

// Operator spellings shared by unary, binary, augmented and compare nodes.
enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, BitAnd, BitOr, BitXor, LShift, RShift };
enum class UnaryOp { Neg, Pos, Invert, Not };
enum class CmpOp { Lt, Le, Gt, Ge, Eq, Ne, In, NotIn, Is, IsNot };

const char* binOpSymbol(BinOp op);
const char* unaryOpSymbol(UnaryOp op);
const char* cmpOpSymbol(CmpOp op);

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  // Height of this subtree (1 for a leaf); the builder bounds it so that
  // recursive passes over expressions cannot exhaust the native stack.
  uint32_t depth = 1;
  explicit Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Expr() = default;
};

template <ExprKind K>
struct ExprOf : Expr {
  static constexpr ExprKind kKind = K;
  explicit ExprOf(SourceLoc l) : Expr(K, l) {}
};

struct NameExpr : ExprOf<ExprKind::Name> { using ExprOf::ExprOf; std::string id; };
struct IntExpr : ExprOf<ExprKind::Int> { using ExprOf::ExprOf; int64_t value = 0; };
struct FloatExpr : ExprOf<ExprKind::Float> { using ExprOf::ExprOf; double value = 0; };
struct StrExpr : ExprOf<ExprKind::Str> { using ExprOf::ExprOf; std::string value; };
struct BoolExpr : ExprOf<ExprKind::Bool> { using ExprOf::ExprOf; bool value = false; };
struct NoneExpr : ExprOf<ExprKind::None> { using ExprOf::ExprOf; };
struct EllipsisExpr : ExprOf<ExprKind::Ellipsis> { using ExprOf::ExprOf; };

// f"text{expr!r:spec}text": literal pieces alternate with replacement fields.
struct FStrPart {
  std::string literal;      // used when expr is null
  ExprPtr expr;
  char conversion = 0;      // 0, 'r' or 's'
  std::string spec;         // the format spec after ':', possibly empty
  // A spec with replacement fields of its own (f"{x:>{w}}"): its text and
  // fields in order, in place of `spec`.
  std::vector<FStrPart> specFields;
};
struct FStrExpr : ExprOf<ExprKind::FStr> { using ExprOf::ExprOf; std::vector<FStrPart> parts; };

struct TupleExpr : ExprOf<ExprKind::Tuple> { using ExprOf::ExprOf; std::vector<ExprPtr> elts; };
struct ListExpr : ExprOf<ExprKind::List> { using ExprOf::ExprOf; std::vector<ExprPtr> elts; };
struct DictExpr : ExprOf<ExprKind::Dict> {
  using ExprOf::ExprOf;
  std::vector<ExprPtr> keys;  // null for **values[i]
  std::vector<ExprPtr> values;
};
struct UnaryExpr : ExprOf<ExprKind::Unary> { using ExprOf::ExprOf; UnaryOp op; ExprPtr operand; };
struct BinaryExpr : ExprOf<ExprKind::Binary> {
  using ExprOf::ExprOf;
  BinOp op;
  ExprPtr lhs, rhs;
  SourceLoc opLoc;
};
// a < b <= c: operands.size() == ops.size() + 1.
struct CompareExpr : ExprOf<ExprKind::Compare> {
  using ExprOf::ExprOf;
  std::vector<ExprPtr> operands;
  std::vector<CmpOp> ops;
};
struct BoolOpExpr : ExprOf<ExprKind::BoolOp> {
  using ExprOf::ExprOf;
  bool isAnd = true;
  std::vector<ExprPtr> values;
};
struct IfExpr : ExprOf<ExprKind::IfExp> { using ExprOf::ExprOf; ExprPtr cond, then, orelse; };

struct Param {
  std::string name;
  SourceLoc loc;
  ir::ParamKind kind = ir::ParamKind::Positional;
  ExprPtr annotation;  // may be null
  ExprPtr defaultValue;  // may be null
};

struct FunctionDef;  // shared by def and lambda

struct LambdaExpr : ExprOf<ExprKind::Lambda> {
  using ExprOf::ExprOf;
  std::vector<Param> params;
  ExprPtr body;
};

// name = value, or `**value` (an empty name).
struct Keyword {
  std::string name;
  SourceLoc loc;
  ExprPtr value;
};
struct CallExpr : ExprOf<ExprKind::Call> {
  using ExprOf::ExprOf;
  ExprPtr func;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
};
struct AttributeExpr : ExprOf<ExprKind::Attribute> {
  using ExprOf::ExprOf;
  ExprPtr value;
  std::string attr;
};
// x[a, b:c]; one index is stored as itself, several as a TupleExpr.
struct SubscriptExpr : ExprOf<ExprKind::Subscript> {
  using ExprOf::ExprOf;
  ExprPtr value;
  ExprPtr index;
};
struct SliceExpr : ExprOf<ExprKind::Slice> { using ExprOf::ExprOf; ExprPtr lower, upper, step; };

struct Comprehension {
  ExprPtr target;
  ExprPtr iter;
  std::vector<ExprPtr> ifs;
};
// [elt for ...], or with a key {key: elt for ...} (a dict comprehension).
struct ListCompExpr : ExprOf<ExprKind::ListComp> {
  using ExprOf::ExprOf;
  ExprPtr key;
  ExprPtr elt;
  std::vector<Comprehension> generators;
};
struct StarredExpr : ExprOf<ExprKind::Starred> { using ExprOf::ExprOf; ExprPtr value; };
// name := value: binds name in the enclosing function (a comprehension's
// too) and is the value.
struct NamedExpr : ExprOf<ExprKind::Named> {
  using ExprOf::ExprOf;
  ExprPtr target;  // a NameExpr
  ExprPtr value;
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  explicit Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Stmt() = default;
};

template <StmtKind K>
struct StmtOf : Stmt {
  static constexpr StmtKind kKind = K;
  explicit StmtOf(SourceLoc l) : Stmt(K, l) {}
};

struct ExprStmt : StmtOf<StmtKind::Expr> { using StmtOf::StmtOf; ExprPtr value; };
// `a = b = v`; `x: T = v` (one target and its annotation); `x: T`, which
// only declares x (no value).
struct AssignStmt : StmtOf<StmtKind::Assign> {
  using StmtOf::StmtOf;
  std::vector<ExprPtr> targets;
  ExprPtr value;       // null in a declaration
  ExprPtr annotation;  // may be null
};
struct AugAssignStmt : StmtOf<StmtKind::AugAssign> {
  using StmtOf::StmtOf;
  ExprPtr target;
  BinOp op;
  ExprPtr value;
};
struct IfStmt : StmtOf<StmtKind::If> { using StmtOf::StmtOf; ExprPtr cond; Body then, orelse; };
struct WhileStmt : StmtOf<StmtKind::While> { using StmtOf::StmtOf; ExprPtr cond; Body body, orelse; };
struct ForStmt : StmtOf<StmtKind::For> {
  using StmtOf::StmtOf;
  ExprPtr target, iter;
  Body body, orelse;
};
struct Decorator {
  ExprPtr expr;  // a name, attribute or call
  SourceLoc loc;
};
struct FuncDefStmt : StmtOf<StmtKind::FuncDef> {
  using StmtOf::StmtOf;
  std::string name;
  SourceLoc nameLoc;
  std::vector<Param> params;
  ExprPtr returns;  // annotation, may be null
  Body body;
  std::vector<Decorator> decorators;
};
struct ReturnStmt : StmtOf<StmtKind::Return> { using StmtOf::StmtOf; ExprPtr value; };
struct PassStmt : StmtOf<StmtKind::Pass> { using StmtOf::StmtOf; };
struct BreakStmt : StmtOf<StmtKind::Break> { using StmtOf::StmtOf; };
struct ContinueStmt : StmtOf<StmtKind::Continue> { using StmtOf::StmtOf; };
struct GlobalStmt : StmtOf<StmtKind::Global> { using StmtOf::StmtOf; std::vector<std::string> names; };
struct ImportAlias {
  std::string name;     // dotted module name or imported member
  std::string asName;   // empty if no "as"
  SourceLoc loc;
};
struct ImportStmt : StmtOf<StmtKind::Import> { using StmtOf::StmtOf; std::vector<ImportAlias> names; };
struct ImportFromStmt : StmtOf<StmtKind::ImportFrom> {
  using StmtOf::StmtOf;
  std::string module;
  std::vector<ImportAlias> names;
};
struct AssertStmt : StmtOf<StmtKind::Assert> { using StmtOf::StmtOf; ExprPtr test, msg; };
struct RaiseStmt : StmtOf<StmtKind::Raise> { using StmtOf::StmtOf; ExprPtr exc; };
struct WithStmt : StmtOf<StmtKind::With> {
  using StmtOf::StmtOf;
  std::vector<ExprPtr> items;
  std::vector<ExprPtr> asTargets;  // null where there is no "as"
  Body body;
};
struct ExceptClause {
  ExprPtr type;      // null for a bare `except:`
  std::string name;  // empty where there is no "as"
  SourceLoc loc;
  Body body;
};
struct TryStmt : StmtOf<StmtKind::Try> {
  using StmtOf::StmtOf;
  Body body;
  std::vector<ExceptClause> handlers;
  Body orelse, finalbody;
  // Every statement list it holds: body, handlers, else, finally.
  std::vector<const Body*> bodies() const {
    std::vector<const Body*> out{&body};
    for (const auto& h : handlers) out.push_back(&h.body);
    out.push_back(&orelse);
    out.push_back(&finalbody);
    return out;
  }
};
// del a, xs[i], d[k]: the targets, a TupleExpr when there are several.
struct DelStmt : StmtOf<StmtKind::Del> { using StmtOf::StmtOf; ExprPtr target; };
// Parsed syntax that nn rejects (nonlocal): lowering
// reports `what` as "not supported" at the statement's location.
struct UnsupportedStmt : StmtOf<StmtKind::Unsupported> { using StmtOf::StmtOf; std::string what; };

struct Module {
  uint32_t file = 0;
  Body body;
};

template <class T>
T* as(Expr* e) { return e && e->kind == T::kKind ? static_cast<T*>(e) : nullptr; }
template <class T>
const T* as(const Expr* e) { return e && e->kind == T::kKind ? static_cast<const T*>(e) : nullptr; }
template <class T>
T* as(Stmt* s) { return s && s->kind == T::kKind ? static_cast<T*>(s) : nullptr; }
template <class T>
const T* as(const Stmt* s) { return s && s->kind == T::kKind ? static_cast<const T*>(s) : nullptr; }

// Calls fn on each direct child expression of e (not on nested statements).
void forEachChild(const Expr& e, const std::function<void(const Expr&)>& fn);

// `nn --emit=ast`: an indented, one-node-per-line dump.
void dump(const Module& m, std::ostream& os);

}  // namespace nn::ast
