"""PyTorch's side of bench/op_sweep.nn: the same ops on the same shapes,
one at a time, timed the same way (the best mean microseconds per op over
the rounds), with the same thread count (2, the CI machine's cores; set
NN_SWEEP_THREADS to change it). Gradients are taken with backward() on a
fresh leaf, as nn's grad does. With an nn binary as the first argument it
also runs the nn script and prints both side by side, the largest ratio
(nn / PyTorch) first. Run with the system Python that has python3-torch:
/usr/bin/python3 bench/op_sweep_torch.py [NN_BINARY] [rounds] [calls]."""
import torch
import torch.nn.functional as F

from sweep_table import grad, print_sweep, sweep_setup

nn_binary, rounds, per = sweep_setup(5)
x = torch.randn(784, 512); y = torch.randn(784, 512); w = torch.randn(256, 512)
img = torch.randn(16, 32, 28, 28); k = torch.randn(32, 32, 3, 3)
lab = torch.randint(0, 512, (784,)); idx = torch.randint(0, 784, (1000,))
a3 = torch.randn(32, 64, 64); b3 = torch.randn(32, 64, 64); small = torch.randn(64, 64)
theta = torch.tensor([[0.9, -0.3, 0.1], [0.2, 1.1, -0.2]]).reshape(1, 2, 3).expand(16, 2, 3)
grid = F.affine_grid(theta, (16, 32, 28, 28), align_corners=False)
spd = small @ small.T + torch.eye(64) * 64.0
ctc_lp = torch.randn(50, 16, 30).log_softmax(2); ctc_targets = torch.randint(1, 30, (16, 10))
ctc_in = torch.full((16,), 50, dtype=torch.long); ctc_tl = torch.full((16,), 10, dtype=torch.long)


