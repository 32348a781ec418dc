# Issue 10's training benchmark side by side: the MLP 784-512-256-10 (batch
# 128) and the CNN (32x1x28x28, two conv3x3+relu+maxpool, linear, cross
# entropy) SGD steps in nn (graph and eager mode, bench/train_steps.nn)
# and in PyTorch eager with autograd, alternating rounds of each so that
# drift in this shared machine's speed hits all of them alike. Per
# workload: the best over rounds of the best mean step time over batches
# (the least disturbed figure), and the peak tensor memory of one step
# beyond what was live before it (nn: its allocator's counters; PyTorch:
# its profiler's allocation events in time order). Last, the MLP step's
# eight matrix products alone in each (nn eager, oneDNN; PyTorch, OpenBLAS):
# the part of the step no framework overhead can win back.
# Usage: python3 bench/train_vs_torch.py [path/to/nn] [rounds]
# (benchmarking only: python3-torch is never a dependency of the build).
import os
import subprocess
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

torch.set_num_threads(2)
F = torch.nn.functional
NN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "build", "nn")
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
BATCHES, STEPS = 7, 10
SCRIPT = os.path.join(os.path.dirname(__file__), "train_steps.nn")
GEMMS = os.path.join(os.path.dirname(__file__), "mlp_gemms.nn")

torch.manual_seed(0)


def mlp_setup():
    params = [torch.randn(784, 512) * 0.05, torch.zeros(512), torch.randn(512, 256) * 0.06, torch.zeros(256),
              torch.randn(256, 10) * 0.09, torch.zeros(10)]
    return params, torch.randn(128, 784), torch.randint(0, 10, (128,))


def mlp_loss(p, x, y):
    h = torch.relu(x @ p[0] + p[1])
    h = torch.relu(h @ p[2] + p[3])
    return F.cross_entropy(h @ p[4] + p[5], y)


def cnn_setup():
    params = [torch.randn(16, 1, 3, 3) * 0.3, torch.zeros(16), torch.randn(32, 16, 3, 3) * 0.08, torch.zeros(32),
              torch.randn(1568, 10) * 0.03, torch.zeros(10)]
    return params, torch.randn(32, 1, 28, 28), torch.randint(0, 10, (32,))


def cnn_loss(p, x, y):
    h = F.max_pool2d(torch.relu(F.conv2d(x, p[0], p[1], padding=1)), 2)
    h = F.max_pool2d(torch.relu(F.conv2d(h, p[2], p[3], padding=1)), 2)
    return F.cross_entropy(h.reshape(32, 1568) @ p[4] + p[5], y)


def torch_measure(setup, loss_fn):
    params, x, y = setup()
    for p in params:
        p.requires_grad_()
    opt = torch.optim.SGD(params, lr=0.01)

    def step():
        loss = loss_fn(params, x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    step()
    best = float("inf")
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(STEPS):
            step()
        best = min(best, (time.perf_counter() - t0) / STEPS)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    events = sorted((e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"),
                    key=lambda e: e.start_us())
    live = peak = 0
    for e in events:
        live += e.nbytes()
        peak = max(peak, live)
    return best * 1e6, peak


def torch_gemms():
    """The MLP step's eight products, each timed alone (bench/mlp_gemms.nn)."""
    g = torch.Generator().manual_seed(0)
    r = lambda *shape: torch.randn(*shape, generator=g)
    x, w1, h1, w2, h2, w3 = r(128, 784), r(784, 512), r(128, 512), r(512, 256), r(128, 256), r(256, 10)
    d3, d2, d1 = r(128, 10), r(128, 256), r(128, 512)
    total = 0.0
    for a, b in ((x, w1), (h1, w2), (h2, w3), (d3, w3.t()), (h2.t(), d3), (d2, w2.t()), (h1.t(), d2), (x.t(), d1)):
        for _ in range(5):
            a @ b
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(30):
                a @ b
            best = min(best, (time.perf_counter() - t0) / 30)
        total += best
    return total * 1e6


def nn_measure(mode):
    out = subprocess.run([NN, "--mode", mode, SCRIPT, str(BATCHES), str(STEPS)], check=True,
                         capture_output=True, text=True).stdout
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


best = {}
for _ in range(ROUNDS):
    figures = {("torch", "mlp"): torch_measure(mlp_setup, mlp_loss),
               ("torch", "cnn"): torch_measure(cnn_setup, cnn_loss)}
    for mode in ("graph", "eager"):
        r = nn_measure(mode)
        for w in ("mlp", "cnn"):
            figures[(mode, w)] = (r[f"{w}_step_us"], r[f"{w}_peak_bytes"])
    figures[("torch", "gemms")] = (torch_gemms(), 0)
    out = subprocess.run([NN, "--mode", "eager", GEMMS], check=True, capture_output=True, text=True).stdout
    figures[("eager", "gemms")] = (float(out.split()[1]), 0)
    for key, (us, peak) in figures.items():
        old = best.get(key, (float("inf"), peak))
        best[key] = (min(old[0], us), peak)

print(f"{'workload':<5} {'nn graph':>14} {'nn eager':>14} {'PyTorch':>14} {'graph/PyTorch':>14}")
for w, name in (("mlp", "MLP"), ("cnn", "CNN")):
    g, e, t = best[("graph", w)], best[("eager", w)], best[("torch", w)]
    print(f"{name:<5} {g[0]:>11.0f} us {e[0]:>11.0f} us {t[0]:>11.0f} us {g[0] / t[0]:>13.2f}x")
    print(f"{'peak':<5} {g[1] / 1e6:>11.2f} MB {e[1] / 1e6:>11.2f} MB {t[1] / 1e6:>11.2f} MB {g[1] / t[1]:>13.2f}x")
g, t = best[("eager", "gemms")], best[("torch", "gemms")]
print(f"{'MLP step GEMMs alone (oneDNN vs OpenBLAS)':<34} {g[0]:>8.0f} us {t[0]:>11.0f} us {g[0] / t[0]:>13.2f}x")
