# pytorch_ops.nn computed with PyTorch (see compare_with_peer.sh).
import torch
import torch.nn.functional as F


def show(t):
    return [round(v, 4) for v in t.flatten().tolist()]


def sin(t):
    return torch.sin(t)


def ar(n):
    return torch.arange(n, dtype=torch.float32)


inf = float("inf")
x = sin(ar(12).view(3, 4))
print(show(torch.norm(x)), show(torch.norm(x, 1.0, dim=1)), show(torch.norm(x, 3.0, dim=0, keepdim=True)))
print(show(torch.norm(x, inf, 1)), show(torch.norm(x, -inf, 1)), show(torch.norm(x, 0.0)))
print(show(torch.tensor([[1, 2], [3, 4]]).repeat(2, 3)), tuple(torch.tensor([1, 2]).repeat(3, 1, 2).shape))
print(show(torch.diag(torch.tensor([1.0, 2.0, 3.0]), -1)), show(torch.diag(x)), show(torch.diag(x, 2)),
      show(torch.diag(x, -2)))
print(torch.nonzero(torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])).tolist())
w = torch.cos(ar(15).view(5, 3))
print(show(F.embedding(torch.tensor([[4, 0], [2, 2]]), w)))
signal = sin(ar(18).view(1, 2, 9))
kernel = torch.cos(ar(12).view(2, 2, 3))
print(show(F.conv1d(signal, kernel, torch.tensor([0.5, -0.5]), stride=2, padding=1)))
print(show(F.conv1d(signal, kernel[:, :1], dilation=2, groups=2)))
img = sin(ar(12).view(1, 1, 3, 4))
print(show(F.interpolate(img, size=(5, 7), mode="bilinear")))
print(show(F.interpolate(img, size=(5, 7), mode="bilinear", align_corners=True)))
print(show(F.interpolate(img, scale_factor=1.5, mode="nearest")))
print(show(F.interpolate(img.view(1, 3, 4), size=7, mode="linear")))
h = sin(ar(24).view(2, 3, 4))
print(show(F.layer_norm(h, (3, 4), torch.cos(ar(12).view(3, 4)), sin(ar(12).view(3, 4)))))
print(show(F.layer_norm(h, [4])))
print(show(torch.einsum("bij,bjk->bik", h, h.transpose(1, 2))), show(torch.einsum("ij->j", x)))
print(show(torch.einsum("...ij,...kj->...ik", h, h)), show(torch.einsum("ii->i", h[0, :, :3])), show(torch.einsum("b...i->...", h)))
