// One elementwise op on one element, in LLVM IR, computing what the CPU
// kernels compute (kernels_cpu_elementwise.cpp, kernels_cpu_math.cpp) after
// the dispatch's conversions (tensor_ops.cpp tensorBinary/tensorUnary,
// tensor_math.cpp mathUnary/mathBinary/whereOp): the same compute dtype,
// the same order of floating-point operations (no reassociation, no FMA
// contraction, no fast-math flags), the same NaN and signed-zero choices,
// and the same functions for transcendental ops (libm's for f64, SLEEF's
// for f32, atan2 and hypot included, and SLEEF's fmod for both, whose
// vector forms the loop vectoriser calls), so a fused kernel
// and the op-by-op kernels agree bit for bit. Where a kernel would fail
// (an integer floor division or remainder by zero, an integer to a
// negative power) or SLEEF's fmod does (a huge
// quotient), the element is a fault (takeFaults): the kernel reports it,
// and the fused node runs its ops one by one, which raise the error or
// compute the element. Ops without a kernel for the dtype are refused
// with a reason.
#include <cmath>
#include <limits>

#include "runtime/jit/codegen.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "runtime/sleef_functions.h"

namespace nn::rt::jit {
namespace {

using ir::DType;
using ir::Op;
using ir::ScalarKind;

}  // namespace

llvm::Type* ElementwiseEmitter::typeOf(DType dt) {
  llvm::LLVMContext& c = m_.getContext();
  switch (dt) {
    case DType::Bool: return llvm::Type::getInt1Ty(c);
    case DType::I32: return llvm::Type::getInt32Ty(c);
    case DType::I64: return llvm::Type::getInt64Ty(c);
    case DType::F32: return llvm::Type::getFloatTy(c);
    case DType::F64: return llvm::Type::getDoubleTy(c);
  }
  return nullptr;
}

llvm::Constant* ElementwiseEmitter::constant(llvm::Type* t, double v) { return llvm::ConstantFP::get(t, v); }

llvm::Value* ElementwiseEmitter::convert(const Element& x, DType to) {
  llvm::Type* t = typeOf(to);
  if (x.number) {
    // A number operand becomes a 0-d tensor of `to` (tensor_ops.cpp
    // scalarTensor): bool tests asFloat() != 0, i32 truncates asInt(),
    // floats convert through double.
    if (x.kind == ScalarKind::Float) {
      switch (to) {
        case DType::Bool: return b_.CreateFCmpUNE(x.value, constant(x.value->getType(), 0.0));
        case DType::F32: return b_.CreateFPTrunc(x.value, t);
        case DType::F64: return x.value;
        default: return nullptr;
      }
    }
    switch (to) {
      case DType::Bool: return b_.CreateICmpNE(x.value, b_.getInt64(0));
      case DType::I32: return b_.CreateTrunc(x.value, t);
      case DType::I64: return x.value;
      case DType::F32: return b_.CreateFPTrunc(b_.CreateSIToFP(x.value, b_.getDoubleTy()), t);
      case DType::F64: return b_.CreateSIToFP(x.value, t);
    }
    return nullptr;
  }
  // astype (kernel_loops.h convertValue): bool tests != 0; float to integer
  // saturates with NaN as 0, which is LLVM's fptosi.sat.
  DType from = x.dtype;
  if (from == to) return x.value;
  if (to == DType::Bool)
    return ir::isFloating(from) ? b_.CreateFCmpUNE(x.value, constant(x.value->getType(), 0.0))
                         : b_.CreateICmpNE(x.value, llvm::ConstantInt::get(x.value->getType(), 0));
  if (from == DType::Bool) return ir::isFloating(to) ? b_.CreateUIToFP(x.value, t) : b_.CreateZExt(x.value, t);
  if (ir::isFloating(from) && ir::isFloating(to)) return to == DType::F64 ? b_.CreateFPExt(x.value, t) : b_.CreateFPTrunc(x.value, t);
  if (ir::isFloating(from)) return b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {t, x.value->getType()}, {x.value});
  if (ir::isFloating(to)) return b_.CreateSIToFP(x.value, t);
  return b_.CreateSExtOrTrunc(x.value, t);
}

llvm::Value* ElementwiseEmitter::intrinsic(llvm::Intrinsic::ID id, llvm::Value* x, llvm::Value* y) {
  if (y) return b_.CreateBinaryIntrinsic(id, x, y);
  return b_.CreateUnaryIntrinsic(id, x);
}

