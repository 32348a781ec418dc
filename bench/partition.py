# The heterogeneous issue's partition benchmark side by side: bench/partition.nn
# (two independent chains of 16 tanh(x @ w) layers, one on cpu and one on
# cpu:1, against the same graph on one device, cpu:1, and both on cpu as
# a control), one thread per device (OMP_NUM_THREADS=1), run with
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
ENV = dict(os.environ, OMP_NUM_THREADS="1")

best = {}
for run in range(RUNS):
    for strategy in ("merge", "split"):
        out = subprocess.run([NN, "--cpu-devices", "2", "--partition", strategy, SCRIPT, WIDTH],
                             check=True, capture_output=True, text=True, env=ENV).stdout
        figures = dict(line.split() for line in out.splitlines())
        assert figures["same"] == "True", out
        for name in ("two_devices_us", "one_device_us", "on_cpu_us"):
            key = (strategy, name)
            best[key] = min(best.get(key, 1e18), float(figures[name]))

print(f"two chains of 16 tanh(x @ w) layers, x f32[64, {WIDTH}], one thread per device "
      f"(us per call, best of {RUNS} runs)")
print(f"{'':34}{'merge':>10}{'split':>10}{'split/merge':>13}")
rows = (("two_devices_us", "on cpu and cpu:1"), ("one_device_us", "both on cpu:1 (one device)"),
        ("on_cpu_us", "both on cpu (control)"))
for name, label in rows:
    m, s = best[("merge", name)], best[("split", name)]
    print(f"{label:34}{m:>10.0f}{s:>10.0f}{s / m:>12.2f}x")
one, two = best[("merge", "one_device_us")], best[("merge", "two_devices_us")]
print(f"merged on two devices against one device: {one / two:.2f}x faster")
