// Private state of the AST -> IR lowering, shared by lower_scope.cpp (name
// analysis), lower_stmt.cpp, lower_expr.cpp and lower_func.cpp.
//
// Variables of a function live in `env`, a map from name to the Value that
// currently holds it (SSA construction by renaming). Control statements use
// reserved names in the same map: "$ret"/"$retval" for an early return,
// "$brk"/"$cont" for the innermost loop's break/continue. After a statement
// that may set one of them, the rest of the block is wrapped in an `if` on
// the flags, so no op ever jumps: loops and ifs stay structured.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/lower.h"

namespace nn::frontend {

// Which control transfers a statement may perform that escape it.
struct Jumps {
  bool ret = false, brk = false, cont = false;
  bool any() const { return ret || brk || cont; }
  Jumps& operator|=(const Jumps& o) {
    ret |= o.ret, brk |= o.brk, cont |= o.cont;
    return *this;
  }
};

// The type an annotation declares, located at it (annotations.cpp); fails
// on an annotation nn cannot check.
ir::Annotation annotationOf(const ast::Expr& e);

// Scope analysis (lower_scope.cpp). With `updates`, also the names an
// index assignment rebinds (`x[i] = v`, `del x[k]`): what a loop carries or a
// try tracks, though Python does not make them local.
void collectAssigned(const ast::Body& body, std::set<std::string>& out, bool updates = false);
void collectTargetNames(const ast::Expr& target, std::set<std::string>& out, bool updates = false);
// The names `name := value` in e binds where e runs (not in its lambdas).
void collectNamedTargets(const ast::Expr& e, std::set<std::string>& out);
void collectGlobalDecls(const ast::Body& body, std::set<std::string>& out);
// Whether `first` (FuncCtx::firstRead or firstWrite) places name before `at`.
bool usedBefore(const std::map<std::string, SourceLoc>& first, const std::string& name, SourceLoc at);
// The names a body reads anywhere in it (nested functions' captures too),
// not those it only binds.
void collectReads(const ast::Body& body, std::set<std::string>& out);
// The names a try statement's body, handlers (with their `as` names) and
// else clause assign; not its finally.
void collectTryAssigned(const ast::TryStmt& s, std::set<std::string>& out, bool updates = false);
// The jumps a statement may make, with answers kept in `cache` when one is
// given (a lowering asks at every level of a nesting: an `elif` chain of
// thousands stays linear).
using JumpsCache = std::unordered_map<const ast::Stmt*, Jumps>;
Jumps jumpsOf(const ast::Stmt& s, JumpsCache* cache = nullptr);
bool containsReturn(const ast::Body& body);

using Env = std::map<std::string, ir::Value*>;

ir::Op binaryOp(ast::BinOp op);

struct FuncCtx {
  ir::Function* fn = nullptr;
  FuncCtx* parent = nullptr;
  bool isModule = false;
  std::string selfName;                 // a nested def's own name (recursion)
  std::set<std::string> locals;         // names assigned in the body
  std::set<std::string> globalDecls;    // `global` names
  // Where each name is first written and read, so that a `global` of one
  // after that in the source is an error, as in Python. By position, not
  // by lowering order: a finally body is lowered twice.
  std::map<std::string, SourceLoc> firstWrite, firstRead;
  std::map<std::string, ir::Value*> captures;
  std::vector<std::set<std::string>> compScopes;  // active comprehension variables
  bool hasNestedReturn = false;
  int loopDepth = 0;
  // The variables of each try body being lowered, innermost last: a write
  // of one is tracked for the handler (lower_try.cpp).
  std::vector<std::set<std::string>> tryTracked;
  int tryDepth = 0;  // try bodies being lowered (tryTracked may be empty at module level)
  // The exceptions of the except clauses being lowered, innermost last: a
  // bare raise raises the last.
  std::vector<ir::Value*> handling;
  // Where the returned value of a function without a nested return is
  // written (`return x` at the top of its body): the return node's location,
  // so that returning an unbound name is located there.
  SourceLoc returnLoc;
  Env* env = nullptr;                   // the live environment while lowering this function
};

class Lowerer {
 public:
  Lowerer(const SourceManager& sm, const LowerOptions& options, ir::Graph& g);
  void module(const ast::Module& m);

 private:
  // statements (lower_stmt.cpp)
  void stmt(const ast::Stmt& s);
  void assign(const ast::Expr& target, ir::Value* value);
  void checkAssignable(const ast::Expr& target);
  void del(const ast::Expr& target);
  void augAssign(const ast::AugAssignStmt& s);
  // One level of a nested subscript target `a[i][j]`: the item a[i], the
  // values of a and of i (lower_stmt.cpp, targetContainer).
  struct WriteBack {
    const ast::SubscriptExpr* item;
    ir::Value* container;
    ir::Value* index;
  };
  ir::Value* targetContainer(const ast::Expr& e, std::vector<WriteBack>& outer);
  void rebindContainer(const ast::Expr& container, const std::vector<WriteBack>& outer, ir::Value* updated);
  ir::Value* inplaceOp(ir::Op op, SourceLoc loc, ir::Value* lhs, ir::Value* rhs);
  void ifStmt(const ast::IfStmt& s);
  void whileStmt(const ast::WhileStmt& s);
  void forStmt(const ast::ForStmt& s);
  void loopElse(const ast::Body& orelse, const Jumps& stopOn, SourceLoc loc);
  void importStmt(const ast::Stmt& s);
  // try statements (lower_try.cpp)
  void tryStmt(const ast::TryStmt& s);
  void tryExcept(const ast::TryStmt& s);
  void exceptClauses(const ast::TryStmt& s, size_t i, ir::Value* exc);
  ir::Value* protectedRegion(SourceLoc loc, const std::set<std::string>& assigned, const std::function<void()>& bodyFn,
                             const std::function<void(ir::Value*)>& handlerFn);
  void assertStmt(const ast::AssertStmt& s);
  // with device(...) blocks (lower_with.cpp)
  void withStmt(const ast::WithStmt& s, size_t item);
  ir::Value* placed(ir::Value* v, SourceLoc loc);
  void addCreationDevice(const ast::CallExpr& e, std::vector<ir::Value*>& operands, std::vector<std::string>& kw);
  void returnStmt(const ast::ReturnStmt& s);
  ir::Value* flagsSet(const Jumps& j, SourceLoc loc);