llvm::Value* ElementwiseEmitter::libm(const char* name, llvm::Value* x, llvm::Value* y) {
  llvm::Type* t = x->getType();
  std::string fn = std::string(name) + (t->isFloatTy() ? "f" : "");
  std::vector<llvm::Type*> params(y ? 2 : 1, t);
  llvm::FunctionCallee callee = m_.getOrInsertFunction(fn, llvm::FunctionType::get(t, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    // errno is never read: the call is a pure function of its arguments.
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
  }
  return y ? b_.CreateCall(callee, {x, y}) : b_.CreateCall(callee, {x});
}

llvm::Value* ElementwiseEmitter::sleef(const char* name, llvm::Value* x, llvm::Value* y) {
  std::vector<sleef::Form> forms = sleef::forms(name, true);
  llvm::Type* t = x->getType();
  auto declare = [&](const sleef::Form& form) {
    llvm::Type* type = form.width == 1 ? t : llvm::FixedVectorType::get(t, form.width);
    std::vector<llvm::Type*> params(static_cast<size_t>(form.arity), type);
    llvm::FunctionCallee callee = m_.getOrInsertFunction(form.symbol, llvm::FunctionType::get(type, params, false));
    auto* f = llvm::cast<llvm::Function>(callee.getCallee());
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
    return callee;
  };
  llvm::FunctionCallee scalar = declare(forms[0]);
  llvm::CallInst* call = y ? b_.CreateCall(scalar, {x, y}) : b_.CreateCall(scalar, {x});
  // The vector forms the loop vectoriser may call for 4, 8 or 16 elements
  // at once (declared, and kept until then as "used").
  llvm::SmallVector<std::string, 8> variants;
  for (size_t k = 1; k < forms.size(); ++k) {
    auto* vector = llvm::cast<llvm::Function>(declare(forms[k]).getCallee());
    llvm::appendToCompilerUsed(m_, {vector});
    variants.push_back(llvm::VFABI::mangleTLIVectorName(forms[k].symbol, forms[0].symbol, forms[k].arity,
                                                        llvm::ElementCount::getFixed(forms[k].width)));
  }
  if (!variants.empty()) llvm::VFABI::setVectorVariantNames(call, variants);
  // Every NaN the default quiet NaN, as vmath::apply makes it.
  return b_.CreateSelect(b_.CreateFCmpUNO(call, call), llvm::ConstantFP::getNaN(t), call);
}

llvm::Value* ElementwiseEmitter::special(const char* name, llvm::Value* x, llvm::Value* y, bool floatForm) {
  llvm::Type* t = x->getType();
  bool integer = t->isIntegerTy();
  bool single = (floatForm && t->isFloatTy()) || integer;
  llvm::Type* f64 = single ? t : b_.getDoubleTy();
  std::vector<llvm::Type*> params(y ? 2 : 1, f64);
  std::string symbol = std::string(name);
  if (integer)
    symbol += t->getIntegerBitWidth() == 32 ? "_i32" : "_i64";
  else if (single)
    symbol += "f";
  llvm::FunctionCallee callee = m_.getOrInsertFunction(symbol, llvm::FunctionType::get(f64, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
  }
  if (single) return y ? b_.CreateCall(callee, {x, y}) : b_.CreateCall(callee, {x});
  llvm::Value* wideX = b_.CreateFPExt(x, f64);
  llvm::Value* r = y ? b_.CreateCall(callee, {wideX, b_.CreateFPExt(y, f64)}) : b_.CreateCall(callee, {wideX});
  return b_.CreateFPTrunc(r, t);
}

llvm::Value* ElementwiseEmitter::remainder(llvm::Value* x, llvm::Value* y) {
  llvm::Type* t = x->getType();
  llvm::Value* m = sleef(t->isFloatTy() ? "fmodf" : "fmod", x, y);
  // SLEEF's fmod is NaN where the quotient is beyond about 2^127, libm's
  // only for a NaN operand, an infinite x or a zero y. Other NaNs are
  // faults: the node runs op by op, whose kernels compute them again
  // through libm (vmath::fmod).
  llvm::Value* libmNaN = b_.CreateOr(b_.CreateOr(b_.CreateFCmpUNO(x, x), b_.CreateFCmpUNO(y, y)),
                                     b_.CreateOr(b_.CreateFCmpOEQ(intrinsic(llvm::Intrinsic::fabs, x),
                                                                  llvm::ConstantFP::getInfinity(t)),
                                                 b_.CreateFCmpOEQ(y, constant(t, 0.0))));
  faults_.push_back(b_.CreateAnd(b_.CreateFCmpUNO(m, m), b_.CreateNot(libmNaN)));
  return m;
}

llvm::Value* ElementwiseEmitter::floatBinary(Op op, llvm::Value* x, llvm::Value* y) {
  llvm::Type* t = x->getType();
  llvm::Value* zero = constant(t, 0.0);
  switch (op) {
    case Op::Add: return b_.CreateFAdd(x, y);
    case Op::Sub: return b_.CreateFSub(x, y);
    case Op::Mul: return b_.CreateFMul(x, y);
    case Op::Div: return b_.CreateFDiv(x, y);
    case Op::Pow: return intrinsic(llvm::Intrinsic::pow, x, y);
    case Op::FloorDiv: {
      // floorDivFromRemainder: Python's floor division, rounded as CPython
      // does, from SLEEF's exact fmod; a NaN the default quiet NaN.
      llvm::Value* mod = remainder(x, y);
      llvm::Value* div = b_.CreateFDiv(b_.CreateFSub(x, mod), y);
      llvm::Value* signsDiffer = b_.CreateXor(b_.CreateFCmpOLT(y, zero), b_.CreateFCmpOLT(mod, zero));
      llvm::Value* adjust = b_.CreateAnd(b_.CreateFCmpUNE(mod, zero), signsDiffer);
      div = b_.CreateSelect(adjust, b_.CreateFSub(div, constant(t, 1.0)), div);
      llvm::Value* fl = intrinsic(llvm::Intrinsic::floor, div);
      fl = b_.CreateSelect(b_.CreateFCmpOGT(b_.CreateFSub(div, fl), constant(t, 0.5)), b_.CreateFAdd(fl, constant(t, 1.0)), fl);
      llvm::Value* quotient = b_.CreateFDiv(x, y);
      llvm::Value* r = b_.CreateSelect(b_.CreateFCmpOEQ(div, zero), intrinsic(llvm::Intrinsic::copysign, zero, quotient), fl);
      r = b_.CreateSelect(b_.CreateFCmpOEQ(y, zero), quotient, r);
      return b_.CreateSelect(b_.CreateFCmpUNO(r, r), llvm::ConstantFP::getNaN(t), r);
    }
    case Op::Mod: {
      // modFromRemainder: the result takes the divisor's sign; NaN (the
      // default quiet NaN) for a zero divisor.
      llvm::Value* m = remainder(x, y);
      llvm::Value* signsDiffer = b_.CreateXor(b_.CreateFCmpOLT(m, zero), b_.CreateFCmpOLT(y, zero));
      m = b_.CreateSelect(b_.CreateAnd(b_.CreateFCmpUNE(m, zero), signsDiffer), b_.CreateFAdd(m, y), m);
      m = b_.CreateSelect(b_.CreateFCmpOEQ(m, zero), intrinsic(llvm::Intrinsic::copysign, zero, y), m);
      return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOEQ(y, zero), b_.CreateFCmpUNO(m, m)), llvm::ConstantFP::getNaN(t), m);
    }
    case Op::Fmod: return remainder(x, y);  // its NaNs already the default quiet NaN
    case Op::Atan2: return t->isFloatTy() ? sleef("atan2f", x, y) : libm("atan2", x, y);
    case Op::Hypot: return t->isFloatTy() ? sleef("hypotf", x, y) : libm("hypot", x, y);
    case Op::Copysign: return intrinsic(llvm::Intrinsic::copysign, x, y);
    case Op::Polygamma: return special("nn_polygamma", x, y);
    case Op::Zeta: return special("nn_zeta", x, y);
    case Op::Gammainc: return special("nn_gammainc", x, y);
    case Op::Gammaincc: return special("nn_gammaincc", x, y);
    case Op::Nextafter: {
      // special::nextAfter: the bits one step up or down (from zero, the
      // least subnormal of y's sign); y where x == y, x + y for a NaN.
      llvm::Type* bitsType = b_.getIntNTy(t->getPrimitiveSizeInBits());
      llvm::Value* bits = b_.CreateBitCast(x, bitsType);
      llvm::Value* grows = b_.CreateICmpEQ(b_.CreateFCmpOLT(x, y), b_.CreateFCmpOGT(x, zero));
      llvm::Value* one = llvm::ConstantInt::get(bitsType, 1);
      llvm::Value* away = b_.CreateSelect(grows, b_.CreateAdd(bits, one), b_.CreateSub(bits, one));
      llvm::Value* signOfY =
          b_.CreateAnd(b_.CreateBitCast(y, bitsType),
                       llvm::ConstantInt::get(bitsType, llvm::APInt::getSignMask(bitsType->getIntegerBitWidth())));
      llvm::Value* next =
          b_.CreateBitCast(b_.CreateSelect(b_.CreateFCmpOEQ(x, zero), b_.CreateOr(signOfY, one), away), t);
      next = b_.CreateSelect(b_.CreateFCmpOEQ(x, y), y, next);
      return b_.CreateSelect(b_.CreateFCmpUNO(x, y), b_.CreateFAdd(x, y), next);
    }
    case Op::Maximum:
    case Op::Minimum: {
      // NaN propagates (the first operand's when both are NaN).
      llvm::Value* pick = op == Op::Maximum ? b_.CreateFCmpOGT(x, y) : b_.CreateFCmpOLT(x, y);
      llvm::Value* r = b_.CreateSelect(pick, x, y);
      r = b_.CreateSelect(b_.CreateFCmpUNO(y, y), y, r);
      return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, r);
    }
    default: return nullptr;
  }
}

