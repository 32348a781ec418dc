# What sharing the cores with another process costs: examples/cnn_digits.nn
# alone and two copies at once (one in graph mode, one eager, as `ctest -j2`
# runs them), with GCC's OpenMP runtime as it comes (idle threads spin
# 300,000 times, about 4 ms here, between two parallel regions), with
# GOMP_SPINCOUNT=1000 (about 12 us: what the test suite sets, and what
# docs/language.md §6 advises where processes share cores), and with one
# thread per process (OMP_NUM_THREADS=1: the floor for two processes on two
# cores). Also the MLP and CNN training steps of bench/train_steps.nn on an
# idle machine: what the short spin costs there.
# The best wall time of the runs for each (seconds; microseconds per step),
# and for two at once the worst too: sharing makes the time erratic.
# Usage: python3 bench/shared_cores.py [path/to/nn] [runs]
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "nn"))
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
EXAMPLE = os.path.join(HERE, "..", "examples", "cnn_digits.nn")
STEPS = os.path.join(HERE, "train_steps.nn")
SETTINGS = {
    "as it comes (300,000 spins)": {},
    "GOMP_SPINCOUNT=1000": {"GOMP_SPINCOUNT": "1000"},
    "OMP_NUM_THREADS=1": {"OMP_NUM_THREADS": "1"},
}


def env(extra):
    e = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
    e.update(extra)
    return e


def example(modes, extra):
    """The wall time of the slowest of the example's copies, one per mode, started together."""
    with tempfile.TemporaryDirectory() as scratch:
        procs = []
        t0 = time.perf_counter()
        for i, mode in enumerate(modes):
            cwd = os.path.join(scratch, str(i))
            os.mkdir(cwd)  # each copy saves its model in its own folder
            procs.append(subprocess.Popen([NN, "--mode", mode, EXAMPLE], cwd=cwd, env=env(extra),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for p in procs:
            if p.wait() != 0:
                sys.exit(f"{NN} {EXAMPLE} failed")
        return time.perf_counter() - t0


def steps(extra):
    out = subprocess.run([NN, STEPS, "5", "10"], env=env(extra), capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: float(line.split()[1]) for line in out.splitlines() if "_step_us" in line}


best, worst = {}, {}
for _ in range(RUNS):
    for name, extra in SETTINGS.items():
        for what, modes in (("alone", ["graph"]), ("two at once", ["graph", "eager"])):
            t = example(modes, extra)
            best[(name, what)] = min(best.get((name, what), t), t)
            worst[(name, what)] = max(worst.get((name, what), t), t)
        if name != "OMP_NUM_THREADS=1":
            for step, us in steps(extra).items():
                best[(name, step)] = min(best.get((name, step), us), us)

print(f"{'setting':32} {'alone':>8} {'two at once (worst)':>20} {'mlp step':>10} {'cnn step':>10}")
for name in SETTINGS:
    pair = f"{best[(name, 'two at once')]:.2f}s ({worst[(name, 'two at once')]:.2f}s)"
    row = f"{name:32} {best[(name, 'alone')]:7.2f}s {pair:>20}"
    if (name, "mlp_step_us") in best:
        row += f" {best[(name, 'mlp_step_us')]:8.0f}us {best[(name, 'cnn_step_us')]:8.0f}us"
    print(row)
