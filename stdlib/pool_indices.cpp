// max_pool2d_with_indices(input, kernel_size, stride=None, padding=0,
// dilation=1, ceil_mode=False): PyTorch's F.max_pool2d_with_indices, the
// pool and the flat index within its [H, W] plane of each window's maximum
// (i64, what max_unpool2d scatters back through); nn.max_pool2d's
// return_indices=True. The pool is max_pool2d's op, differentiated as it
// is; the indices are max_pool2d_indices's (no gradient).
#include "ir/builtins.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value bMaxPool2dWithIndices(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 6);
  Value none = Value::none(), zero = Value::integer(0), one = Value::integer(1), no = Value::boolean(false);
  std::vector<Value> params = {argument(c, args, 0, "input", nullptr), argument(c, args, 1, "kernel_size", nullptr),
                               argument(c, args, 2, "stride", &none),  argument(c, args, 3, "padding", &zero),
                               argument(c, args, 4, "dilation", &one), argument(c, args, 5, "ceil_mode", &no)};
  c.checkKeywordsUsed("max_pool2d_with_indices");
  Value pooled = applyOp(c, ir::Op::MaxPool2d, params);
  Value indices = applyOp(c, ir::Op::MaxPool2dIndices, params);
  return makeTuple({pooled, indices});
}

}  // namespace

void addPoolIndices(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::MaxPool2dWithIndices).name] = bMaxPool2dWithIndices;
}

}  // namespace nn::stdlib
