// The nn graph IR: a Graph (one source module) holds Functions; a Function
// has a body Block; a Block holds arguments and Nodes in order; a Node has
// operand Values, result Values, attributes and, for `if` and `loop`, nested
// Blocks whose terminators yield the node's results (the TorchScript/MLIR
// region shape). Values are defined once (SSA). Nested blocks may use values
// of enclosing blocks. Functions refer to each other by name (@symbol).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "ir/annotation.h"
#include "ir/param_kind.h"
#include "ir/types.h"
#include "support/source.h"

namespace nn::ir {

enum class Op : uint16_t {
#define OP(Enum, text, minOps, maxOps, results, blocks, traits, rule, gradient) Enum,
#define TENSOR_OP(Enum, text, signature, traits, shapeRule, gradient) Enum,
#include "ir/ops.def"
#undef TENSOR_OP
#undef OP
};
constexpr size_t kNumOps = 0
#define OP(Enum, text, minOps, maxOps, results, blocks, traits, rule, gradient) +1
#define TENSOR_OP(Enum, text, signature, traits, shapeRule, gradient) +1
#include "ir/ops.def"
#undef TENSOR_OP
#undef OP
    ;

// The traits of ops.def (its header says what each means).
enum Trait : unsigned {
  PURE = 1u << 0, EFFECT = 1u << 1, TERM = 1u << 2, COMM = 1u << 3, ELEM = 1u << 4,
  RANDOM = 1u << 5, REDUCE = 1u << 6, SHAPE = 1u << 7, CREATE = 1u << 8, RAISES = 1u << 9,
  EXPENSIVE = 1u << 10, FUNC = 1u << 11, METHOD = 1u << 12, PYTHON = 1u << 13, GRADIENT = 1u << 14,
  CAST = 1u << 15,
};

// How an op's result types follow from its operand types (type_rules.cpp);
// Shape: a tensor op, typed by its shape rule.
enum class TypeRule {
  Unknown, None_, Literal, Func, Tuple, List, Dict, Str, Int, Bool, Compare, Module,
  Arith, TrueDiv, Power, Bits, Unary, First, Merge, Shape, Wrt, Declared,
};

class Node;
class OpArgs;
// A tensor op's shape rule: its result type from its bound arguments
// (ir/op_args.h: an op node's, or a call of the op's builtin), nullopt when
// they do not determine one. Fails at the node on a mismatch it proves.
using ShapeRule = std::optional<Type> (*)(const OpArgs& args);
// An op's reverse-mode gradient rule (ir/gradient.h). NoGradient is the
// rule of ops with none yet: it fails, located at the op.
struct GradientBuilder;
using GradientRule = void (*)(GradientBuilder&);
void NoGradient(GradientBuilder& b);

struct OpInfo {
  const char* name;
  int minOperands, maxOperands;  // maxOperands -1: variadic
  int numResults;                // -1: chosen per node
  int numBlocks;
  unsigned traits;
  TypeRule typeRule;
  const char* signature;  // tensor ops: the parameters (op_signature.h); "" otherwise
  ShapeRule shapeRule;    // tensor ops
  GradientRule gradient;
};

// Read on every node an interpreter runs: inline.
extern const OpInfo kOpTable[];
inline const OpInfo& opInfo(Op op) { return kOpTable[static_cast<size_t>(op)]; }
bool opFromName(std::string_view name, Op& out);
inline bool hasTrait(Op op, Trait t) { return (opInfo(op).traits & t) != 0; }
// A TENSOR_OP of ops.def: it has a signature of operands and attributes.
inline bool isTensorOp(Op op) { return opInfo(op).signature[0] != '\0'; }
// <, <=, >, >=, ==, != (bool results, compared in the operands' common type).
inline bool isComparison(Op op) {
  return op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq || op == Op::Ne;
}
// The unary math ops defined on floating-point tensors only: an integer or
// bool tensor is converted to f32 first (a Python number computes in f64).
inline bool computesInFloat(Op op) {
  switch (op) {
    case Op::Exp: case Op::Log: case Op::Sqrt: case Op::Rsqrt: case Op::Sin: case Op::Cos:
    case Op::Tanh: case Op::Sigmoid: case Op::Gelu: case Op::GeluGrad: case Op::Erf: case Op::Silu: case Op::SiluGrad:
    case Op::Softplus: case Op::Log1p: case Op::Expm1: case Op::Tan: case Op::Atan: case Op::Reciprocal:
    case Op::Log2: case Op::Log10: case Op::Sinh: case Op::Cosh: case Op::Asin: case Op::Acos: case Op::Acosh:
    case Op::Asinh: case Op::Atanh: case Op::Exp2: case Op::Erfc: case Op::Erfinv: case Op::Lgamma: case Op::Digamma:
    case Op::I0: case Op::I0e: case Op::I1: case Op::I1e: case Op::K0: case Op::K0e: case Op::K1: case Op::K1e:
    case Op::Erfcx: case Op::Ndtri: case Op::LogNdtr:
    case Op::BesselJ0: case Op::BesselJ1: case Op::BesselY0: case Op::BesselY1: case Op::AiryAi:
      return true;
    default: return false;
  }
}

// The dtype a binary elementwise op computes in (and returns, but for a
// comparison) from its operands' common dtype: true division and the
// float functions of integers or bools in f32; the arithmetic of bools in
// i64 (True + True == 2, as for Python bools).
inline DType binaryComputeType(Op op, DType common) {
  bool inFloat = op == Op::Div || op == Op::Atan2 || op == Op::Hypot || op == Op::Copysign || op == Op::Polygamma ||
                 op == Op::Zeta || op == Op::Gammainc || op == Op::Gammaincc;
  if (inFloat && !isFloating(common)) return DType::F32;
  bool boolArith = op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::FloorDiv || op == Op::Mod ||
                   op == Op::Pow || op == Op::Fmod;
  return common == DType::Bool && boolArith ? DType::I64 : common;
}

// isnan, isinf, isfinite: a test of each element's class, a bool per
// element (on an integer or bool tensor: whether it is finite).
inline bool testsElementClass(Op op) { return op == Op::IsNan || op == Op::IsInf || op == Op::IsFinite; }
// The unary ops whose results are bool tensors: the class tests and
// logical_not.
inline bool unaryGivesBool(Op op) { return testsElementClass(op) || op == Op::LogicalNot; }

// Attribute values: the literal kinds, a list of strings (keyword names)
// and a list of ints (a tensor op's `ints` attribute: a shape, strides).
struct NoneAttr {
  bool operator==(const NoneAttr&) const { return true; }
};
using Ints = std::vector<int64_t>;

// What each argument operand of a call_unpacked node is, in its `spread`
// attribute: `a`, `*xs`, `k=v` (named in order by its `kw`), `**kw`.
enum class CallSpread : int64_t { Positional = 0, Iterable = 1, Keyword = 2, Mapping = 3 };
using Attr = std::variant<NoneAttr, int64_t, double, bool, std::string, std::vector<std::string>, Ints>;

// The operator spelling of an op in messages ("+", "//", "<="; else its name).
const char* opSymbol(Op op);

class Block;
class Function;
class Graph;

class Value {
 public:
  Value(Type type, Node* def, Block* owner) : type_(type), def_(def), owner_(owner) {}
  Type type() const { return type_; }
  void setType(Type t) { type_ = t; }
  Node* def() const { return def_; }        // null for block arguments
  void setDef(Node* n) { def_ = n; }
  Block* owner() const { return owner_; }   // the block that defines this value
  void setOwner(Block* b) { owner_ = b; }   // when a pass moves the defining node
  // A dense index within the function, assigned by Function::number().
  uint32_t id() const { return id_; }
  void setId(uint32_t id) { id_ = id; }
  const std::string& nameHint() const { return nameHint_; }
  void setNameHint(std::string n) { nameHint_ = std::move(n); }