llvm::Value* ElementwiseEmitter::intBinary(Op op, llvm::Value* x, llvm::Value* y, DType dt) {
  llvm::Type* t = x->getType();
  bool boolean = dt == DType::Bool;
  switch (op) {
    case Op::Add: return boolean ? nullptr : b_.CreateAdd(x, y);
    case Op::Sub: return boolean ? nullptr : b_.CreateSub(x, y);
    case Op::Mul: return boolean ? nullptr : b_.CreateMul(x, y);
    case Op::BitAnd: case Op::LogicalAnd: return b_.CreateAnd(x, y);
    case Op::BitOr: case Op::LogicalOr: return b_.CreateOr(x, y);
    case Op::BitXor: return b_.CreateXor(x, y);
    case Op::Maximum: return b_.CreateSelect(boolean ? b_.CreateICmpUGT(x, y) : b_.CreateICmpSGT(x, y), x, y);
    case Op::Minimum: return b_.CreateSelect(boolean ? b_.CreateICmpULT(x, y) : b_.CreateICmpSLT(x, y), x, y);
    case Op::FloorDiv:
    case Op::Mod:
    case Op::Fmod: {
      // floorDivOf / modOf / fmodOf. A zero divisor is a fault: the kernel
      // reports it and the runtime runs the node op by op, which raises the
      // error at its op. The most negative value over -1 wraps around.
      if (boolean) return nullptr;
      llvm::Value* zero = llvm::ConstantInt::get(t, 0);
      llvm::Value* isZero = b_.CreateICmpEQ(y, zero);
      llvm::Value* isMinusOne = b_.CreateICmpEQ(y, llvm::ConstantInt::getSigned(t, -1));
      faults_.push_back(isZero);
      llvm::Value* d = b_.CreateSelect(b_.CreateOr(isZero, isMinusOne), llvm::ConstantInt::get(t, 1), y);
      llvm::Value* m = b_.CreateSRem(x, d);
      if (op == Op::Fmod) return b_.CreateSelect(isMinusOne, zero, m);
      llvm::Value* inexact = b_.CreateICmpNE(m, zero);
      llvm::Value* yNegative = b_.CreateICmpSLT(y, zero);
      if (op == Op::FloorDiv) {
        llvm::Value* adjust = b_.CreateAnd(inexact, b_.CreateXor(b_.CreateICmpSLT(x, zero), yNegative));
        llvm::Value* q = b_.CreateSub(b_.CreateSDiv(x, d), b_.CreateZExt(adjust, t));
        return b_.CreateSelect(isMinusOne, b_.CreateSub(zero, x), q);
      }
      llvm::Value* adjust = b_.CreateAnd(inexact, b_.CreateXor(b_.CreateICmpSLT(m, zero), yNegative));
      m = b_.CreateSelect(adjust, b_.CreateAdd(m, y), m);
      return b_.CreateSelect(isMinusOne, zero, m);
    }
    case Op::Pow: {
      // intPow: square and multiply, wrapping around, over every bit a
      // non-negative power can set (a constant power folds to a few
      // multiplications). A negative power is a fault: op by op, the
      // node raises the error at its op.
      if (boolean) return nullptr;
      faults_.push_back(b_.CreateICmpSLT(y, llvm::ConstantInt::get(t, 0)));
      llvm::Value* result = llvm::ConstantInt::get(t, 1);
      llvm::Value* base = x;
      for (unsigned k = 0; k + 1 < t->getIntegerBitWidth(); ++k) {
        llvm::Value* bit = b_.CreateTrunc(b_.CreateLShr(y, k), b_.getInt1Ty());
        result = b_.CreateSelect(bit, b_.CreateMul(result, base), result);
        base = b_.CreateMul(base, base);
      }
      return result;
    }
    case Op::Gcd: return boolean ? nullptr : special("nn_gcd", x, y);
    case Op::Lcm: return boolean ? nullptr : special("nn_lcm", x, y);
    case Op::LShift:
    case Op::RShift: {
      if (boolean) return nullptr;
      // Shifts by a negative count or by the width or more give 0 (or -1
      // for a negative number shifted right), not LLVM's poison.
      llvm::Value* bits = llvm::ConstantInt::get(t, t->getIntegerBitWidth());
      llvm::Value* outOfRange = b_.CreateICmpUGE(y, bits);  // negative counts are huge unsigned
      llvm::Value* zero = llvm::ConstantInt::get(t, 0);
      if (op == Op::LShift) return b_.CreateSelect(outOfRange, zero, b_.CreateShl(x, y));
      llvm::Value* fill = b_.CreateSelect(b_.CreateICmpSLT(x, zero), llvm::ConstantInt::getSigned(t, -1), zero);
      return b_.CreateSelect(outOfRange, fill, b_.CreateAShr(x, y));
    }
    default: return nullptr;
  }
}

