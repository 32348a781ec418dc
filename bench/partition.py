# The heterogeneous issue's merged-versus-split comparison side by side:
# bench/partition.nn (two independent chains of 16 tanh(x @ w) layers, one
# on cpu:1 and one on cpu:2, and the same work on one device) run with
# `--partition merge` (one merged DAG: both devices' queues fed from one
# ready queue, working at once) and `--partition split` (each device's part
# in turn), alternating runs so that drift in the machine's speed hits both
# alike; the best of the runs for each.
# Usage: python3 bench/partition.py [path/to/nn] [runs] [width]
import os
import subprocess
import sys

NN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "build", "nn")
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
WIDTH = sys.argv[3] if len(sys.argv) > 3 else "96"
SCRIPT = os.path.join(os.path.dirname(__file__), "partition.nn")

best = {}
for run in range(RUNS):
    for strategy in ("merge", "split"):
        out = subprocess.run([NN, "--cpu-devices", "3", "--partition", strategy, SCRIPT, WIDTH],
                             check=True, capture_output=True, text=True).stdout
        figures = dict(line.split() for line in out.splitlines())
        assert figures["same"] == "True", out
        for name in ("two_devices_us", "one_device_us"):
            key = (strategy, name)
            best[key] = min(best.get(key, 1e18), float(figures[name]))

print(f"two chains of 16 tanh(x @ w) layers, x f32[64, {WIDTH}] (us per call, best of {RUNS} runs)")
print(f"{'':28}{'merge':>10}{'split':>10}{'split/merge':>13}")
for name, label in (("two_devices_us", "on cpu:1 and cpu:2"), ("one_device_us", "on cpu alone")):
    m, s = best[("merge", name)], best[("split", name)]
    print(f"{label:28}{m:>10.0f}{s:>10.0f}{s / m:>12.2f}x")