 private:
  Type type_;
  Node* def_;
  Block* owner_;
  uint32_t id_ = 0;
  std::string nameHint_;
};

class Node {
 public:
  Node(Op op, SourceLoc loc) : op_(op), loc_(loc) {}
  Op op() const { return op_; }
  const OpInfo& info() const { return opInfo(op_); }
  SourceLoc loc() const { return loc_; }
  void setLoc(SourceLoc l) { loc_ = l; }
  // For a node copied in by the inliner: the call sites it was inlined
  // through, innermost first (an error here reports them as callers).
  const std::vector<SourceLoc>& inlinedAt() const { return inlinedAt_; }
  void setInlinedAt(std::vector<SourceLoc> sites) { inlinedAt_ = std::move(sites); }
  // Made by reverse mode for a backward pass (passes/reverse_mode.h), at
  // the forward node's location; --check eager compares forward values
  // only, as the two modes' backward passes are built differently. Not
  // printed: it describes where a node came from, not what it computes.
  bool backward() const { return backward_; }
  void setBackward() { backward_ = true; }

  // Order edges (passes/order_effects.cpp): the tokens this node must run
  // after, and the token it produces for the nodes that must follow it.
  // Printed as `order(%a, %b -> %t)`. Copies of a function do not carry
  // them; the pass threads them afresh as the pipeline's last step.
  const std::vector<Value*>& orderAfter() const { return orderAfter_; }
  Value* token() const { return token_.get(); }
  // Sets the incoming edges and creates the outgoing token.
  Value* setOrder(std::vector<Value*> after);
  void clearOrder() {
    orderAfter_.clear();
    token_.reset();
  }

