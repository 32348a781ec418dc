# PyTorch eager baselines for bench/bench_tensor.cpp (benchmarking only;
# python3-torch is never a dependency of the build or the tests).
import time
import torch

torch.set_num_threads(2)

def per_call(fn, n):
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n

x, y = torch.tensor([1.0]), torch.tensor([2.0])
def loop_add(n):
    t0 = time.perf_counter()
    for i in range(n):
        z = x + y
    t1 = time.perf_counter()
    for i in range(n):
        z = x
    t2 = time.perf_counter()
    return ((t1 - t0) - (t2 - t1)) / n
print(f"torch eager 1-element add: {min(loop_add(100000) for _ in range(5)) * 1e9:.0f} ns per op (script loop)")

n = 1 << 20
a, b, c, d = (torch.full((n,), v) for v in (0.5, -1.5, 2.0, 3.0))
chain = min(per_call(lambda: torch.relu(a * b + c) * d - a, 50) for _ in range(3))
print(f"torch eager relu(a*b+c)*d-a on 1M f32: {chain * 1e3:.3f} ms")

A = torch.full((1024, 1024), 0.5)
B = torch.full((1024, 1024), 0.25)
mm = min(per_call(lambda: A @ B, 20) for _ in range(3))
print(f"torch matmul 1024^3 f32: {mm * 1e3:.2f} ms = {2 * 1024**3 / mm / 1e9:.1f} GFLOP/s")
