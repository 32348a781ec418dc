"""PyTorch on the shapes of bench/small_matmul.nn, timed the same way: the
best mean nanoseconds per matmul, layer or cell step. Run with the OpenBLAS
build (libopenblas0-openmp); one thread, as nn's executor threads run."""
import sys
import time

import torch

torch.set_num_threads(1)
torch.manual_seed(0)
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def best_ns(run, n):
    best = 1e9
    for _ in range(rounds):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best * 1e9 / n


def chain(a, b, n):
    for _ in range(n):
        a = a @ b
    return a


def dense(h, w, b, n):
    for _ in range(n):
        h = torch.relu(h @ w + b)
    return h


def rnn(x, h, wx, wh, b, n):
    for _ in range(n):
        h = torch.tanh(x @ wx + h @ wh + b)
    return h


with torch.no_grad():
    for size in [2, 4, 8, 16, 32, 48, 64, 128]:
        a = torch.zeros(size, size)
        b = torch.ones(size, size) * 0.01
        n = 20000 if size <= 32 else 2000
        print(f"torch_matmul_{size}x{size}_ns {best_ns(lambda: chain(a, b, n), n):.0f}")
    w = torch.randn(64, 64) * 0.1
    bias = torch.randn(64) * 0.1
    h = torch.randn(1, 64)
    print(f"torch_dense_1x64_ns {best_ns(lambda: dense(h, w, bias, 20000), 20000):.0f}")
    wx = torch.randn(32, 32) * 0.1
    wh = torch.randn(32, 32) * 0.1
    bh = torch.randn(32) * 0.1
    x = torch.randn(1, 32)
    print(f"torch_rnn_cell_1x32_ns {best_ns(lambda: rnn(x, torch.zeros(1, 32), wx, wh, bh, 20000), 20000):.0f}")
