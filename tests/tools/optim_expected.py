# The expected values of tests/scripts/optim_vs_torch.nn: the same 100 steps
# with torch.optim (benchmark/test-writing aid only; python3-torch is never a
# dependency of the build or the tests). Run: /usr/bin/python3 tests/tools/optim_expected.py
import torch
torch.set_printoptions(precision=10)
w0 = torch.tensor([[0.5, -1.25, 2.0, 0.75], [-0.3, 0.9, -2.2, 1.1], [1.7, -0.6, 0.2, -1.4]])
b0 = torch.tensor([0.1, -0.2, 0.3, -0.4])
tw = torch.tensor([[1.0, 0.0, -1.0, 0.5], [0.25, -0.5, 1.5, -1.0], [0.0, 2.0, -0.75, 0.3]])
tb = torch.tensor([0.5, 0.5, -0.5, -0.5])
def run(make):
    w = w0.clone().requires_grad_(); b = b0.clone().requires_grad_()
    opt = make([w, b])
    for t in range(100):
        with torch.no_grad():
            w.grad = 2 * (w - tw) + 0.1 * torch.cos(w * (t + 1))
            b.grad = 2 * (b - tb) + 0.1 * torch.cos(b * (t + 1))
        opt.step()
    return w.detach(), b.detach()
for name, make in [("sgd", lambda ps: torch.optim.SGD(ps, lr=0.05)),
                   ("momentum", lambda ps: torch.optim.SGD(ps, lr=0.02, momentum=0.9)),
                   ("adam", lambda ps: torch.optim.Adam(ps, lr=0.01)),
                   ("adamw", lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.05))]:
    w, b = run(make)
    print(name, [[float(f"{v:.8g}") for v in row] for row in w.tolist()], [float(f"{v:.8g}") for v in b.tolist()])
