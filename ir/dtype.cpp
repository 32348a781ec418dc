// Names and promotion of tensor element types.
#include "ir/dtype.h"

namespace nn::ir {

const char* dtypeName(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
  }
  return "?";
}

std::optional<DType> dtypeFromName(std::string_view name) {
  for (DType t : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64})
    if (name == dtypeName(t)) return t;
  return std::nullopt;
}

static int category(DType t) { return t == DType::Bool ? 0 : isIntegral(t) ? 1 : 2; }

DType promote(DType a, DType b) {
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  return dtypeSize(a) >= dtypeSize(b) ? a : b;
}

DType promoteWithScalar(DType t, ScalarKind s) {
  int sc = s == ScalarKind::Bool ? 0 : s == ScalarKind::Int ? 1 : 2;
  if (sc <= category(t)) return t;
  return sc == 1 ? DType::I64 : DType::F32;
}

}  // namespace nn::ir
