"""PyTorch's side of bench/reductions.nn: the same reductions and strided
reads on the same 784x512 f32 (and 1M-element) tensors, one op at a time,
timed the same way: the best mean microseconds per op over the rounds.
Variances divide by n, as nn's default (NumPy's); x.T + 1.0 is made
contiguous, as nn makes its result (PyTorch would keep the transposed
layout). Run with the system Python that has python3-torch:
/usr/bin/python3."""
import sys

import torch

from torch_timing import best_seconds

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
per = int(sys.argv[2]) if len(sys.argv) > 2 else 20
torch.set_num_threads(2)
torch.manual_seed(0)
x = torch.randn(784, 512)
big = torch.randn(1000000)
ops = [
    ("sum", lambda: x.sum()), ("mean", lambda: x.mean()), ("sum_1m", lambda: big.sum()),
    ("sum_rows", lambda: x.sum(1)), ("sum_columns", lambda: x.sum(0)), ("var", lambda: x.var(unbiased=False)),
    ("var_rows", lambda: x.var(1, unbiased=False)), ("std_rows", lambda: x.std(1, unbiased=False)), ("prod_rows", lambda: x.prod(1)),
    ("logsumexp_rows", lambda: torch.logsumexp(x, 1)), ("T_contiguous", lambda: x.T.contiguous()),
    ("T_plus_1", lambda: (x.T + 1.0).contiguous()), ("T_sum_rows", lambda: x.T.sum(1)),
]
for name, f in ops:
    print(f"{name}_us {best_seconds(f, rounds, per) * 1e6:.0f}")