ops = [
 ("add", lambda: x + y), ("mul_s", lambda: x * 2.0), ("pow2", lambda: x ** 2), ("powf", lambda: x.abs() ** 1.5),
 ("where", lambda: torch.where(x > 0, x, y)), ("clip", lambda: torch.clip(x, -0.5, 0.5)), ("maximum", lambda: torch.maximum(x, y)),
 ("gelu", lambda: F.gelu(x)), ("erf", lambda: torch.erf(x)), ("tanh", lambda: torch.tanh(x)), ("sigmoid", lambda: torch.sigmoid(x)), ("softplus", lambda: F.softplus(x)),
 ("sum0", lambda: x.sum(0)), ("sum1", lambda: x.sum(1)), ("mean0", lambda: x.mean(0)), ("max0", lambda: x.max(0)), ("max1", lambda: x.max(1)),
 ("argmax1", lambda: x.argmax(1)), ("norm", lambda: x.norm()), ("norm1", lambda: x.norm(dim=1)), ("var0", lambda: x.var(0)), ("std1", lambda: x.std(1)),
 ("lse0", lambda: torch.logsumexp(x, 0)), ("lse1", lambda: torch.logsumexp(x, 1)),
 ("softmax0", lambda: torch.softmax(x, 0)), ("softmax1", lambda: torch.softmax(x, 1)), ("ce", lambda: F.cross_entropy(x, lab)),
 ("layer_norm", lambda: F.layer_norm(x, (512,))), ("matmul", lambda: x @ w.T), ("linear", lambda: F.linear(x, w)),
 ("cumsum1", lambda: torch.cumsum(x, 1)), ("cumsum0", lambda: torch.cumsum(x, 0)), ("sort1", lambda: torch.sort(x, 1)), ("argsort1", lambda: torch.argsort(x, 1)), ("topk", lambda: torch.topk(x, 5, 1)),
 ("gather", lambda: x[idx % 784]), ("slice_step", lambda: x[::2, ::2].contiguous()), ("T_contig", lambda: x.T.contiguous()),
 ("cat0", lambda: torch.cat([x, y], 0)), ("cat1", lambda: torch.cat([x, y], 1)), ("stack", lambda: torch.stack([x, y])),
 ("conv2d", lambda: F.conv2d(img, k, padding=1)), ("maxpool", lambda: F.max_pool2d(img, 2)), ("avgpool", lambda: F.avg_pool2d(img, 2)),
 ("maxpool_dil", lambda: F.max_pool2d(img, 3, 1, 1, dilation=2)), ("avgpool_ex", lambda: F.avg_pool2d(img, 3, 2, 1, ceil_mode=True, count_include_pad=False)),
 ("lgamma", lambda: torch.lgamma(x)), ("digamma", lambda: torch.digamma(x)), ("erfinv", lambda: torch.erfinv(x * 0.3)),
 ("i0", lambda: torch.special.i0(x)), ("i1e", lambda: torch.special.i1e(x)), ("erfcx", lambda: torch.special.erfcx(x)), ("ndtri", lambda: torch.special.ndtri(x * 0.1 + 0.5)),
 ("log_ndtr", lambda: torch.special.log_ndtr(x)), ("bessel_j0", lambda: torch.special.bessel_j0(x)), ("airy_ai", lambda: torch.special.airy_ai(x)), ("gammainc", lambda: torch.special.gammainc(x.abs() * 4, y.abs() * 4)),
 ("bn", lambda: F.batch_norm(img, torch.zeros(32), torch.ones(32), torch.ones(32), torch.zeros(32))),
 ("flip1", lambda: torch.flip(x, (1,))), ("roll1", lambda: torch.roll(x, 3, 1)), ("tril", lambda: torch.tril(x)), ("masked_fill", lambda: x.masked_fill(x > 0, 0.0)),
 ("isnan_any", lambda: torch.isnan(x).any()), ("astype_f64", lambda: x.double()), ("randn", lambda: torch.randn(784, 512)),
 ("one_hot", lambda: F.one_hot(lab, 512)), ("mse", lambda: F.mse_loss(x, y)), ("eq", lambda: x == y), ("pad", lambda: F.pad(x, (1, 1, 1, 1))),
 ("repeat", lambda: x.repeat(2, 1)), ("expand_add", lambda: x + x[0]), ("col_bcast", lambda: x + x[:, 0:1]), ("prod1", lambda: x.prod(1)),
 ("min0", lambda: x.min(0)), ("amax01", lambda: x.max()), ("dropout", lambda: F.dropout(x, 0.5, True)),
]
grads = [
 ("g_softmax0", grad(lambda t: (torch.softmax(t, 0) * y).sum())), ("g_softmax1", grad(lambda t: (torch.softmax(t, 1) * y).sum())),
 ("g_lsm1", grad(lambda t: (torch.log_softmax(t, 1) * y).sum())), ("g_ce", grad(lambda t: F.cross_entropy(t, lab))),
 ("g_layer_norm", grad(lambda t: (F.layer_norm(t, (512,)) * y).sum())), ("g_matmul", grad(lambda t: (t @ w.T).sum())),
 ("g_gelu", grad(lambda t: F.gelu(t).sum())), ("g_tanh", grad(lambda t: torch.tanh(t).sum())), ("g_max1", grad(lambda t: t.max(1).values.sum())),
 ("g_sum0", grad(lambda t: (t.sum(0) * y[0]).sum())), ("g_norm", grad(lambda t: t.norm())), ("g_var1", grad(lambda t: t.var(1).sum())),
 ("g_conv", grad(lambda t: F.conv2d(t, k, padding=1).sum())), ("g_maxpool", grad(lambda t: F.max_pool2d(t, 2).sum())),
 ("g_index", grad(lambda t: t[lab].sum())), ("g_T", grad(lambda t: (t.T * 2.0).sum())),
]
more = [("bmm", lambda: a3 @ b3), ("small_mm", lambda: small @ small), ("conv_s2", lambda: F.conv2d(img, k, stride=2, padding=1)),
 ("interp", lambda: F.interpolate(img, scale_factor=2)), ("lse_all", lambda: torch.logsumexp(x, (0, 1))), ("cumprod1", lambda: torch.cumprod(x, 1)),
 ("argsort0", lambda: torch.argsort(x, 0)), ("sort0", lambda: torch.sort(x, 0)), ("topk0", lambda: torch.topk(x, 5, 0)), ("std0", lambda: x.std(0)),
 ("mean01", lambda: img.mean((0, 2, 3))), ("var023", lambda: img.var((0, 2, 3))), ("max_hw", lambda: img.max(3)), ("amax2", lambda: img.sum((2, 3))),
 ("permute_c", lambda: img.permute(0, 2, 3, 1).contiguous()), ("flip0", lambda: torch.flip(x, (0,))), ("roll0", lambda: torch.roll(x, 3, 0)),
 ("chunk_cat", lambda: torch.cat(torch.chunk(x, 4, 1), 0)), ("split", lambda: torch.split(x, 128, 1)), ("any", lambda: (x > 3).any()), ("all", lambda: (x > -10).all()),
 ("where_s", lambda: torch.where(x > 0, x, 0.0)), ("sign", lambda: torch.sign(x)), ("floor", lambda: torch.floor(x)), ("round", lambda: torch.round(x)),
 ("mod", lambda: x % 1.5), ("floordiv", lambda: x // 1.5), ("fmod", lambda: torch.fmod(x, 1.5)),
 ("atan2", lambda: torch.atan2(x, y)), ("hypot", lambda: torch.hypot(x, y)), ("copysign", lambda: torch.copysign(x, y)),
 ("nextafter", lambda: torch.nextafter(x, y)), ("gcd", lambda: torch.gcd(lab, idx[:784])), ("frexp", lambda: torch.frexp(x)),
 ("unfold", lambda: F.unfold(img, 3, padding=1)), ("grid_sample", lambda: F.grid_sample(img, grid, align_corners=False)),
 ("grid_bicubic", lambda: F.grid_sample(img, grid, mode="bicubic", align_corners=False)), ("interp_bicubic", lambda: F.interpolate(img, scale_factor=2, mode="bicubic")),
 ("logcumsumexp", lambda: torch.logcumsumexp(x, 1)), ("ctc_loss", lambda: F.ctc_loss(ctc_lp, ctc_targets, ctc_in, ctc_tl)),
 ("g_ctc_loss", lambda: grad(lambda t: F.ctc_loss(t, ctc_targets, ctc_in, ctc_tl))(ctc_lp)),
 ("g_grid_sample", lambda: grad(lambda t: F.grid_sample(t, grid, align_corners=False).sum())(img)),
 ("inverse", lambda: torch.inverse(small)), ("det", lambda: torch.det(small)), ("cholesky", lambda: torch.linalg.cholesky(spd)), ("eigh", lambda: torch.linalg.eigh(spd)),
 ("svd", lambda: torch.svd(small)), ("qr", lambda: torch.linalg.qr(x[:128, :64])), ("i64add", lambda: lab + lab), ("bool_and", lambda: (x > 0) & (y > 0)),
 ("argsort_lab", lambda: torch.argsort(lab, stable=True)), ("unique_lab", lambda: torch.unique(lab)), ("mode_rows", lambda: torch.mode(lab.reshape(28, 28), 1)),
 ("lu", lambda: torch.linalg.lu_factor(small)), ("lu_solve", lambda: torch.linalg.lu_solve(*torch.linalg.lu_factor(spd), small)), ("tri_solve", lambda: torch.triangular_solve(small, spd)),
 ("ldl", lambda: torch.linalg.ldl_factor(spd - 96.0 * torch.eye(64))), ("ldl_solve", lambda: torch.linalg.ldl_solve(*torch.linalg.ldl_factor(spd - 96.0 * torch.eye(64)), small)),
 ("chol_solve", lambda: torch.cholesky_solve(small, torch.linalg.cholesky(spd))), ("g_lu", lambda: grad(lambda t: torch.linalg.lu_factor(t)[0].sum())(small)),
 ("solve", lambda: torch.linalg.solve(spd, small)), ("g_solve", lambda: grad(lambda t: torch.linalg.solve(t, small).sum())(spd)),
 ("isclose", lambda: torch.isclose(x, y)), ("nonzero", lambda: torch.nonzero(x > 0)),
 ("outer", lambda: torch.outer(x[0], x[1])), ("diag", lambda: torch.diag(small)), ("tril_s", lambda: torch.tril(small)), ("eye", lambda: torch.eye(512)),
 ("linspace", lambda: torch.linspace(0, 1, 400000)), ("arange", lambda: torch.arange(400000)), ("full", lambda: torch.full((784, 512), 2.0)), ("zeros_like", lambda: torch.zeros_like(x)),
 ("scatter_add", lambda: torch.zeros(784, 512).scatter_add(0, lab.reshape(784, 1).expand(784, 512), x)), ("gather_ax", lambda: torch.gather(x, 1, lab.reshape(784, 1))),
 ("scatter", lambda: torch.zeros(784, 512).scatter(1, lab.reshape(784, 1) % 512, x)),
 ("scatter_amax", lambda: torch.zeros(64, 512).scatter_reduce(0, (lab % 64).reshape(784, 1).expand(784, 512), x, "amax")),
 ("scatter_mean", lambda: torch.zeros(64, 512).scatter_reduce(0, (lab % 64).reshape(784, 1).expand(784, 512), x, "mean", include_self=False)),
 ("index_add", lambda: torch.zeros(64, 512).index_add(0, lab % 64, x)), ("take", lambda: x.take(idx * 311)),
 ("einsum", lambda: torch.einsum("bij,jk->bik", a3, small)),
 ("g_einsum_w", lambda: grad(lambda t: torch.einsum("bij,jk->bik", x.reshape(49, 16, 512), t).sum())(w.T)),
 ("g_linear_w", lambda: grad(lambda t: F.linear(x.reshape(49, 16, 512), t).sum())(w)),
 ("masked_sel", lambda: x[x > 0]), ("setitem_mask", lambda: x.masked_fill(x < 0, 0.0)),
]
for name, g in grads:
    arg = img if name in ("g_conv", "g_maxpool") else x
    ops.append((name, lambda g=g, arg=arg: g(arg)))

print_sweep(ops + more, nn_binary, "op_sweep.nn", rounds, per, "op")
