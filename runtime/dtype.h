// Tensor element types for the runtime: the IR's (ir/dtype.h), so that
// type inference and the kernels promote by one set of rules.
#pragma once

#include "ir/dtype.h"

namespace nn::rt {

using ir::DType;
using ir::dtypeFromName;
using ir::dtypeName;
using ir::dtypeSize;
using ir::isFloating;
using ir::isIntegral;
using ir::promote;
using ir::promoteWithScalar;
using ir::ScalarKind;

}  // namespace nn::rt
