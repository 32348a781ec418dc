// How the elements of a strided array sit when read row by row (rows: all
// dimensions but the last, flattened): element (row, col) at row * rowStride
// + col * colStep, colStep 0 or 1 — a contiguous array, a vector broadcast
// over the rows (a bias), a column broadcast along them, a single value.
// `ok` is false for any other layout (a transpose, a slice with a step). The
// CPU kernels' row loops (runtime/kernel_loops.h) and the JIT's operand
// reads (runtime/jit/fused_codegen.cpp) share it; `anyColStep` admits any
// column step (the JIT reads a transposed or stepped view so).
#pragma once

#include <cstddef>
#include <cstdint>

namespace nn {

struct RowLayout {
  bool ok = false;
  int64_t rowStride = 0, colStep = 0;
};

inline RowLayout rowLayout(const int64_t* shape, const int64_t* strides, size_t nd, bool anyColStep = false) {
  RowLayout l;
  if (nd == 0) return {true, 0, 0};
  l.colStep = shape[nd - 1] == 1 ? 0 : strides[nd - 1];
  if (l.colStep != 0 && l.colStep != 1 && !anyColStep) return l;
  // Leading dimensions collapse into one row stride R when each one's
  // stride is R times the rows inside it (broadcast ones have stride 0).
  int64_t inner = 1;
  bool set = false;
  for (size_t i = nd - 1; i-- > 0;) {
    if (shape[i] != 1) {
      if (!set) {
        l.rowStride = strides[i] / (inner ? inner : 1);
        set = true;
      }
      if (strides[i] != l.rowStride * inner) return l;
    }
    inner *= shape[i];
  }
  l.ok = true;
  return l;
}

}  // namespace nn