  const std::vector<Value*>& operands() const { return operands_; }
  Value* operand(size_t i) const { return operands_[i]; }
  void addOperand(Value* v) { operands_.push_back(v); }
  void setOperand(size_t i, Value* v) { operands_[i] = v; }
  void removeOperand(size_t i) { operands_.erase(operands_.begin() + static_cast<std::ptrdiff_t>(i)); }

  size_t numResults() const { return results_.size(); }
  Value* result(size_t i = 0) const { return results_[i].get(); }
  Value* addResult(Type t);
  // Removes result i, which nothing may use.
  void removeResult(size_t i) { results_.erase(results_.begin() + static_cast<std::ptrdiff_t>(i)); }
  // Takes over `other`'s results (their uses now see this node's values);
  // for a pass replacing a node by an equivalent one.
  void adoptResults(Node& other);

  size_t numBlocks() const { return blocks_.size(); }
  Block* block(size_t i) const { return blocks_[i].get(); }
  Block* addBlock();

  Block* parent() const { return parent_; }
  void setParent(Block* b) { parent_ = b; }

  // Attributes, kept sorted by name so printing is stable.
  const std::vector<std::pair<std::string, Attr>>& attrs() const { return attrs_; }
  void setAttr(const std::string& name, Attr value);
  // Drops attribute `name` (none: nothing changes).
  void removeAttr(std::string_view name);
  const Attr* attr(std::string_view name) const;
  // References into the node (empty when absent): the interpreter reads
  // these on every execution, so they are not copied.
  const std::string& strAttr(std::string_view name) const;
  int64_t intAttr(std::string_view name, int64_t fallback = 0) const;
  const std::vector<std::string>& strListAttr(std::string_view name) const;
  const Ints& intsAttr(std::string_view name) const;

  // What an executor derived from the node and keeps with it, so running
  // the node again skips a lookup (the interpreter: the methods a
  // call_method names, a const's value attribute). Threads running the
  // node may set it at once, each to the same value; setting an attribute
  // clears it.
  const void* executorCache() const { return executorCache_.load(std::memory_order_acquire); }
  void setExecutorCache(const void* p) const { executorCache_.store(p, std::memory_order_release); }

  // Last-use facts set by Function::number() (ir/liveness.h), valid until
  // the function next changes: whether operand i is the final use of its
  // value (only its last occurrence, and never when the node's blocks use
  // it too), and the values nothing reads once this node has run.
  // Only the first kMaxDyingOperands operands are tracked (a bit each); a
  // later operand is never consumed, which is always correct, just slower.
  static constexpr size_t kMaxDyingOperands = 64;
  bool operandDies(size_t i) const { return dies(dyingOperands_, i); }
  // Bit i of a dying-operand mask (an executor's narrowed copy of one).
  static bool dies(uint64_t mask, size_t i) { return i < kMaxDyingOperands && ((mask >> i) & 1); }
  uint64_t dyingOperands() const { return dyingOperands_; }
  const std::vector<uint32_t>& kills() const { return kills_; }
  void setLastUses(uint64_t dyingOperands, std::vector<uint32_t> kills) {
    dyingOperands_ = dyingOperands;
    kills_ = std::move(kills);
  }

