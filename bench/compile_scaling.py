#!/usr/bin/env python3
# Compile time and peak memory of nn against program size, for the shapes
# that used to be quadratic (issue 13, finding 7): an if/elif chain, a long
# list literal, a call with many arguments; and a script of one lambda per
# line (each make_closure searched every function by name). Linear scaling
# shows as a steady time per element down each table.
# Usage: python3 bench/compile_scaling.py [build/nn]
import os
import subprocess
import sys
import tempfile
import time

NN = sys.argv[1] if len(sys.argv) > 1 else "build/nn"


def elif_chain(n):
    lines = ["x = 5", "if x == 0:", "    y = 0"]
    for i in range(1, n):
        lines += [f"elif x == {i}:", f"    y = {i}"]
    return "\n".join(lines + ["print(y)"]) + "\n"


def list_literal(n):
    return "x = [" + ", ".join(["1"] * n) + "]\nprint(len(x))\n"


def many_arguments(n):
    return "print(max(" + ", ".join(str(i % 97) for i in range(n)) + "))\n"


def lambdas(n):
    lines = ["count = 0", "def probe(f):", "    global count", "    count += len(f())"]
    lines += [f"probe(lambda: str({i}))" for i in range(n)]
    return "\n".join(lines + ["print(count)"]) + "\n"


def measure(program, mode):
    with tempfile.NamedTemporaryFile("w", suffix=".nn", delete=False) as f:
        f.write(program)
        path = f.name
    start = time.perf_counter()
    child = subprocess.Popen([NN, "--mode", mode, path], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak memory
    seconds = time.perf_counter() - start
    os.unlink(path)
    if status != 0:
        sys.exit(f"nn failed on a {len(program)}-byte program")
    return seconds, usage.ru_maxrss / 1024


for name, make, sizes in [("if/elif chain", elif_chain, [1000, 2000, 4000, 8000]),
                          ("list literal", list_literal, [25000, 50000, 100000, 200000]),
                          ("call arguments", many_arguments, [12500, 25000, 50000, 100000]),
                          ("lambdas", lambdas, [4000, 8000, 16000, 32000])]:
    print(f"{name}:")
    print(f"  {'size':>8} {'mode':>6} {'seconds':>8} {'us/elem':>8} {'peak MB':>8}")
    for n in sizes:
        for mode in ["eager", "graph"]:
            s, mb = measure(make(n), mode)
            print(f"  {n:>8} {mode:>6} {s:>8.2f} {1e6 * s / n:>8.1f} {mb:>8.0f}")
