# bench/interpolate.nn beside PyTorch eager (F.interpolate, bilinear, the
# same shapes, 2 threads each): forward alone and loss + gradient, ms per
# call, the best over alternating rounds so that drift in this shared
# machine's speed hits both alike.
# Usage: python3 bench/interpolate_vs_torch.py [path/to/nn] [rounds]
# (benchmarking only: python3-torch is never a dependency of the build).
import os
import re
import subprocess
import sys
import time

import torch

torch.set_num_threads(2)
F = torch.nn.functional
NN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "build", "nn")
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
SCRIPT = os.path.join(os.path.dirname(__file__), "interpolate.nn")

torch.manual_seed(0)
x = torch.randn(8, 16, 64, 64)
v = torch.randn(8, 16, 128, 128)


def up(t):
    return F.interpolate(t, size=(128, 128), mode="bilinear")


def torch_round(batches=5):
    forward = backward = float("inf")
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(20):
            up(x)
        t1 = time.perf_counter()
        for _ in range(20):
            xr = x.clone().requires_grad_()
            (up(xr) * v).sum().backward()
        t2 = time.perf_counter()
        forward = min(forward, (t1 - t0) / 20 * 1e3)
        backward = min(backward, (t2 - t1) / 20 * 1e3)
    return forward, backward


best = {"nn": [float("inf")] * 2, "pytorch": [float("inf")] * 2}
env = dict(os.environ, OMP_NUM_THREADS="2")
for _ in range(ROUNDS):
    out = subprocess.run([NN, SCRIPT], capture_output=True, text=True, env=env, check=True).stdout
    got = [float(m) for m in re.findall(r"([0-9.]+) ms", out)]
    best["nn"] = [min(a, b) for a, b in zip(best["nn"], got)]
    best["pytorch"] = [min(a, b) for a, b in zip(best["pytorch"], torch_round())]
print(f"{'':8} {'forward':>10} {'loss+grad':>10}  (ms, [8, 16, 64, 64] -> 128x128 bilinear)")
for name, (f, b) in best.items():
    print(f"{name:8} {f:10.2f} {b:10.2f}")
