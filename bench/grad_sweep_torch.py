"""PyTorch's side of bench/grad_sweep.nn: the gradients of the same ops on
the same shapes, each by backward() on a fresh leaf, as nn's grad takes
them, timed the same way (the best mean microseconds over the rounds), with
the same thread count (2, the CI machine's cores; set NN_SWEEP_THREADS to
change it). With an nn binary as the first argument it also runs the nn
script and prints both side by side, the largest ratio (nn / PyTorch)
first. Run with the system Python that has python3-torch:
/usr/bin/python3 bench/grad_sweep_torch.py [NN_BINARY] [rounds] [calls]."""
import torch
import torch.nn.functional as F

from sweep_table import grad, print_sweep, sweep_setup

nn_binary, rounds, per = sweep_setup(3)
x = torch.randn(256, 512); img = torch.randn(8, 16, 32, 32); k = torch.randn(16, 16, 3, 3)
idx = torch.randint(0, 256, (1000,)); lab = torch.randint(0, 512, (256,)); seq = torch.randn(64, 8, 128)
v = torch.randn(100000); ctc_lp = torch.randn(64, 8, 20); ctc_targets = torch.randint(1, 20, (8, 10))


cases = [
 ("index_select", lambda: grad(lambda t: torch.index_select(t, 0, idx).sum())(x)),
 ("gather", lambda: grad(lambda t: torch.gather(t, 1, lab.reshape(256, 1)).sum())(x)),
 ("cumsum", lambda: grad(lambda t: torch.cumsum(t, 1).sum())(x)),
 ("cumprod", lambda: grad(lambda t: torch.cumprod(t * 0.01 + 1.0, 1).sum())(x)),
 ("sort", lambda: grad(lambda t: torch.sort(t, 1)[0][:, :10].sum())(x)),
 ("topk", lambda: grad(lambda t: torch.topk(t, 10, 1)[0].sum())(x)),
 ("max_dim", lambda: grad(lambda t: t.max(1)[0].sum())(x)),
 ("repeat_interleave", lambda: grad(lambda t: torch.repeat_interleave(t, 3, 0).sum())(x)),
 ("tile", lambda: grad(lambda t: torch.tile(t, (2, 2)).sum())(x)),
 ("roll", lambda: grad(lambda t: torch.roll(t, 5, 1).sum())(x)),
 ("flip", lambda: grad(lambda t: torch.flip(t, (1,)).sum())(x)),
 ("pad_reflect", lambda: grad(lambda t: F.pad(t, (4, 4, 4, 4), mode="reflect").sum())(img)),
 ("unfold", lambda: grad(lambda t: F.unfold(t, 3, padding=1).sum())(img)),
 ("fold", lambda: grad(lambda t: F.fold(t, (32, 32), 3, padding=1).sum())(F.unfold(img, 3, padding=1))),
 ("conv_t", lambda: grad(lambda t: F.conv_transpose2d(t, k, stride=2).sum())(img)),
 ("interp_bilinear", lambda: grad(lambda t: F.interpolate(t, scale_factor=2, mode="bilinear").sum())(img)),
 ("avg_pool", lambda: grad(lambda t: F.avg_pool2d(t, 2).sum())(img)),
 ("adaptive_avg", lambda: grad(lambda t: F.adaptive_avg_pool2d(t, 5).sum())(img)),
 ("adaptive_max", lambda: grad(lambda t: F.adaptive_max_pool2d(t, 5).sum())(img)),
 ("pixel_shuffle", lambda: grad(lambda t: F.pixel_shuffle(t, 2).sum())(img)),
 ("group_norm", lambda: grad(lambda t: F.group_norm(t, 4).sum())(img)),
 ("instance_norm", lambda: grad(lambda t: F.instance_norm(t).sum())(img)),
 ("softmax_seq", lambda: grad(lambda t: (torch.softmax(t, 0) * t).sum())(seq)),
 ("norm_dim", lambda: grad(lambda t: t.norm(dim=1).sum())(x)),
 ("cdist", lambda: grad(lambda t: torch.cdist(t[:128], t[128:]).sum())(x)),
 ("cdist_p1", lambda: grad(lambda t: torch.cdist(t[:128, :64], t[128:, :64], p=1.0).sum())(x)),
 ("cosine_sim", lambda: grad(lambda t: F.cosine_similarity(t[:128], t[128:]).sum())(x)),
 ("embedding", lambda: grad(lambda t: F.embedding(idx, t).sum())(x)),
 ("embedding_bag", lambda: grad(lambda t: F.embedding_bag(idx, t, offsets=torch.arange(0, 1000, 10)).sum())(x)),
 ("kl_div", lambda: grad(lambda t: F.kl_div(torch.log_softmax(t, 1), torch.softmax(x, 1), reduction="batchmean"))(x)),
 ("triplet", lambda: grad(lambda t: F.triplet_margin_loss(t[:64], t[64:128], t[128:192]))(x)),
 ("ctc", lambda: grad(lambda t: F.ctc_loss(torch.log_softmax(t, 2), ctc_targets, torch.full((8,), 64, dtype=torch.long), torch.full((8,), 10, dtype=torch.long)))(ctc_lp)),
 ("logsumexp", lambda: grad(lambda t: torch.logsumexp(t, 1).sum())(x)),
 ("std", lambda: grad(lambda t: t.std(1).sum())(x)),
 ("prod", lambda: grad(lambda t: (t * 0.01 + 1.0).prod(1).sum())(x)),
 ("where", lambda: grad(lambda t: torch.where(t > 0, t, t * 0.1).sum())(x)),
 ("masked_select", lambda: grad(lambda t: t[t > 0].sum())(x)),
 ("setitem", lambda: grad(lambda t: t.index_put((idx,), t[:1000] * 0.0 + 1.0, accumulate=True).sum())(v)),
 ("diag_embed", lambda: grad(lambda t: torch.diag_embed(t[:64, :64]).sum())(x)),
 ("trace_grad", lambda: grad(lambda t: (t[:, :256] @ t[:, 256:].T).trace())(x)),
 ("cross", lambda: grad(lambda t: torch.cross(t[:, :3], t[:, 3:6], dim=1).sum())(x)),
 ("outer", lambda: grad(lambda t: torch.outer(t[0], t[1]).sum())(x)),
 ("kron", lambda: grad(lambda t: torch.kron(t[:16, :16], t[16:32, :16]).sum())(x)),
 ("bmm", lambda: grad(lambda t: (t @ t.transpose(1, 2)).sum())(seq)),
 ("det", lambda: grad(lambda t: torch.det(t[:64, :64] + torch.eye(64) * 10.0))(x)),
 ("inverse", lambda: grad(lambda t: torch.inverse(t[:64, :64] + torch.eye(64) * 10.0).sum())(x)),
 ("svd", lambda: grad(lambda t: torch.linalg.svd(t[:64, :64])[1].sum())(x)),
]


print_sweep(cases, nn_binary, "grad_sweep.nn", rounds, per, "gradient")