 private:
  Op op_;
  SourceLoc loc_;
  std::vector<Value*> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<std::pair<std::string, Attr>> attrs_;
  Block* parent_ = nullptr;
  uint64_t dyingOperands_ = 0;
  std::vector<uint32_t> kills_;
  std::vector<SourceLoc> inlinedAt_;
  bool backward_ = false;
  std::vector<Value*> orderAfter_;
  mutable std::atomic<const void*> executorCache_{nullptr};
  std::unique_ptr<Value> token_;
};

class Block {
 public:
  explicit Block(Node* parentNode, Function* func) : parentNode_(parentNode), func_(func) {}
  Value* addArg(Type t);
  // Erases argument i, which nothing may read any more.
  void removeArg(size_t i) { args_.erase(args_.begin() + static_cast<std::ptrdiff_t>(i)); }
  const std::vector<std::unique_ptr<Value>>& args() const { return args_; }
  Value* arg(size_t i) const { return args_[i].get(); }
  size_t numArgs() const { return args_.size(); }

  Node* append(std::unique_ptr<Node> node);
  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  std::vector<std::unique_ptr<Node>>& mutableNodes() { return nodes_; }
  Node* terminator() const { return nodes_.empty() ? nullptr : nodes_.back().get(); }

  Node* parentNode() const { return parentNode_; }
  Function* function() const { return func_; }

  // What an executor derives from the block and keeps with it (the graph
  // executor's plan), so running the block again finds it without a
  // lookup. Set once the block no longer changes.
  void* executorData() const { return executorData_.get(); }
  void setExecutorData(std::shared_ptr<void> d) const { executorData_ = std::move(d); }
  // What the interpreter derives from a block it runs node by node (its
  // decoded steps), made on the block's first run. Two threads may run one
  // block at once (graph mode's pool calling an eager function): the first
  // plan published is the one both use, and publish returns it. Function::
  // number() drops it, as it renumbers the values the plan names.
  const void* interpreterPlan() const { return interpreterPlan_.load(std::memory_order_acquire); }
  const void* publishInterpreterPlan(std::shared_ptr<const void> plan) const;
  void dropInterpreterPlan();

 private:
  mutable std::shared_ptr<void> executorData_;
  mutable std::atomic<const void*> interpreterPlan_{nullptr};
  mutable std::shared_ptr<const void> interpreterPlanOwner_;
  Node* parentNode_;
  Function* func_;
  std::vector<std::unique_ptr<Value>> args_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

// A function: body arguments are the parameters followed by the captured
// values of a closure. Parameter names are kept for keyword binding.
class Function {
 public:
  Function(std::string name, SourceLoc loc);
  const std::string& name() const { return name_; }
  SourceLoc loc() const { return loc_; }
  Block* body() const { return body_.get(); }
  Graph* graph() const { return graph_; }
  void setGraph(Graph* g) { graph_ = g; }

  Value* addParam(const std::string& name, Type t, ParamKind kind = ParamKind::Positional);
  Value* addCapture(const std::string& name, Type t);
  size_t numParams() const { return paramNames_.size(); }
  ParamKind paramKind(size_t i) const { return paramKinds_[i]; }
  // Every parameter is positional-or-keyword (no `*`, `*args`, `**kwargs`).
  bool plainSignature() const { return numPositional_ == paramNames_.size(); }
  size_t numPositional() const { return numPositional_; }
  // The index of the `*args` / `**kwargs` parameter, or -1.
  int varArgsIndex() const { return varArgs_; }
  int varKeywordsIndex() const { return varKeywords_; }
  size_t numCaptures() const { return captureNames_.size(); }
  const std::vector<std::string>& paramNames() const { return paramNames_; }
  const std::vector<std::string>& captureNames() const { return captureNames_; }
  // Parameter i's annotation, if it has one (the parameter's value then has
  // the annotated type); the return annotation.
  const std::optional<Annotation>& paramAnnotation(size_t i) const {
    static const std::optional<Annotation> none;
    return i < paramAnnotations_.size() ? paramAnnotations_[i] : none;
  }
  void setParamAnnotation(size_t i, Annotation a) {
    if (paramAnnotations_.size() <= i) paramAnnotations_.resize(i + 1);
    paramAnnotations_[i] = std::move(a);
  }
  const std::optional<Annotation>& returnAnnotation() const { return returnAnnotation_; }
  void setReturnAnnotation(Annotation a) { returnAnnotation_ = std::move(a); }
  // Whether a parameter or the result is annotated (asked on every call).
  bool annotated() const { return returnAnnotation_ || !paramAnnotations_.empty(); }

