# PyTorch's twin of bench/global_data.nn: the same MLP step over global
# data with torch.autograd.grad and an SGD update, two threads (OpenBLAS).
import torch, time
torch.set_num_threads(2); torch.manual_seed(0)
X = torch.randn(512, 64); Y = torch.randn(512, 1)
p = {"w1": (torch.randn(64, 64) * 0.1).requires_grad_(), "b1": torch.zeros(64, requires_grad=True), "w2": (torch.randn(64, 1) * 0.1).requires_grad_()}
def loss(p):
    h = torch.tanh(X @ p["w1"] + p["b1"])
    return ((h @ p["w2"] - Y) ** 2).mean()
for i in range(20):
    l = loss(p); gr = torch.autograd.grad(l, list(p.values()))
t0 = time.time()
for i in range(500):
    l = loss(p); gr = torch.autograd.grad(l, list(p.values()))
    with torch.no_grad():
        p = {k: (v - 0.01 * g).requires_grad_() for (k, v), g in zip(p.items(), gr)}
print(f"{(time.time() - t0) * 2000:.1f} us/step, loss {l.item():.4f}")
