"""PyTorch's nn.TransformerEncoderLayer on the shapes of bench/transformer.nn,
timed the same way: the best mean microseconds of the forward (training
mode, dropout 0: the path nn's composition follows) and of a training step
(backward of a mean-squared loss). Run with the OpenBLAS build
(libopenblas0-openmp)."""
import sys
import time

import torch

torch.manual_seed(0)
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
per = int(sys.argv[2]) if len(sys.argv) > 2 else 5
x = torch.randn(128, 16, 256)
target = torch.randn(128, 16, 256)
m = torch.nn.TransformerEncoderLayer(256, 8, 1024, dropout=0.0)


def best_us(f):
    f()
    best = 1e9
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(per):
            f()
        best = min(best, (time.perf_counter() - t0) / per)
    return best * 1e6


def train_step():
    m.zero_grad()
    ((m(x) - target) ** 2).mean().backward()


with torch.no_grad():
    print(f"torch_encoder_layer_forward_us {best_us(lambda: m(x)):.0f}")
print(f"torch_encoder_layer_train_step_us {best_us(train_step):.0f}")
