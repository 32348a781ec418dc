# PyTorch's side of bench/cuda_steps.nn on a GPU: the same chain of f32
# N x N matrix products (TF32 off, as in nn's plugin and
# bench/cublas_matmul) and the same MLP and CNN SGD steps with parameters
# and data on the device, each timing closed by a synchronize. Prints the
# same `name value` lines with a `torch_` prefix; exits 77 without a GPU
# (a third argument `cpu` runs it on the CPU, to check the script itself).
# Usage: python3 bench/torch_cuda_steps.py [sizes, comma-separated] [rounds] [device]
# (benchmarking only: PyTorch is never a dependency of the build).
import sys
import time

import torch

dev = torch.device(sys.argv[3] if len(sys.argv) > 3 else "cuda:0")
if dev.type == "cuda" and not torch.cuda.is_available():
    print("skipped: no GPU here")
    sys.exit(77)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
F = torch.nn.functional
sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
sizes = [int(s) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else [1024, 2048, 4096, 8192]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
torch.manual_seed(0)


def chain(x, w, n):
    for _ in range(n):
        x = x @ w
    return x


for n in sizes:
    w = torch.randn(n, n, device=dev) * (1.0 / n**0.5)
    x = torch.randn(n, n, device=dev)
    reps = max(2, min(50, int(2e12 / (2.0 * n * n * n))))
    chain(x, w, 2)
    sync()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        chain(x, w, reps)
        sync()
        best = min(best, (time.perf_counter() - t0) / reps)
    print(f"torch_matmul_{n}_tflops {2.0 * n * n * n / best / 1e12:.2f}")


def mlp_loss(p, x, y):
    h = torch.relu(x @ p[0] + p[1])
    h = torch.relu(h @ p[2] + p[3])
    return F.cross_entropy(h @ p[4] + p[5], y)


def cnn_loss(p, x, y):
    h = F.max_pool2d(torch.relu(F.conv2d(x, p[0], p[1], padding=1)), 2)
    h = F.max_pool2d(torch.relu(F.conv2d(h, p[2], p[3], padding=1)), 2)
    return F.cross_entropy(h.reshape(32, 1568) @ p[4] + p[5], y)


def measure(name, loss_fn, params, x, y, steps=20):
    params = [p.to(dev).requires_grad_() for p in params]
    x, y = x.to(dev), y.to(dev)
    opt = torch.optim.SGD(params, lr=0.01)

    def step():
        loss = loss_fn(params, x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    step()
    sync()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        best = min(best, (time.perf_counter() - t0) / steps)
    print(f"torch_{name}_step_us {best * 1e6:.0f}")


measure("mlp", mlp_loss,
        [torch.randn(784, 512) * 0.05, torch.zeros(512), torch.randn(512, 256) * 0.06, torch.zeros(256),
         torch.randn(256, 10) * 0.09, torch.zeros(10)], torch.randn(128, 784), torch.randint(0, 10, (128,)))
measure("cnn", cnn_loss,
        [torch.randn(16, 1, 3, 3) * 0.3, torch.zeros(16), torch.randn(32, 16, 3, 3) * 0.08, torch.zeros(32),
         torch.randn(1568, 10) * 0.03, torch.zeros(10)], torch.randn(32, 1, 28, 28), torch.randint(0, 10, (32,)))
