// Inside the JIT: LLVM IR for a fused node (fused_codegen.cpp builds the
// loop nest and the operand reads, elementwise_codegen.cpp one op on one
// element), shared by the engine (engine.cpp). Includes LLVM headers: for
// runtime/jit/ only.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "runtime/jit/jit.h"

namespace nn::rt::jit {

// The functions of special_math.h that fused kernels call, by the names
// ElementwiseEmitter::special declares them with ("nn_lgamma",
// "nn_digamma", "nn_erfinv": double -> double; "nn_erfinvf": float ->
// float; "nn_polygamma": (n, x); "nn_gcd_i64": of two i64), and their addresses, which the engine
// defines (special_symbols.cpp).
struct FunctionSymbol {
  const char* name;
  void* address;
};
const FunctionSymbol* specialFunctionSymbols(int* count);

// One element of an IR value inside the loop: a tensor element of `dtype`
// (bool as i1), or a Python number (i64 for int and bool, double for float).
struct Element {
  llvm::Value* value = nullptr;
  bool number = false;
  ir::DType dtype = ir::DType::F32;               // tensor elements
  ir::ScalarKind kind = ir::ScalarKind::Float;    // numbers
};

// Emits the elementwise ops as the CPU kernels compute them.
class ElementwiseEmitter {
 public:
  ElementwiseEmitter(llvm::IRBuilder<>& b, llvm::Module& m) : b_(b), m_(m) {}
  // The element type of `dt` in registers (i1 for bool).
  llvm::Type* typeOf(ir::DType dt);
  // `x` as an element of `to`, as astype (a tensor) or as a number operand
  // becomes a 0-d tensor of `to` (a Python number); null when the runtime
  // never converts so (a float number to an integer dtype).
  llvm::Value* convert(const Element& x, ir::DType to);
  // Node `n` of a fused body on its operands' elements, or an element with
  // a null value and `why` set when the runtime has no kernel for it or the
  // JIT does not compile it.
  Element emit(const ir::Node& n, const std::vector<Element>& in, std::string& why);
  // float_unary.def's op `op` of one double, as the f64 kernels compute it
  // (and a Python float's math: the loop glue's); null with `why` for an
  // op it does not list.
  llvm::Value* floatMath(ir::Op op, llvm::Value* x, std::string& why) { return floatUnary(op, x, why); }
  // The conditions (i1) under which the ops emitted since the last call
  // would raise (an integer division by zero): the kernel reports them
  // and the runtime runs the node op by op, which raises the error.
  std::vector<llvm::Value*> takeFaults() { return std::exchange(faults_, {}); }

 private:
  Element binary(ir::Op op, const Element& x, const Element& y, ir::DType resultType, std::string& why);
  Element unary(ir::Op op, const Element& x, ir::DType resultType, std::string& why);
  Element where(const Element& c, const Element& x, const Element& y, ir::DType resultType, std::string& why);
  llvm::Value* floatBinary(ir::Op op, llvm::Value* x, llvm::Value* y);
  llvm::Value* intBinary(ir::Op op, llvm::Value* x, llvm::Value* y, ir::DType dt);
  llvm::Value* floatUnary(ir::Op op, llvm::Value* x, std::string& why);
  llvm::Value* compare(ir::Op op, llvm::Value* x, llvm::Value* y, ir::DType dt);
  // A libm function of one or two arguments of x's type (expf or exp, ...).
  llvm::Value* libm(const char* name, llvm::Value* x, llvm::Value* y = nullptr);
  // SLEEF's function `name` ("exp", sleef_functions.def, of one float;
  // "fmodf" or "fmod" of two values of x's type), with its vector forms
  // for the loop vectoriser.
  llvm::Value* sleef(const char* name, llvm::Value* x, llvm::Value* y = nullptr);
  // nn's special function `name` (special_math.h: "nn_digamma", ...) of
  // doubles, for x (and y) of x's type: an f32 widened, the result rounded
  // back, as the kernels compute it; or, for an f32 with floatForm, its
  // single-precision form `name` + "f"; for integers, its form of their
  // width, `name` + "_i32" or "_i64" ("nn_gcd_i64").
  llvm::Value* special(const char* name, llvm::Value* x, llvm::Value* y = nullptr, bool floatForm = false);
  // fmod(x, y), exactly, through SLEEF (vmath::fmod).
  llvm::Value* remainder(llvm::Value* x, llvm::Value* y);
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::Value* x, llvm::Value* y = nullptr);
  llvm::Constant* constant(llvm::Type* t, double v);

