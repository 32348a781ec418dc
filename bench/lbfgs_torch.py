# PyTorch's twin of bench/lbfgs.nn: torch.optim.LBFGS (strong Wolfe) on
# the same L2-regularised logistic regression, two threads (OpenBLAS).
import time

import torch

torch.set_num_threads(2)
X = torch.sin(torch.arange(2000 * 64, dtype=torch.float32).reshape(2000, 64) * 0.37)
truth = torch.cos(torch.arange(64, dtype=torch.float32) * 0.5).reshape(64, 1)
Y = ((X @ truth + torch.sin(torch.arange(2000, dtype=torch.float32) * 1.7).reshape(2000, 1)) > 0).float()


def loss(w, b):
    z = X @ w + b
    return torch.nn.functional.binary_cross_entropy_with_logits(z, Y) + 0.001 * (w ** 2).sum()


def fit():
    w = torch.zeros(64, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        value = loss(w, b)
        value.backward()
        return value

    for _ in range(4):
        opt.step(closure)
    return w, b, opt.state[w]["func_evals"]


fit()
best = 1e9
for _ in range(5):
    t0 = time.perf_counter()
    w, b, evals = fit()
    best = min(best, time.perf_counter() - t0)
print(f"{best * 1e3:.1f} ms/run, loss {loss(w, b).item():.6f}, {evals} evaluations")
