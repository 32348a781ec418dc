// PyTorch's conv_transpose2d (a "deconvolution", as GANs and U-Nets
// upsample with it): the adjoint of conv2d with respect to its input,
// which is the op conv2d's gradient already is (conv2d_grad_input), run on
// the tape so that it differentiates as that op does (with respect to the
// input and the weight), in every mode; the bias added per channel.
#include <algorithm>

#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// An int or a pair of ints, as (rows, cols).
std::pair<int64_t, int64_t> pairArg(CallContext& c, const Value& v, const char* what) {
  if (v.isIntLike()) return {v.asInt(), v.asInt()};
  if ((v.is(Kind::List) || v.is(Kind::Tuple)) && v.as<SeqObj>().items.size() == 2 &&
      v.as<SeqObj>().items[0].isIntLike() && v.as<SeqObj>().items[1].isIntLike())
    return {v.as<SeqObj>().items[0].asInt(), v.as<SeqObj>().items[1].asInt()};
  fail(c.loc, std::string("conv_transpose2d(): ") + what + " must be an int or a pair of ints, not " + repr(v),
       ErrorClass::TypeError);
}

// conv_transpose2d(input, weight, bias=None, stride=1, padding=0,
// output_padding=0, groups=1, dilation=1): input [N, Cin, H, W], weight
// [Cin, Cout / groups, kH, kW]; the output [N, Cout, Hout, Wout] with
// Hout = (H - 1) * stride - 2 * padding + dilation * (kH - 1) +
// output_padding + 1 (likewise Wout), the size conv2d with the same
// arguments maps back to [N, Cin, H, W].
Value bConvTranspose2d(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 8);
  Value none = Value::none(), one = Value::integer(1), zero = Value::integer(0);
  Value x = argument(c, args, 0, "input", nullptr), w = argument(c, args, 1, "weight", nullptr),
        bias = argument(c, args, 2, "bias", &none), strideV = argument(c, args, 3, "stride", &one),
        paddingV = argument(c, args, 4, "padding", &zero),
        outputPaddingV = argument(c, args, 5, "output_padding", &zero), groupsV = argument(c, args, 6, "groups", &one),
        dilationV = argument(c, args, 7, "dilation", &one);
  c.checkKeywordsUsed("conv_transpose2d");
  for (const Value* v : {&x, &w})
    if (!v->is(Kind::Tensor) || tensorOf(*v).ndim() != 4)
      fail(c.loc,
           std::string("conv_transpose2d(): input and weight must be 4-d tensors, not ") +
               (v->is(Kind::Tensor) ? typeString(tensorOf(*v)) : std::string(typeName(*v))),
           ErrorClass::ValueError);
  const Tensor &in = tensorOf(x), &weight = tensorOf(w);
  auto [sh, sw] = pairArg(c, strideV, "stride");
  auto [ph, pw] = pairArg(c, paddingV, "padding");
  auto [oh, ow] = pairArg(c, outputPaddingV, "output_padding");
  auto [dh, dw] = pairArg(c, dilationV, "dilation");
  if (!groupsV.isIntLike() || groupsV.asInt() < 1)
    fail(c.loc, "conv_transpose2d(): groups must be a positive int, not " + repr(groupsV), ErrorClass::ValueError);
  int64_t groups = groupsV.asInt();
  if (sh < 1 || sw < 1 || dh < 1 || dw < 1 || ph < 0 || pw < 0 || oh < 0 || ow < 0)
    fail(c.loc, "conv_transpose2d(): stride and dilation must be positive, padding and output_padding not negative",
         ErrorClass::ValueError);
  if (oh >= std::max(sh, dh) || ow >= std::max(sw, dw))
    fail(c.loc, "conv_transpose2d(): output_padding must be smaller than either stride or dilation",
         ErrorClass::ValueError);
  if (weight.dim(0) != in.dim(1))
    fail(c.loc,
         "conv_transpose2d(): weight " + typeString(weight) + " needs " + std::to_string(weight.dim(0)) +
             " input channels, not the " + std::to_string(in.dim(1)) + " of " + typeString(in),
         ErrorClass::ValueError);
  if (in.dim(1) % groups != 0)
    fail(c.loc,
         "conv_transpose2d(): " + std::to_string(in.dim(1)) + " input channels do not split into " +
             std::to_string(groups) + " groups",
         ErrorClass::ValueError);
  int64_t outH = (in.dim(2) - 1) * sh - 2 * ph + dh * (weight.dim(2) - 1) + oh + 1;
  int64_t outW = (in.dim(3) - 1) * sw - 2 * pw + dw * (weight.dim(3) - 1) + ow + 1;
  int64_t channels = weight.dim(1) * groups;
  if (outH <= 0 || outW <= 0)
    fail(c.loc,
         "conv_transpose2d(): the output would be empty (" + std::to_string(outH) + " x " + std::to_string(outW) + ")",
         ErrorClass::ValueError);
  // conv2d_grad_input reads the shape (and dtype) of the forward input it
  // stands in for: zeros of the output's shape, never differentiated.
  Value shapeOnly = makeTensorValue(
      Tensor::zeros(ir::promote(in.dtype(), weight.dtype()), {in.dim(0), channels, outH, outW}, in.device()));
  Value out =
      applyOp(c, ir::Op::Conv2dGradInput,
              {x, shapeOnly, w, intsTuple({sh, sw}), intsTuple({ph, pw}), intsTuple({dh, dw}), Value::integer(groups)});
  if (bias.is(Kind::None)) return out;
  if (!bias.is(Kind::Tensor) || tensorOf(bias).ndim() != 1 || tensorOf(bias).dim(0) != channels)
    fail(c.loc, "conv_transpose2d(): bias must be a 1-d tensor of the " + std::to_string(channels) + " output channels",
         ErrorClass::ValueError);
  return binary(c, ir::Op::Add, out, applyOp(c, ir::Op::Reshape, {bias, intsTuple({1, channels, 1, 1})}));
}

}  // namespace

void addConvTranspose(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::ConvTranspose2d).name] = bConvTranspose2d;
}

}  // namespace nn::stdlib