llvm::Value* ElementwiseEmitter::compare(Op op, llvm::Value* x, llvm::Value* y, DType dt) {
  using P = llvm::CmpInst::Predicate;
  P p;
  if (ir::isFloating(dt)) {
    // Ordered, except != (true when either is NaN), as C++ compares.
    switch (op) {
      case Op::Lt: p = P::FCMP_OLT; break;
      case Op::Le: p = P::FCMP_OLE; break;
      case Op::Gt: p = P::FCMP_OGT; break;
      case Op::Ge: p = P::FCMP_OGE; break;
      case Op::Eq: p = P::FCMP_OEQ; break;
      default: p = P::FCMP_UNE; break;
    }
    return b_.CreateFCmp(p, x, y);
  }
  bool u = dt == DType::Bool;
  switch (op) {
    case Op::Lt: p = u ? P::ICMP_ULT : P::ICMP_SLT; break;
    case Op::Le: p = u ? P::ICMP_ULE : P::ICMP_SLE; break;
    case Op::Gt: p = u ? P::ICMP_UGT : P::ICMP_SGT; break;
    case Op::Ge: p = u ? P::ICMP_UGE : P::ICMP_SGE; break;
    case Op::Eq: p = P::ICMP_EQ; break;
    default: p = P::ICMP_NE; break;
  }
  return b_.CreateICmp(p, x, y);
}

