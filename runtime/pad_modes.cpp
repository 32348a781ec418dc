// pad's non-constant modes, PyTorch's F.pad: "reflect" (mirrored about
// the edge element, which is not repeated), "replicate" (the edge element
// repeated) and "circular" (wrapped around). Each padded dim reads its
// source positions, listed once on the host, with a gather along that dim
// (so on any device); the gradient scatter-adds back along the same
// positions, the dims in reverse order.
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

std::optional<PadMode> padMode(const std::string& name) {
  if (name == "constant") return PadMode::Constant;
  if (name == "reflect") return PadMode::Reflect;
  if (name == "replicate") return PadMode::Replicate;
  if (name == "circular") return PadMode::Circular;
  return std::nullopt;
}

namespace {

const char* modeName(PadMode m) {
  switch (m) {
    case PadMode::Reflect:
      return "reflect";
    case PadMode::Replicate:
      return "replicate";
    case PadMode::Circular:
      return "circular";
    default:
      return "constant";
  }
}

// The source position of each of the before + n + after positions of a
// dim of n padded in mode m; fails where the mode cannot pad that much.
std::vector<int64_t> sourcePositions(int64_t n, int64_t before, int64_t after, PadMode m, SourceLoc loc) {
  bool fits = m == PadMode::Reflect    ? before < n && after < n
              : m == PadMode::Circular ? before <= n && after <= n
                                       : n > 0 || (before == 0 && after == 0);
  if (before < 0 || after < 0 || !fits)
    fail(loc,
         std::string("pad: ") + modeName(m) + " padding of (" + std::to_string(before) + ", " + std::to_string(after) +
             ") is invalid for a dim of size " + std::to_string(n) +
             (m == PadMode::Reflect    ? " (it must be smaller)"
              : m == PadMode::Circular ? " (at most that)"
                                       : ""),
         ErrorClass::ValueError);
  std::vector<int64_t> at(static_cast<size_t>(before + n + after));
  for (int64_t o = 0; o < before + n + after; ++o) {
    int64_t i = o - before;
    if (m == PadMode::Reflect)
      i = i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
    else if (m == PadMode::Replicate)
      i = i < 0 ? 0 : i >= n ? n - 1 : i;
    else
      i = ((i % n) + n) % n;
    at[static_cast<size_t>(o)] = i;
  }
  return at;
}

// The positions as an index for gather/scatter_add along dim d of a
// tensor of `shape` (whose dim d has their count), on `device`: the list
// broadcast over the other dims, a view where the CPU's kernels read it
// (through its strides; written out whole it took most of a reflect
// padding's gradient), written out for another device's.
Tensor positionsIndex(const std::vector<int64_t>& at, int d, const Shape& shape, Device& device, SourceLoc loc) {
  Tensor list = Tensor::empty(DType::I64, {static_cast<int64_t>(at.size())}, hostSideOf(device));
  std::copy(at.begin(), at.end(), list.data<int64_t>());
  Shape along(shape.size(), 1);
  along[static_cast<size_t>(d)] = static_cast<int64_t>(at.size());
  Tensor index = broadcastTo(reshape(copyTo(list, device, loc), along, loc), shape, loc);
  return device.hostMemory() ? index : contiguousOnItsDevice(index, loc);
}


}  // namespace

Tensor padWithMode(const Tensor& x, const std::vector<int64_t>& widths, PadMode mode, SourceLoc loc) {
  checkPadWidths(static_cast<size_t>(x.ndim()), widths, loc);
  Tensor out = x;
  for (size_t i = 0; i < widths.size() / 2; ++i) {
    int d = x.ndim() - 1 - static_cast<int>(i);
    std::vector<int64_t> at = sourcePositions(out.dim(d), widths[2 * i], widths[2 * i + 1], mode, loc);
    Shape shape = out.shape();
    shape[static_cast<size_t>(d)] = static_cast<int64_t>(at.size());
    out = gather(out, d, positionsIndex(at, d, shape, x.device(), loc), loc);
  }
  return out;
}

Tensor padWithModeGrad(const Tensor& g, const Shape& inputShape, const std::vector<int64_t>& widths, PadMode mode,
                       SourceLoc loc) {
  checkPadWidths(inputShape.size(), widths, loc);
  // The shapes after each dim's padding, to undo them last first.
  std::vector<Shape> shapes{inputShape};
  for (size_t i = 0; i < widths.size() / 2; ++i) {
    Shape next = shapes.back();
    next[next.size() - 1 - i] += widths[2 * i] + widths[2 * i + 1];
    shapes.push_back(next);
  }
  if (g.shape() != shapes.back())
    fail(loc, "pad_grad: the gradient " + typeString(g) + " does not have the padded shape");
  Tensor dx = g;
  for (size_t i = widths.size() / 2; i-- > 0;) {
    int d = static_cast<int>(inputShape.size() - 1 - i);
    const Shape& before = shapes[i];
    std::vector<int64_t> at =
        sourcePositions(before[static_cast<size_t>(d)], widths[2 * i], widths[2 * i + 1], mode, loc);
    Tensor zeros = Tensor::zeros(g.dtype(), before, g.device());
    dx = scatterAdd(zeros, d, positionsIndex(at, d, dx.shape(), g.device(), loc), dx, loc);
  }
  return dx;
}

}  // namespace nn::rt
