# TorchScript and PyTorch-eager baselines for bench/bench_graph.cpp
# (benchmarking only; python3-torch is never a dependency of the build or
# the tests). Same loop: 1000 iterations of x = x * 0.5 + 1.0 with an `if`
# on a tensor condition, on a 16-element tensor; per iteration.
import time
import torch

torch.set_num_threads(2)


def halve(n: int, x: torch.Tensor) -> torch.Tensor:
    for i in range(n):
        x = x * 0.5 + 1.0
        if bool(x.sum() > 100.0):
            x = x - 1.0
    return x


scripted = torch.jit.script(halve)
x16 = torch.ones(16)
for _ in range(5):  # profiling runs and optimisation passes of the executor
    scripted(1000, x16)


def per_iteration(fn, n=1000, reps=20):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(n, x16)
        best = min(best, (time.perf_counter() - t0) / n)
    return best


print(f"torchscript loop iteration (16 elements): {per_iteration(scripted) * 1e9:.0f} ns")
print(f"pytorch eager loop iteration (16 elements): {per_iteration(halve) * 1e9:.0f} ns")


def chain(n: int, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    for i in range(n):
        x = x + y
    return x


scripted_chain = torch.jit.script(chain)
one, zero = torch.tensor([1.0]), torch.tensor([0.0])
for _ in range(5):
    scripted_chain(1000, one, zero)
t0 = time.perf_counter()
scripted_chain(100000, one, zero)
print(f"torchscript per-op (1-element add in a loop): {(time.perf_counter() - t0) / 100000 * 1e9:.0f} ns")
