# Issue 11's benchmarks side by side in one run, alternating rounds of
# each contender so that drift in this shared machine's speed hits all of
# them alike; per figure the best over rounds.
#   chain:   relu(a*b+c)*d-a on 1M f32, 2 threads: nn with the JIT, nn op by
#            op (--jit off), the hand-fused C++ loop (build/bench/fused_chain,
#            -O3 -march=native -fopenmp), PyTorch eager and TorchScript.
#   rows:    softmax and layer norm written with row reductions on 512x1000
#            f32 (one fused kernel each): nn JIT on/off, PyTorch eager (the
#            same ops, and its builtin softmax / layer_norm).
#   adam:    Adam's update of a 1M-element f32 parameter (new p, m and v:
#            one fused kernel of three results in nn): nn JIT on/off,
#            PyTorch eager with the same ops, and torch.optim.Adam's step
#            (its in-place single-tensor update).
#   loop:    the 16-element while loop with a tensor condition, per
#            iteration: nn (JIT on/off) and TorchScript.
#   per-op:  x = x + y on 1-element tensors, per op: nn and PyTorch eager.
#   first call of a compiled loop function: nn with a cold and a warm
#            kernel cache (by default code is compiled once hot; also with
#            --jit always, which compiles at the first run), TorchScript
#            (script + first run).
#   training: the MLP and CNN steps of bench/train_steps.nn, JIT on/off.
#   int-loop: `t += i * 2 - 7` in a for loop, per iteration: nn (JIT on/off)
#            and CPython; module-loop: the same at the top level of a
#            script, over module globals.
# Usage: /usr/bin/python3 bench/jit_vs_peers.py [build dir] [rounds]
# (benchmarking only: python3-torch is never a dependency of the build).
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import torch

torch.set_num_threads(2)
F = torch.nn.functional
HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build")
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
NN = os.path.join(BUILD, "nn")
ENV = dict(os.environ, OMP_NUM_THREADS="2")


def figures(cmd, env=ENV):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\w+) ([0-9.e+-]+)", out, re.M)}


def nn_fusion(flags):
    return figures([NN, *flags, os.path.join(HERE, "fusion.nn"), "5", "50"])


def cxx_chain():
    return figures([os.path.join(BUILD, "bench", "fused_chain"), "5", "50"])["chain_1M_us"]


def torch_chain(fn):
    torch.manual_seed(0)
    a, b, c, d = (torch.randn(1000, 1000) for _ in range(4))
    for _ in range(5):
        a = fn(a, b * 0.3, c, d * 0.3)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(50):
            a = fn(a, b, c, d)
        best = min(best, (time.perf_counter() - t0) / 50)
    return best * 1e6


def chain(a, b, c, d):
    return torch.relu(a * b + c) * d - a


def softmax_composed(x):
    m = x.amax(-1, keepdim=True)
    e = (x - m).exp()
    return e / e.sum(-1, keepdim=True)


def layernorm_composed(x, g, b):
    d = x - x.mean(-1, keepdim=True)
    return d / ((d * d).mean(-1, keepdim=True) + 1e-5).sqrt() * g + b


def torch_rows():
    torch.manual_seed(0)
    x, g, b = torch.randn(512, 1000), torch.randn(1000), torch.randn(1000)
    out = {}
    for name, f in (("softmax", lambda: softmax_composed(x)), ("softmax builtin", lambda: torch.softmax(x, -1)),
                    ("layernorm", lambda: layernorm_composed(x, g, b)),
                    ("layernorm builtin", lambda: F.layer_norm(x, (1000,), g, b))):
        for _ in range(5):
            f()
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(50):
                f()
            best = min(best, (time.perf_counter() - t0) / 50)
        out[name] = best * 1e6
    return out