  // Assigns dense ids to all values and recomputes the nodes' last-use
  // facts; returns how many values there are. Call after every change.
  // The body's arguments are values 0, 1, ...: a call's parameters, in
  // their vector, are the start of its frame.
  uint32_t number();
  uint32_t numValues() const { return numValues_; }

 private:
  std::string name_;
  SourceLoc loc_;
  Graph* graph_ = nullptr;
  std::unique_ptr<Block> body_;
  std::vector<std::string> paramNames_;
  std::vector<ParamKind> paramKinds_;
  size_t numPositional_ = 0;
  int varArgs_ = -1, varKeywords_ = -1;
  std::vector<std::string> captureNames_;
  std::vector<std::optional<Annotation>> paramAnnotations_;
  std::optional<Annotation> returnAnnotation_;
  uint32_t numValues_ = 0;
};

// One compiled module: its functions; `main` runs the top-level statements.
class Graph {
 public:
  explicit Graph(uint32_t file = 0) : file_(file) {}
  uint32_t file() const { return file_; }
  void setFile(uint32_t f) { file_ = f; }
  // The source path shown in the printed IR's header.
  const std::string& sourceName() const { return sourceName_; }
  void setSourceName(std::string s) { sourceName_ = std::move(s); }
  Function* addFunction(std::string name, SourceLoc loc);
  // A function of this graph, else of the base graph (a specialised copy
  // of one function keeps finding the closures of its module).
  Function* function(const std::string& name) const;
  void setBase(const Graph* base) { base_ = base; }
  // Graph mode compiles strictly: a type or shape mismatch that inference
  // proves for an op that certainly runs is a compile-time error
  // (passes/infer_types.cpp). Eager mode keeps going (the op fails when it
  // runs, after everything before it has happened).
  bool strictTypes() const { return strictTypes_; }
  void setStrictTypes(bool on) { strictTypes_ = on; }
  // A module graph in graph mode: its functions other than __main__ are
  // templates, copied and specialised per call signature before they run
  // (runtime/compile_cache.h), inlined into callers, or run on an eager
  // tape, so passes leave out of them what suits only the run-time types
  // of one version (a fused group of untyped ops).
  bool templates() const { return templates_; }
  void setTemplates(bool on) { templates_ = on; }
  const std::vector<std::unique_ptr<Function>>& functions() const { return functions_; }

 private:
  uint32_t file_;
  std::string sourceName_;
  std::vector<std::unique_ptr<Function>> functions_;
  // Name -> the first function of that name: make_closure, the inliner and
  // the compile cache look functions up by name, and a module may hold
  // thousands (one per lambda), so a scan would make each lookup O(N).
  std::unordered_map<std::string, Function*> functionsByName_;
  const Graph* base_ = nullptr;
  bool strictTypes_ = false;
  bool templates_ = false;
};

// Rewrites the operands of `n` that `map` has a replacement for (not those
// of nested blocks). Returns whether anything changed.
bool replaceOperands(Node& n, const std::unordered_map<const Value*, Value*>& map);
// The same for every node of `f`, or of `b`, nested blocks included.
bool replaceUses(Function& f, const std::unordered_map<const Value*, Value*>& map);
bool replaceUses(Block& b, const std::unordered_map<const Value*, Value*>& map);
// Adds to `used` every value some node of `b` reads, nested blocks included.
void collectUsedValues(const Block& b, std::unordered_set<const Value*>& used);

// Appends a new node with `numResults` results of type any.
Node* build(Block* b, Op op, SourceLoc loc, std::vector<Value*> operands, size_t numResults);

// Whether `n` is a reduction (REDUCE) over all axes into a 0-d result:
// axis None, keepdims false.
bool reducesWhole(const Node& n);
// The reduction a `fused` node's body ends in (a trailing sum, mean, max or
// min that passes/fuse_elementwise.cpp let in), or null.
const Node* trailingReduction(const Node& fused);

// Whether `call` calls the running function f (self_closure) with one
// positional argument per body argument, each of that argument's type: in
// a compiled version, this same version runs it.
bool callsItself(const Node& call, const Function& f);

}  // namespace nn::ir