llvm::Value* ElementwiseEmitter::floatUnary(Op op, llvm::Value* x, std::string& why) {
  llvm::Type* t = x->getType();
  bool f32 = t->isFloatTy();
  llvm::Value* one = constant(t, 1.0);
  llvm::Value* zero = constant(t, 0.0);
  // f32 takes SLEEF's function where it has libm's, as the f32 kernels do
  // (kernels_cpu_float32_math.cpp); f64 libm's, as a Python float does.
  auto math = [&](const char* name, llvm::Intrinsic::ID id, llvm::Value* v) {
    if (f32) return sleef(name, v);
    return id == llvm::Intrinsic::not_intrinsic ? libm(name, v) : intrinsic(id, v);
  };
  constexpr auto none = llvm::Intrinsic::not_intrinsic;
  auto exp = [&](llvm::Value* v) { return math("exp", llvm::Intrinsic::exp, v); };
  auto log1p = [&](llvm::Value* v) { return math("log1p", none, v); };
  switch (op) {
    case Op::Exp: return exp(x);
    case Op::Log: return math("log", llvm::Intrinsic::log, x);
    case Op::Sqrt: return intrinsic(llvm::Intrinsic::sqrt, x);
    case Op::Rsqrt: return b_.CreateFDiv(one, intrinsic(llvm::Intrinsic::sqrt, x));
    case Op::Sin: return math("sin", llvm::Intrinsic::sin, x);
    case Op::Cos: return math("cos", llvm::Intrinsic::cos, x);
    case Op::Tanh: return math("tanh", none, x);
    case Op::Sigmoid: return b_.CreateFDiv(one, b_.CreateFAdd(one, exp(b_.CreateFNeg(x))));
    case Op::Gelu: {
      // 0.5 * x * (1 + erf(x / sqrt(2))), sqrt(2) rounded in the dtype.
      llvm::Value* root2 = f32 ? constant(t, std::sqrt(2.0f)) : constant(t, std::sqrt(2.0));
      llvm::Value* e = math("erf", none, b_.CreateFDiv(x, root2));
      return b_.CreateFMul(b_.CreateFMul(constant(t, 0.5), x), b_.CreateFAdd(one, e));
    }
    case Op::GeluGrad: {
      // float_unary.def's: 0.5 * (1 + erf(x * sqrt(1/2))) + x * (c * exp(x * x * -0.5)).
      llvm::Value* cdf = b_.CreateFMul(
          constant(t, 0.5), b_.CreateFAdd(one, math("erf", none, b_.CreateFMul(x, constant(t, M_SQRT1_2)))));
      llvm::Value* e = exp(b_.CreateFMul(b_.CreateFMul(x, x), constant(t, -0.5)));
      return b_.CreateFAdd(cdf, b_.CreateFMul(x, b_.CreateFMul(constant(t, 0.5 * M_2_SQRTPI * M_SQRT1_2), e)));
    }
    case Op::Erf: return math("erf", none, x);
    case Op::Silu: return b_.CreateFDiv(x, b_.CreateFAdd(one, exp(b_.CreateFNeg(x))));
    case Op::SiluGrad: {
      llvm::Value* s = b_.CreateFDiv(one, b_.CreateFAdd(one, exp(b_.CreateFNeg(x))));
      return b_.CreateFMul(s, b_.CreateFAdd(one, b_.CreateFMul(x, b_.CreateFSub(one, s))));
    }
    case Op::Softplus:
      return b_.CreateSelect(b_.CreateFCmpOGT(x, constant(t, 20.0)), x, log1p(exp(x)));
    case Op::Log1p:
      if (!f32) return log1p(x);
      // Past SLEEF's range (sleef_functions.h), log.
      return b_.CreateSelect(b_.CreateFCmpOGT(x, constant(t, sleef::kLog1pLargest)), sleef("log", x), log1p(x));
    case Op::Expm1: return math("expm1", none, x);
    case Op::Tan: return math("tan", none, x);
    case Op::Atan: return math("atan", none, x);
    case Op::Reciprocal: return b_.CreateFDiv(one, x);
    case Op::Log2: return math("log2", llvm::Intrinsic::log2, x);
    case Op::Log10: return math("log10", llvm::Intrinsic::log10, x);
    case Op::Sinh: return libm("sinh", x);
    case Op::Cosh: return libm("cosh", x);
    case Op::Asin: return math("asin", none, x);
    case Op::Acos: return math("acos", none, x);
    case Op::Square: return b_.CreateFMul(x, x);
    case Op::Acosh: return libm("acosh", x);
    case Op::Asinh: return libm("asinh", x);
    case Op::Atanh: return math("atanh", none, x);
    case Op::Exp2: return math("exp2", none, x);
    case Op::Erfc: return libm("erfc", x);
    case Op::Erfinv: return special("nn_erfinv", x, nullptr, true);
    case Op::Lgamma: return f32 ? sleef("lgamma", x) : special("nn_lgamma", x);
    case Op::Digamma: return special("nn_digamma", x);
    case Op::I0: return special("nn_i0", x);
    case Op::I0e: return special("nn_i0e", x);
    case Op::I1: return special("nn_i1", x);
    case Op::I1e: return special("nn_i1e", x);
    case Op::K0: return special("nn_k0", x);
    case Op::K0e: return special("nn_k0e", x);
    case Op::K1: return special("nn_k1", x);
    case Op::K1e: return special("nn_k1e", x);
    case Op::Erfcx: return special("nn_erfcx", x);
    case Op::Ndtri: return special("nn_ndtri", x);
    case Op::LogNdtr: return special("nn_log_ndtr", x);
    case Op::BesselJ0: return special("nn_bessel_j0", x);
    case Op::BesselJ1: return special("nn_bessel_j1", x);
    case Op::BesselY0: return special("nn_bessel_y0", x);
    case Op::BesselY1: return special("nn_bessel_y1", x);
    case Op::AiryAi: return special("nn_airy_ai", x);
    case Op::FrexpMantissa: return special("nn_frexp_mantissa", x);
    case Op::FrexpExponent: return special("nn_frexp_exponent", x);
    case Op::Floor: return intrinsic(llvm::Intrinsic::floor, x);
    case Op::Ceil: return intrinsic(llvm::Intrinsic::ceil, x);
    case Op::Round: return intrinsic(llvm::Intrinsic::nearbyint, x);  // halves to even
    case Op::Abs: return intrinsic(llvm::Intrinsic::fabs, x);
    case Op::Sign: {
      llvm::Value* s = b_.CreateSelect(b_.CreateFCmpOGT(x, zero), one,
                                       b_.CreateSelect(b_.CreateFCmpOLT(x, zero), constant(t, -1.0), zero));
      return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, s);
    }
    case Op::Relu:
      return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, b_.CreateSelect(b_.CreateFCmpOGT(x, zero), x, zero));
    case Op::IsNan: return b_.CreateFCmpUNO(x, x);
    case Op::IsInf:
      return b_.CreateFCmpOEQ(intrinsic(llvm::Intrinsic::fabs, x), constant(t, std::numeric_limits<double>::infinity()));
    case Op::IsFinite:
      return b_.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, x), constant(t, std::numeric_limits<double>::infinity()));
    case Op::Neg: return b_.CreateFNeg(x);
    case Op::Pos: return x;
    default:
      why = std::string(ir::opInfo(op).name) + " has no kernel for floating-point tensors";
      return nullptr;
  }
}

