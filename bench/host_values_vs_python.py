"""Runs bench/host_values.nn, bench/host_phases.nn and bench/calls.nn in nn
(eager and graph mode) and in CPython, side by side: the per-item cost of
building strs, tuples, dicts and lists, whole and phase by phase, and the
cost of a call of a small scalar function.

Usage: python3 bench/host_values_vs_python.py [NN_BINARY] [repeats] [items]
"""
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
nn = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build", "nn")
args = sys.argv[2:]


def in_python(script, script_args):
    with open(script) as f:
        source = f.read()
    captured = []
    env = {"argv": [script, *script_args], "time": time.perf_counter,
           "print": lambda *a: captured.append(" ".join(map(str, a)))}
    exec(compile(source, script, "exec"), env)
    return captured


def side_by_side(script, script_args):
    runs = {}
    for mode in ("eager", "graph"):
        out = subprocess.run([nn, "--mode", mode, script, *script_args], capture_output=True, text=True,
                             check=True).stdout
        runs[f"nn {mode}"] = out.strip().splitlines()
    runs["CPython"] = in_python(script, script_args)
    for i in range(len(runs["CPython"])):
        for who, lines in runs.items():
            print(f"{who:9} {lines[i]}")


side_by_side(os.path.join(here, "host_values.nn"), args)
# host_phases takes only the item count.
side_by_side(os.path.join(here, "host_phases.nn"), args[1:2])
# calls takes only the repeats.
side_by_side(os.path.join(here, "calls.nn"), args[:1])
