"""Runs bench/host_values.nn in nn (eager and graph mode) and in CPython,
side by side: the per-item cost of building strs, tuples, dicts and lists.

Usage: python3 bench/host_values_vs_python.py [NN_BINARY] [repeats] [items]
"""
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, "host_values.nn")
nn = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build", "nn")
args = sys.argv[2:]

for mode in ("eager", "graph"):
    out = subprocess.run([nn, "--mode", mode, script, *args], capture_output=True, text=True, check=True).stdout
    print(f"nn {mode:5}  {out.strip()}")

with open(script) as f:
    source = f.read()
captured = []
env = {"argv": [script, *args], "time": time.perf_counter, "print": lambda *a: captured.append(" ".join(map(str, a)))}
exec(compile(source, script, "exec"), env)
print(f"CPython   {captured[-1]}")