Element ElementwiseEmitter::binary(Op op, const Element& x, const Element& y, DType resultType, std::string& why) {
  auto fail = [&](const std::string& reason) {
    why = reason;
    return Element{};
  };
  auto kindOf = [](const Element& e) { return e.kind; };
  if (op == Op::LogicalAnd || op == Op::LogicalOr) {
    // Both operands as bools (mathBinary), then & or |.
    if (resultType != DType::Bool) return fail("logical op of a non-bool result");
    llvm::Value* r = intBinary(op, convert(x, DType::Bool), convert(y, DType::Bool), DType::Bool);
    return Element{r, false, DType::Bool};
  }
  if (x.number && y.number) return fail("an op of two numbers");
  DType common = !x.number && !y.number ? ir::promote(x.dtype, y.dtype)
                 : !x.number            ? ir::promoteWithScalar(x.dtype, kindOf(y))
                                        : ir::promoteWithScalar(y.dtype, kindOf(x));
  bool cmp = ir::isComparison(op);
  DType compute = cmp ? common : ir::binaryComputeType(op, common);
  DType out = cmp ? DType::Bool : compute;
  if (out != resultType)
    return fail(std::string(ir::opInfo(op).name) + "'s result type differs from the kernel's (" +
                ir::dtypeName(resultType) + ", not " + ir::dtypeName(out) + ")");
  llvm::Value* a = convert(x, compute);
  llvm::Value* b = convert(y, compute);
  if (!a || !b) return fail(std::string("a float number operand of an integer ") + ir::opInfo(op).name);
  llvm::Value* r = nullptr;
  if (cmp) r = compare(op, a, b, compute);
  else if (ir::isFloating(compute)) r = floatBinary(op, a, b);
  else r = intBinary(op, a, b, compute);
  if (!r) return fail(std::string(ir::opInfo(op).name) + " has no kernel for " + ir::dtypeName(compute));
  return Element{r, false, out};
}