  // Structured control flow (lower_stmt.cpp). ifMerge lowers two branches
  // into an `if` node whose results are the branch values (when the
  // functions return one) followed by every variable either branch changed.
  // loop builds a `loop` node carrying the named variables.
  using BranchFn = std::function<ir::Value*()>;
  ir::Value* ifMerge(ir::Value* cond, SourceLoc loc, const BranchFn& thenFn, const BranchFn& elseFn);
  // Ends a two-block node (if, try) whose blocks left `envs` (both started
  // from `before`): each block yields its lead value (none where only the
  // other has one; nothing when neither has) and every variable either
  // changed; the node gets a result per yield, bound in env_. Returns the
  // lead's result.
  ir::Value* joinBranches(ir::Node* n, ir::Block* const blocks[2], const Env envs[2], const Env& before,
                          ir::Value* const leads[2], ir::Type leadType, SourceLoc loc);
  void loop(SourceLoc loc, const std::vector<std::string>& carried, const BranchFn& cond,
            const std::function<void()>& bodyFn);
  std::vector<std::string> loopCarried(const std::set<std::string>& assigned, const Jumps& inner);
  void body(const ast::Body& stmts, size_t from);

  // expressions (lower_expr.cpp)
  ir::Value* expr(const ast::Expr& e);
  ir::Value* call(const ast::CallExpr& e);
  ir::Value* attribute(const ast::AttributeExpr& a);
  ir::Value* compare(const ast::CompareExpr& e);
  ir::Value* boolOp(const ast::BoolOpExpr& e);
  ir::Value* ifExpr(const ast::IfExpr& e);
  ir::Value* fstring(const ast::FStrExpr& e);
  // One replacement field, formatted: a spec with fields of its own is made
  // at run time from its text and those fields, formatted in turn.
  ir::Value* fstringField(const ast::FStrPart& p, SourceLoc at);
  ir::Value* listComp(const ast::ListCompExpr& e);
  ir::Value* dictWithUnpacking(const ast::DictExpr& d);
  // `carried`: the enclosing function's names the comprehension's
  // `name := value` bind.
  void comprehensionLevel(const ast::ListCompExpr& e, size_t level, ir::Value* list,
                          const std::vector<std::string>& carried);
  ir::Value* subscriptIndex(const ast::Expr& index);

  // names and functions (lower_func.cpp)
  ir::Value* readName(const std::string& name, SourceLoc loc);
  void writeName(const std::string& name, ir::Value* v, SourceLoc loc);
  ir::Value* readIn(FuncCtx& ctx, const std::string& name, SourceLoc loc);
  std::string unknownNameHint(const FuncCtx& ctx, const std::string& name) const;
  bool isSsaName(const std::string& name) const;
  ir::Value* functionValue(const std::string& name, const std::vector<ast::Param>& params,
                           SourceLoc loc, const ast::Body* bodyStmts, const ast::Expr* bodyExpr,
                           const ast::Expr* returns = nullptr, const ast::StrExpr* device = nullptr);
  const ast::StrExpr* jitDevice(const ast::Decorator& d);
  void funcDef(const ast::FuncDefStmt& s);
  std::string uniqueFunctionName(const std::string& base);

  // node construction
  // Appends a node; `results` defaults to the op table's count.
  ir::Node* emit(ir::Op op, SourceLoc loc, std::vector<ir::Value*> operands, int results = -1);
  ir::Value* emitValue(ir::Op op, SourceLoc loc, std::vector<ir::Value*> operands) {
    return emit(op, loc, std::move(operands), 1)->result(0);
  }
  ir::Value* constant(ir::Attr value, SourceLoc loc);
  ir::Value* none(SourceLoc loc) { return constant(ir::NoneAttr{}, loc); }
  ir::Value* builtin(const std::string& name, SourceLoc loc);
  ir::Value* undef(const std::string& name, SourceLoc loc);

  const SourceManager& sm_;
  const LowerOptions& options_;
  ir::Graph& g_;
  std::set<std::string> moduleGlobals_;
  std::set<std::string> functionNames_;
  ir::Block* cur_ = nullptr;
  int counter_ = 0;  // makes loop index names unique
  JumpsCache jumps_;
  Env env_;
  FuncCtx* fctx_ = nullptr;
  // The device of each `with device(...)` block around the statement being
  // lowered in this function, innermost last (lower_with.cpp).
  std::vector<ir::Value*> withDevices_;
  // The nodes augmented and index assignments made (lost_updates.h).
  std::vector<ir::Node*> updates_;
};

}  // namespace nn::frontend
