"""PyTorch's nn.LSTM, nn.GRU and nn.TransformerEncoderLayer on the shapes of
bench/sequence_models.nn, timed the same way: the best mean microseconds of
the forward (training mode, dropout 0: the path nn's composition follows)
and of a training step (backward of a mean-squared loss). Run with the
OpenBLAS build (libopenblas0-openmp)."""
import sys

import torch

from torch_timing import best_seconds

torch.manual_seed(0)
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
per = int(sys.argv[2]) if len(sys.argv) > 2 else 5


def best_us(f):
    return best_seconds(f, rounds, per) * 1e6


def report(name, m, forward, target):
    def train_step():
        m.zero_grad()
        ((forward() - target) ** 2).mean().backward()

    with torch.no_grad():
        print(f"torch_{name}_forward_us {best_us(forward):.0f}")
    print(f"torch_{name}_train_step_us {best_us(train_step):.0f}")


x = torch.randn(50, 32, 64)
target = torch.randn(50, 32, 128)
for name, module in [("lstm", torch.nn.LSTM), ("gru", torch.nn.GRU)]:
    m = module(64, 128)
    report(name, m, lambda m=m: m(x)[0], target)
tokens = torch.randn(128, 16, 256)
encoder = torch.nn.TransformerEncoderLayer(256, 8, 1024, dropout=0.0)
report("encoder_layer", encoder, lambda: encoder(tokens), torch.randn(128, 16, 256))
