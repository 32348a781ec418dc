"""PyTorch's nn.LSTM and nn.GRU on the shapes of bench/recurrent.nn, timed
the same way: the best mean microseconds of the forward and of a training
step (backward of a mean-squared loss). Run with the OpenBLAS build
(libopenblas0-openmp)."""
import sys
import time

import torch

torch.manual_seed(0)
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
per = int(sys.argv[2]) if len(sys.argv) > 2 else 10
x = torch.randn(50, 32, 64)
target = torch.randn(50, 32, 128)


def best_us(f):
    f()
    best = 1e9
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(per):
            f()
        best = min(best, (time.perf_counter() - t0) / per)
    return best * 1e6


def train_step(m):
    m.zero_grad()
    y, _ = m(x)
    ((y - target) ** 2).mean().backward()


for name, module in [("lstm", torch.nn.LSTM), ("gru", torch.nn.GRU)]:
    m = module(64, 128)
    with torch.no_grad():
        print(f"torch_{name}_forward_us {best_us(lambda: m(x)):.0f}")
    print(f"torch_{name}_train_step_us {best_us(lambda: train_step(m)):.0f}")
