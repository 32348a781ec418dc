"""PyTorch on the shapes of bench/small_models.nn, timed the same way: the
best mean nanoseconds per matmul, layer, cell step or training step. Run with the OpenBLAS
build (libopenblas0-openmp); one thread, as nn's executor threads run."""
import sys
import time

import torch

F = torch.nn.functional

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


def train(p, x, y, n):
    for _ in range(n):
        h = torch.relu(x @ p[0] + p[1])
        h = torch.relu(h @ p[2] + p[3])
        loss = F.cross_entropy(h @ p[4] + p[5], y)
        g = torch.autograd.grad(loss, p)
        with torch.no_grad():
            p = [(a - 0.01 * b).requires_grad_() for a, b in zip(p, g)]
    return p


params = [torch.randn(16, 32) * 0.05, torch.zeros(32), torch.randn(32, 32) * 0.06, torch.zeros(32),
          torch.randn(32, 4) * 0.09, torch.zeros(4)]
params = [t.requires_grad_() for t in params]
xb = torch.randn(8, 16)
yb = torch.randint(0, 4, (8,))
print(f"torch_mlp_train_step_8x16_ns {best_ns(lambda: train(params, xb, yb, 2000), 2000):.0f}")