def torch_adam():
    torch.manual_seed(0)
    p, g = torch.randn(1000, 1000), torch.randn(1000, 1000)
    m, v = torch.zeros(1000, 1000), torch.zeros(1000, 1000)

    def composed(p, m, v):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        return p - 0.001 / 0.1 * m / (v.sqrt() / 0.03 + 1e-8), m, v

    param = torch.nn.Parameter(torch.randn(1000, 1000))
    param.grad = g.clone()
    opt = torch.optim.Adam([param], lr=0.001, foreach=False)
    out = {}
    for name, step in (("composed", lambda s: composed(*s)), ("optim.Adam", lambda s: opt.step() or s)):
        state = (p, m, v)
        for _ in range(5):
            state = step(state)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(50):
                state = step(state)
            best = min(best, (time.perf_counter() - t0) / 50)
        out[name] = best * 1e6
    return out


def loop16(n: int, x: torch.Tensor) -> torch.Tensor:
    i = 0
    while i < n:
        x = x * 0.5 + 1.0
        if float(x.sum()) > 31.0:
            x = x - 0.5
        i += 1
    return x


def torchscript_loop(scripted):
    x16 = torch.ones(16)
    scripted(10, x16)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        scripted(2000, x16)
        best = min(best, (time.perf_counter() - t0) / 2000)
    return best * 1e9


def torch_per_op():
    x, y = torch.tensor([1.0]), torch.tensor([0.0])
    def run(n):
        t0 = time.perf_counter()
        for _ in range(n):
            z = x + y
        t1 = time.perf_counter()
        for _ in range(n):
            z = x
        t2 = time.perf_counter()
        return ((t1 - t0) - (t2 - t1)) / n
    return min(run(20000) for _ in range(5)) * 1e9


def torchscript_first():
    # A fresh function object each time: TorchScript caches compilations by
    # the function's source, so the first call is measured in a subprocess.
    code = ("import time, torch\ntorch.set_num_threads(2)\n" +
            "def first(n: int, x: torch.Tensor) -> torch.Tensor:\n"
            "    i = 0\n    while i < n:\n        x = x.abs() * 0.25 + 2.0\n"
            "        if float(x.sum()) > 40.0:\n            x = x - 0.25\n        i += 1\n    return x\n"
            "x16 = torch.ones(16)\nt0 = time.perf_counter()\nf = torch.jit.script(first)\nf(100, x16)\n"
            "print('first_us', (time.perf_counter() - t0) * 1e6)\n")
    # (TorchScript reads the function's source: a file, not -c.)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
    try:
        return figures([sys.executable, f.name])["first_us"]
    finally:
        os.unlink(f.name)


def cpython_int_loop():
    def counter(n, step, offset):
        t = 0
        for i in range(n):
            t += i * step - offset
        return t
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        counter(200000, 2, 7)
        best = min(best, (time.perf_counter() - t0) / 200000)
    return best * 1e9


def cpython_module_loop():
    code = compile("for mi in range(200000):\n    mt += mi * mstep - moff\n", "<module>", "exec")
    best = float("inf")
    for _ in range(5):
        scope = {"mt": 0, "mstep": 2, "moff": 7}
        t0 = time.perf_counter()
        exec(code, scope)
        best = min(best, (time.perf_counter() - t0) / 200000)
    return best * 1e9


def nn_workloads(flags, cache):
    env = dict(ENV, XDG_CACHE_HOME=cache)
    return figures([NN, *flags, os.path.join(HERE, "jit_workloads.nn"), "5"], env)


def train(flags):
    return figures([NN, *flags, os.path.join(HERE, "train_steps.nn"), "5", "10"])


best = {}


def keep(name, value):
    best[name] = min(best.get(name, float("inf")), value)