Element ElementwiseEmitter::unary(Op op, const Element& x, DType resultType, std::string& why) {
  auto fail = [&](const std::string& reason) {
    why = reason;
    return Element{};
  };
  if (x.number) return fail(std::string(ir::opInfo(op).name) + " of a number");
  DType compute = x.dtype;
  bool math = op != Op::Neg && op != Op::Pos && op != Op::Invert;
  if (math) {
    // mathUnary's conversions.
    if (op == Op::LogicalNot) compute = DType::Bool;
    else if (ir::computesInFloat(op) && !ir::isFloating(compute)) compute = DType::F32;
    else if (compute == DType::Bool && !ir::testsElementClass(op)) compute = DType::I64;
  }
  DType out = ir::unaryGivesBool(op) ? DType::Bool : compute;
  if (out != resultType) return fail(std::string(ir::opInfo(op).name) + "'s result type differs from the kernel's");
  llvm::Value* a = convert(x, compute);
  llvm::Value* r = nullptr;
  llvm::Type* t = a->getType();
  if (ir::isFloating(compute)) {
    if (op == Op::Invert) return fail("~ has no kernel for floating-point tensors");
    r = floatUnary(op, a, why);
  } else if (compute == DType::Bool) {
    if (op == Op::LogicalNot || op == Op::Invert) r = b_.CreateNot(a);
    else if (ir::testsElementClass(op)) r = op == Op::IsFinite ? b_.getTrue() : b_.getFalse();
    else why = std::string(ir::opInfo(op).name) + " has no kernel for bool tensors";
  } else {
    llvm::Value* zero = llvm::ConstantInt::get(t, 0);
    switch (op) {
      case Op::Neg: r = b_.CreateNeg(a); break;
      case Op::Pos: case Op::Floor: case Op::Ceil: case Op::Round: r = a; break;
      case Op::Invert: r = b_.CreateNot(a); break;
      case Op::Abs: r = b_.CreateSelect(b_.CreateICmpSLT(a, zero), b_.CreateNeg(a), a); break;
      case Op::Sign:
        r = b_.CreateSub(b_.CreateZExt(b_.CreateICmpSGT(a, zero), t), b_.CreateZExt(b_.CreateICmpSLT(a, zero), t));
        break;
      case Op::Relu: r = b_.CreateSelect(b_.CreateICmpSGT(a, zero), a, zero); break;
      case Op::Square: r = b_.CreateMul(a, a); break;  // wrapping
      case Op::IsNan: case Op::IsInf: r = b_.getFalse(); break;
      case Op::IsFinite: r = b_.getTrue(); break;
      default: why = std::string(ir::opInfo(op).name) + " has no kernel for integer tensors"; break;
    }
  }
  if (!r) return Element{};
  return Element{r, false, out};
}

