"""The peer of bench/bench_embed.cpp: a host calling a function that does one
tensor op, when the host is Python and the op PyTorch's. Times `inc(x) = x +
1.0` on a 1-element tensor as a Python function (eager) and as a TorchScript
function, and `add(a, b) = a + b` on ints, per call.
Run: /usr/bin/python3 bench/embed_vs_python.py  (PyTorch with OpenBLAS)."""
import timeit

import torch

torch.set_num_threads(1)


def inc(x):
    return x + 1.0


def add(a, b):
    return a + b


scripted = torch.jit.script(inc)
x = torch.ones(1)
for _ in range(100):
    scripted(x)


def per_call_us(stmt, number=200000):
    best = min(timeit.repeat(stmt, number=number, repeat=5, globals=globals()))
    return best / number * 1e6


print(f"python eager inc(x), 1-element tensor: {per_call_us('inc(x)'):.3f} us per call")
print(f"torchscript inc(x), 1-element tensor:  {per_call_us('scripted(x)'):.3f} us per call")
print(f"python add(20, 22):                    {per_call_us('add(20, 22)'):.3f} us per call")
