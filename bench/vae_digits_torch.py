# PyTorch's twin of examples/vae_digits.nn, for the training time it
# prints: the same variational autoencoder (64-128-16 encoder, 8-128-64
# decoder, independent normal codes and Bernoulli pixels, 30 epochs of
# 15 batches of 100 with Adam at 0.003), written with torch.distributions.
# Run from the repository root: /usr/bin/python3 bench/vae_digits_torch.py
# (PyTorch with OpenBLAS; two threads, as nn's benchmarks run).
import torch, time, numpy as np
import torch.distributions as D
torch.set_num_threads(2)
torch.manual_seed(0)
d = np.load("examples/data/digits.npz")
x = torch.tensor((d["images"].reshape(-1, 64) > 8.0).astype(np.float32))
perm = torch.randperm(1797); x = x[perm]; xtr, xte = x[:1500], x[1500:]
L = 8
enc = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 2 * L))
dec = torch.nn.Sequential(torch.nn.Linear(L, 128), torch.nn.ReLU(), torch.nn.Linear(128, 64))
prior = D.Independent(D.Normal(torch.zeros(L), torch.ones(L)), 1)
def elbo(xb):
    h = enc(xb); mu, lv = h[:, :L], h[:, L:]
    q = D.Independent(D.Normal(mu, torch.exp(0.5 * lv)), 1)
    z = q.rsample()
    px = D.Independent(D.Bernoulli(logits=dec(z)), 1)
    return (px.log_prob(xb) - D.kl_divergence(q, prior)).mean()
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.003)
t0 = time.time()
for epoch in range(30):
    g = torch.Generator().manual_seed(epoch)
    order = torch.randperm(1500, generator=g)
    for i in range(0, 1500, 100):
        xb = xtr[order[i:i + 100]]
        loss = -elbo(xb)
        opt.zero_grad(); loss.backward(); opt.step()
    if epoch % 10 == 9:
        with torch.no_grad(): print(epoch + 1, elbo(xte).item())
print(f"trained in {time.time() - t0:.2f} s")
