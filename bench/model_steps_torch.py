"""PyTorch's side of bench/model_steps.nn: the GPT-like model and the
residual CNN as PyTorch modules on the same shapes (nn.Embedding,
nn.TransformerEncoderLayer with dropout 0, batch_first and norm_first, a
causal mask; conv2d, nn.BatchNorm2d in training mode), timed the same way:
the best mean milliseconds of a training step (zeroed gradients, backward
of the loss) and of the forward without autograd. Run with the OpenBLAS
build (libopenblas0-openmp): /usr/bin/python3 bench/model_steps_torch.py."""
import sys

import torch
import torch.nn.functional as F

from torch_timing import best_seconds

torch.manual_seed(0)
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
per = int(sys.argv[2]) if len(sys.argv) > 2 else 3

V, T, B, D = 512, 64, 16, 128
tokens = torch.randint(0, V, (B, T + 1))
emb = torch.nn.Embedding(V, D)
pos = torch.nn.Parameter(torch.randn(T, D) * 0.02)
head = torch.nn.Linear(D, V, bias=False)
layers = torch.nn.ModuleList(
    [torch.nn.TransformerEncoderLayer(D, 4, 4 * D, dropout=0.0, batch_first=True, norm_first=True) for _ in range(2)])
causal = torch.triu(torch.full((T, T), float("-inf")), 1)
gpt_params = list(emb.parameters()) + [pos] + list(head.parameters()) + list(layers.parameters())


def gpt_loss():
    x = emb(tokens[:, :T]) + pos
    for layer in layers:
        x = layer(x, src_mask=causal)
    return F.cross_entropy(head(x).reshape(B * T, V), tokens[:, 1:].reshape(B * T))


images = torch.randn(32, 32, 32, 32)
labels = torch.randint(0, 10, (32,))
weights = [torch.nn.Parameter(torch.randn(32, 32, 3, 3) * 0.05) for _ in range(2)]
norms = [torch.nn.BatchNorm2d(32) for _ in range(2)]
cnn_head = torch.nn.Parameter(torch.randn(10, 32) * 0.1)
cnn_params = weights + [cnn_head] + [q for n in norms for q in n.parameters()]


def cnn_loss():
    h = images
    for w, norm in zip(weights, norms):
        h = F.relu(norm(F.conv2d(h, w, padding=1)) + h)
    return F.cross_entropy(F.linear(h.mean((2, 3)), cnn_head), labels)


for name, loss, params in [("gpt", gpt_loss, gpt_params), ("resnet", cnn_loss, cnn_params)]:
    def step(loss=loss, params=params):
        for p in params:
            p.grad = None
        loss().backward()

    print(f"torch_{name}_train_step_ms {best_seconds(step, rounds, per) * 1e3:.2f}")
    with torch.no_grad():
        print(f"torch_{name}_forward_ms {best_seconds(loss, rounds, per) * 1e3:.2f}")
