"""PyTorch's dense layer, torch.relu(h @ w + b), on the shapes of
bench/post_ops.nn (ten 512-wide layers, batch 128), timed the same way:
the best mean microseconds per layer. Run with the OpenBLAS build
(libopenblas0-openmp) and the same thread count as nn."""
import time

import torch

torch.manual_seed(0)
ws = [torch.randn(512, 512) * 0.04 for _ in range(10)]
bs = [torch.randn(512) * 0.1 for _ in range(10)]


def layers(h):
    for w, b in zip(ws, bs):
        h = torch.relu(h @ w + b)
    return h


x = torch.randn(128, 512)
with torch.no_grad():
    layers(x)
    best = 1e9
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(20):
            y = layers(x)
        float(y.sum())
        best = min(best, (time.perf_counter() - t0) / 200)
print(f"torch_dense_layer_us {best * 1e6:.1f}")