Element ElementwiseEmitter::where(const Element& c, const Element& x, const Element& y, DType resultType,
                                  std::string& why) {
  // whereOp: a number beside a tensor converts straight to the dtype they
  // promote to; two numbers first become tensors of their own dtypes
  // (bool, i64, f32), then convert to the common one.
  auto natural = [&](const Element& e) -> Element {
    if (!e.number) return e;
    DType dt = e.kind == ScalarKind::Bool ? DType::Bool : e.kind == ScalarKind::Int ? DType::I64 : DType::F32;
    return Element{convert(e, dt), false, dt};
  };
  auto kindOf = [](const Element& e) { return e.kind; };
  bool numbers = x.number && y.number;
  Element xn = numbers ? natural(x) : x, yn = numbers ? natural(y) : y;
  DType dt = !x.number && !y.number ? ir::promote(x.dtype, y.dtype)
             : !x.number            ? ir::promoteWithScalar(x.dtype, kindOf(y))
             : !y.number            ? ir::promoteWithScalar(y.dtype, kindOf(x))
                                    : ir::promote(xn.dtype, yn.dtype);
  if (dt != resultType) {
    why = "where's result type differs from the kernel's";
    return Element{};
  }
  llvm::Value* cond = convert(natural(c), DType::Bool);
  llvm::Value* a = convert(xn, dt);
  llvm::Value* b = convert(yn, dt);
  if (!a || !b) {
    why = "a number operand of where that does not convert to " + std::string(dtypeName(dt));
    return Element{};
  }
  return Element{b_.CreateSelect(cond, a, b), false, dt};
}

Element ElementwiseEmitter::emit(const ir::Node& n, const std::vector<Element>& in, std::string& why) {
  const ir::Type& type = n.result(0)->type();
  // Python float arithmetic inside a chain (1.0 - beta): the double
  // operations Python makes, on numbers read once (LLVM hoists them).
  bool floats = type.kind == ir::TypeKind::Float && !in.empty();
  for (const Element& e : in) floats = floats && e.number && e.kind == ScalarKind::Float;
  if (floats) {
    Element r;
    r.number = true;
    r.kind = ScalarKind::Float;
    if (n.op() == Op::Neg && in.size() == 1) r.value = b_.CreateFNeg(in[0].value);
    else if (n.op() == Op::Add && in.size() == 2) r.value = b_.CreateFAdd(in[0].value, in[1].value);
    else if (n.op() == Op::Sub && in.size() == 2) r.value = b_.CreateFSub(in[0].value, in[1].value);
    else if (n.op() == Op::Mul && in.size() == 2) r.value = b_.CreateFMul(in[0].value, in[1].value);
    else why = std::string(n.info().name) + " of Python floats is not compiled";
    return r;
  }
  if (!type.dtype) {
    why = std::string(n.info().name) + " has no known dtype";
    return Element{};
  }
  DType rt = *type.dtype;
  Op op = n.op();
  if (op == Op::Where && in.size() == 3) return where(in[0], in[1], in[2], rt, why);
  if (ir::hasTrait(op, ir::CAST) && in.size() == 1 && !in[0].number)
    return Element{convert(in[0], rt), false, rt};  // astype: kernel_loops.h convertValue
  if (in.size() == 2) return binary(op, in[0], in[1], rt, why);
  if (in.size() == 1) return unary(op, in[0], rt, why);
  why = std::string(n.info().name) + " with " + std::to_string(in.size()) + " operands";
  return Element{};
}

}  // namespace nn::rt::jit