  llvm::IRBuilder<>& b_;
  llvm::Module& m_;
  std::vector<llvm::Value*> faults_;
};

// The chain's element at a flat index (and its row and column when the
// kernel runs by rows), emitted at the builder's insertion point; null
// when an op cannot be compiled. `Return` emits the kernel's return.
using ChainAt = std::function<llvm::Value*(llvm::Value* flat, llvm::Value* row, llvm::Value* col)>;
using ColumnAt = std::function<llvm::Value*(llvm::Value* col)>;
using Return = std::function<void()>;

// The folding loops of fused kernels (reduction_codegen.cpp): a trailing
// reduction's over flat indices [begin, end) (with their rows and columns
// when cols > 0: operands broadcast along rows of `cols`) into *out; a
// trailing reduction over the last axis, one result per row of [begin,
// end); the fold of one row's `cols` elements. False (null) when an
// element cannot be compiled.
bool emitReductionLoops(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::BasicBlock* exit, llvm::Value* out,
                        llvm::Value* begin, llvm::Value* end, int64_t cols, ir::DType chainType,
                        FusedKernel::Reduce reduce, const ChainAt& chainAt, const Return& ret);
bool emitRowReductionLoops(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::BasicBlock* entry,
                           llvm::BasicBlock* exit, llvm::Value* out, llvm::Value* begin, llvm::Value* end,
                           int64_t cols, ir::DType chainType, ir::DType outType, FusedKernel::Reduce reduce,
                           const ChainAt& chainAt, const Return& ret);
llvm::Value* emitRowFold(llvm::IRBuilder<>& b, llvm::Function* fn, int64_t cols, ir::DType chainType,
                         ir::DType outType, FusedKernel::Reduce reduce, const ColumnAt& element);

// Whether `fn` is valid LLVM IR; otherwise false with the verifier's
// complaint in `why` (a bug of the code generator, never of the program).
bool verified(const llvm::Function& fn, std::string& why);

// A module holding one function `i32 name(in, out, begin, end)` (FusedFn) for
// fused node `n`, its operand reads in `kernel`; null with `why` when an op
// or operand cannot be compiled. `layouts`: the operands' strides when some
// are views (jit.h OperandLayouts), else each one is contiguous.
std::unique_ptr<llvm::Module> buildFusedModule(llvm::LLVMContext& ctx, const ir::Node& n, const std::string& name,
                                               FusedKernel& kernel, std::string& why,
                                               const OperandLayouts* layouts = nullptr);

// A module holding one function `name(ctx, api)` (GlueFn) running loop
// node `n`; the nodes it calls back are listed in `glue`. Null with `why`
// when the loop cannot be compiled.
std::unique_ptr<llvm::Module> buildGlueModule(llvm::LLVMContext& ctx, const ir::Node& n, const std::string& name,
                                              GlueFunction& glue, std::string& why);

// A module holding `i32 name(args, result, depth, interrupt)` (NativeFn)
// running compiled function `version` (compilesAsNative said yes), and the
// internal function it calls (which calls itself for recursive calls).
// Null with `why` when the function cannot be compiled.
std::unique_ptr<llvm::Module> buildNativeModule(llvm::LLVMContext& ctx, const ir::Function& version,
                                                const std::string& name, std::string& why);

}  // namespace nn::rt::jit
