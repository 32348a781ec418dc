# pytorch_habits.nn written in Python with PyTorch: the reference its output
# is checked against (tests/CMakeLists.txt runs both when torch is
# installed and compares the lines).
import sys

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=7)


def data(n, d):
    x = (torch.arange(n * d, dtype=torch.float32).view(n, d) % 7 - 3.0) / 3.0
    y = (torch.arange(n) * 5 + 1) % 3
    return x, y


def init(*sizes, scale=0.5):
    layers = {}
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = torch.sin(torch.arange(m * n, dtype=torch.float32).view(n, m) + i) * scale
        layers[f"layer{i}"] = {"w": w, "b": torch.zeros(n)}
    return layers


def forward(params, x, *, act=torch.relu):
    *hidden, last = list(params.values())
    for layer in hidden:
        x = act(F.linear(x, layer["w"], layer["b"]))
    return F.linear(x, last["w"], last["b"])


def loss_fn(params, x, y, **options):
    return F.cross_entropy(forward(params, x, **options), y)


def value_and_grad(f):
    def run(params, *args):
        leaves = {k: {n: p.detach().requires_grad_() for n, p in layer.items()} for k, layer in params.items()}
        loss = f(leaves, *args)
        loss.backward()
        return loss.detach(), {k: {n: p.grad for n, p in layer.items()} for k, layer in leaves.items()}
    return run


def shape(t):
    return tuple(t.shape)


def array(t):
    # NumPy's str of a 1-d float vector, as nn prints tensors.
    import numpy as np
    return str(t.numpy())


x, y = data(12, 4)
params = init(4, 6, 3)
print({name: tuple(layer["w"].size()) for name, layer in params.items()})
print(shape(x), x.numel(), shape(x.sum(dim=1)), shape(x.permute(1, 0)), shape(torch.flatten(x.view(3, 4, 4), 1)))
for step in range(4):
    loss, grads = value_and_grad(loss_fn)(params, x, y)
    params = {k: {n: p - 0.5 * grads[k][n] for n, p in layer.items()} for k, layer in params.items()}
    print(f"step {step}: loss {loss:.4f}")
logits = forward(params, x)
print("accuracy {:.2f}".format((logits.argmax(dim=1) == y).float().mean()))
print("%d samples, %s classes" % (x.shape[0], logits.shape[1]))
values, indices = logits[0].topk(2)
print(indices.tolist(), f"{values.sum():.3f}")
print(shape(torch.cat([x[:1], x[-1:]], dim=0)), shape(x.transpose(0, 1)), shape(x.view(3, 4, 4).transpose(0, 1)))
print(array(x[:3].cumsum(dim=1)[:, -1]), f"{torch.norm(x):.4f}", f"{torch.einsum('ij,ij->', x, x):.4f}")
print(f"{x.clamp(-0.5, 0.5).max().item()}", "f32" if x.clone().float().dtype == torch.float32 else "?",
      "i64" if x.long().dtype == torch.int64 else "?")
first, *rest = x.tolist()[:3]
print(len(rest), [round(v, 3) for v in first])
try:
    x @ x
except (ValueError, RuntimeError):
    print("shape error caught")
try:
    x[100]
except IndexError as e:
    print("index error caught:", type(e).__name__)
summary = {"loss": loss.item(), "steps": 4}
del summary["steps"]
print(sorted(summary.keys()), f"{summary['loss']:.4f}")
sys.stdout.flush()
