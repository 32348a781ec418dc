"""PyTorch's element-wise math on the shapes of bench/elementwise.nn (a
784x512 f32 tensor, one op at a time), timed the same way: the best mean
microseconds per op. Run with the same thread count as nn (2 here)."""
import sys
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
torch.manual_seed(0)
x = torch.randn(784, 512)
pos = x.abs() + 0.5
ops = [
    ("exp", torch.exp, x), ("log", torch.log, pos), ("sqrt", torch.sqrt, pos), ("tanh", torch.tanh, x),
    ("sigmoid", torch.sigmoid, x), ("gelu", F.gelu, x), ("silu", F.silu, x), ("erf", torch.erf, x),
    ("sin", torch.sin, x), ("cos", torch.cos, x), ("log1p", torch.log1p, pos), ("expm1", torch.expm1, x),
    ("softplus", F.softplus, x), ("relu", torch.relu, x), ("abs", torch.abs, x),
]
with torch.no_grad():
    for name, f, a in ops:
        f(a)
        best = 1e9
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(20):
                y = f(a)
            best = min(best, (time.perf_counter() - t0) / 20)
            float(y.sum())
        print(f"torch_{name}_us {best * 1e6:.0f}")