scripted_loop = torch.jit.script(loop16)
for r in range(ROUNDS):
    for flags, label in (([], "nn jit"), (["--jit", "off"], "nn op by op")):
        f = nn_fusion(flags)
        keep(f"chain {label}", f["chain_1M_us"])
        keep(f"rows softmax {label}", f["softmax_512x1000_us"])
        keep(f"rows layernorm {label}", f["layernorm_512x1000_us"])
        keep(f"adam {label}", f["adam_1M_us"])
    for k, v in torch_rows().items():
        keep(f"rows {k} pytorch eager", v)
    for k, v in torch_adam().items():
        keep(f"adam pytorch {k}", v)
    keep("chain C++ fused", cxx_chain())
    keep("chain pytorch eager", torch_chain(chain))
    keep("chain torchscript", torch_chain(torch.jit.script(chain)))
    cold = tempfile.mkdtemp(prefix="nn-cold-")
    w = nn_workloads([], cold)
    keep("loop16 nn jit", w["loop16_iter_ns"])
    keep("per-op nn jit", w["per_op_add1_ns"])
    keep("int-loop nn jit", w["int_loop_iter_ns"])
    keep("module-loop nn jit", w["module_int_loop_iter_ns"])
    keep("first call nn cold cache", w["first_call_us"])
    keep("first call nn warm cache", nn_workloads([], cold)["first_call_us"])
    shutil.rmtree(cold)
    # What compiling costs: the loop and its kernel compiled at their first
    # run instead of once hot.
    cold = tempfile.mkdtemp(prefix="nn-cold-")
    keep("first call nn always cold cache", nn_workloads(["--jit", "always"], cold)["first_call_us"])
    keep("first call nn always warm cache", nn_workloads(["--jit", "always"], cold)["first_call_us"])
    shutil.rmtree(cold)
    w = nn_workloads(["--jit", "off"], "/nonexistent")
    keep("loop16 nn op by op", w["loop16_iter_ns"])
    keep("per-op nn op by op", w["per_op_add1_ns"])
    keep("int-loop nn op by op", w["int_loop_iter_ns"])
    keep("module-loop nn op by op", w["module_int_loop_iter_ns"])
    keep("first call nn no jit", w["first_call_us"])
    keep("int-loop cpython", cpython_int_loop())
    keep("module-loop cpython", cpython_module_loop())
    keep("loop16 torchscript", torchscript_loop(scripted_loop))
    keep("per-op pytorch eager", torch_per_op())
    keep("first call torchscript", torchscript_first())
    for flags, label in (([], "jit"), (["--jit", "off"], "op by op")):
        t = train(flags)
        for k, v in t.items():
            keep(f"train {k} nn {label}", v)

units = {"chain": "us per chain", "rows": "us per call (512x1000 f32)", "adam": "us per update (1M f32)", "loop16": "ns per iteration", "per-op": "ns per op", "first": "us",
         "int-loop": "ns per iteration", "module-loop": "ns per iteration",
         "train": "us per step"}
for name, value in best.items():
    unit = "bytes" if "_bytes" in name else units[name.split()[0]]
    print(f"{name:40s} {value:12.1f} {unit}")
print()
print(f"chain: nn jit throughput / C++ fused loop = {best['chain C++ fused'] / best['chain nn jit']:.2f}x (target >= 0.8)")
print(f"adam: nn jit / pytorch optim.Adam = {best['adam nn jit'] / best['adam pytorch optim.Adam']:.2f}x")
print(f"loop16: nn jit / torchscript = {best['loop16 nn jit'] / best['loop16 torchscript']:.3f}x (target <= 0.02)")
print(f"per-op: nn jit / pytorch eager = {best['per-op nn jit'] / best['per-op pytorch eager']:.3f}x (target <= 0.03)")
print(f"int-loop: nn jit / cpython = {best['int-loop nn jit'] / best['int-loop cpython']:.3f}x")
print(f"module-loop: nn jit / cpython = {best['module-loop nn jit'] / best['module-loop cpython']:.3f}x")
print(f"first call: cold {best['first call nn cold cache'] / best['first call torchscript']:.3f}x, warm "
      f"{best['first call nn warm cache'] / best['first call torchscript']:.3f}x of torchscript's "
      "(targets <= 0.1, <= 0.02)")
print(f"first call with --jit always (compiled at once): cold "
      f"{best['first call nn always cold cache'] / best['first call torchscript']:.3f}x, warm "
      f"{best['first call nn always warm cache'] / best['first call torchscript']:.3f}x of torchscript's")
