"""The side-by-side table the PyTorch sweeps print (op_sweep_torch.py,
grad_sweep_torch.py): PyTorch's cases timed with best_seconds, the nn
script of the same cases run in eager mode with the same thread count, and
both printed, the largest ratio (nn / PyTorch) first; without an nn binary,
PyTorch's figures alone."""
import os
import subprocess
import sys

import torch

from torch_timing import best_seconds


def sweep_setup(default_per):
    """The command line (an nn binary first, if any, then rounds and calls
    per round) as (nn_binary, rounds, per); PyTorch seeded and held to the
    sweep's thread count."""
    nn_binary = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].isdigit() else None
    counts = [a for a in sys.argv[1:] if a.isdigit()]
    torch.manual_seed(0)
    torch.set_num_threads(int(os.environ.get("NN_SWEEP_THREADS", "2")))
    return nn_binary, int(counts[0]) if counts else 3, int(counts[1]) if len(counts) > 1 else default_per


def grad(f):
    """f's gradient in its one tensor argument, by backward() on a fresh
    leaf, as nn's grad takes it."""
    def g(t):
        t = t.detach().requires_grad_()
        f(t).backward()
        return t.grad
    return g


def print_sweep(cases, nn_binary, nn_script, rounds, per, heading):
    mine = {name: best_seconds(f, rounds, per) * 1e6 for name, f in cases}
    if nn_binary is None:
        for name, us in mine.items():
            print(f"{name} {us:.1f}")
        return
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), nn_script)
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("NN_SWEEP_THREADS", "2"))
    lines = subprocess.run([nn_binary, "--mode", "eager", script, str(rounds), str(per)], capture_output=True,
                           text=True, check=True, env=env).stdout.split("\n")
    theirs = dict((l.split()[0], float(l.split()[1])) for l in lines if l.strip())
    rows = [(theirs[n] / mine[n], n) for n in mine if n in theirs]
    print(f"{heading:18} {'nn us':>10} {'torch us':>10} {'ratio':>7}")
    for ratio, n in sorted(rows, reverse=True):
        print(f"{n:18} {theirs[n]:10.1f} {mine[n]:10.1f} {ratio:7.2f}")
