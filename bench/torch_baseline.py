# PyTorch eager baselines for bench/bench_tensor.cpp (benchmarking only;
# python3-torch is never a dependency of the build or the tests).
import time
import torch

torch.set_num_threads(2)


def blas_loaded():
    # Which BLAS the process mapped (Debian's alternatives pick OpenBLAS
    # once libopenblas0-openmp is installed; the reference BLAS is 30x slower).
    A = torch.ones(64, 64)
    A @ A
    with open("/proc/self/maps") as maps:
        libs = {line.split()[-1].rsplit("/", 1)[-1] for line in maps if "blas" in line.lower()}
    return ", ".join(sorted(libs)) or "none"


print("BLAS:", blas_loaded())

def per_call(fn, n):
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n

x, y = torch.tensor([1.0]), torch.tensor([2.0])
def loop_add(n):
    t0 = time.perf_counter()
    for i in range(n):
        z = x + y
    t1 = time.perf_counter()
    for i in range(n):
        z = x
    t2 = time.perf_counter()
    return ((t1 - t0) - (t2 - t1)) / n
print(f"torch eager 1-element add: {min(loop_add(100000) for _ in range(5)) * 1e9:.0f} ns per op (script loop)")

n = 1 << 20
a, b, c, d = (torch.full((n,), v) for v in (0.5, -1.5, 2.0, 3.0))
chain = min(per_call(lambda: torch.relu(a * b + c) * d - a, 50) for _ in range(3))
print(f"torch eager relu(a*b+c)*d-a on 1M f32: {chain * 1e3:.3f} ms")

A = torch.full((1024, 1024), 0.5)
B = torch.full((1024, 1024), 0.25)
mm = min(per_call(lambda: A @ B, 20) for _ in range(3))
print(f"torch matmul 1024^3 f32: {mm * 1e3:.2f} ms = {2 * 1024**3 / mm / 1e9:.1f} GFLOP/s")

# One step of the 784-256-10 MLP with hand-written backprop on a batch of
# 64, as bench/bench_graph.cpp's MlpStep (forward, softmax/one_hot
# gradients, SGD update).
torch.manual_seed(0)
x = torch.randn(64, 784)
y = torch.randint(0, 10, (64,))
w1, b1 = torch.randn(784, 256) * 0.05, torch.zeros(256)
w2, b2 = torch.randn(256, 10) * 0.05, torch.zeros(10)


def mlp_step(x, y, w1, b1, w2, b2, lr):
    h = x @ w1 + b1
    a = torch.relu(h)
    p = torch.softmax(a @ w2 + b2, dim=1)
    dlogits = (p - torch.nn.functional.one_hot(y, 10)) / x.shape[0]
    dw2 = a.T @ dlogits
    db2 = dlogits.sum(dim=0)
    dh = (dlogits @ w2.T) * (h > 0.0)
    dw1 = x.T @ dh
    db1 = dh.sum(dim=0)
    return w1 - lr * dw1, b1 - lr * db1, w2 - lr * dw2, b2 - lr * db2


def steps(n=20):
    global w1, b1, w2, b2
    for _ in range(n):
        w1, b1, w2, b2 = mlp_step(x, y, w1, b1, w2, b2, 0.1)


step = min(per_call(steps, 5) for _ in range(5)) / 20
print(f"torch eager MLP step (784-256-10, batch 64, manual backprop): {step * 1e6:.0f} us")


# One SGD step of a 784-512-256-10 MLP with autograd on a batch of 128, as
# bench/bench_graph.cpp's TrainStepMlp.
x = torch.randn(128, 784)
y = torch.randint(0, 10, (128,))
params = [torch.randn(784, 512) * 0.05, torch.zeros(512), torch.randn(512, 256) * 0.06, torch.zeros(256),
          torch.randn(256, 10) * 0.09, torch.zeros(10)]
for p in params:
    p.requires_grad_()
opt = torch.optim.SGD(params, lr=0.01)


def train_steps(n=10):
    for _ in range(n):
        h = torch.relu(x @ params[0] + params[1])
        h = torch.relu(h @ params[2] + params[3])
        loss = torch.nn.functional.cross_entropy(h @ params[4] + params[5], y)
        opt.zero_grad()
        loss.backward()
        opt.step()


step = min(per_call(train_steps, 5) for _ in range(5)) / 10
print(f"torch eager MLP 784-512-256-10 SGD step (batch 128, autograd): {step * 1e6:.0f} us")


# One SGD step of the CNN of bench/bench_graph.cpp's TrainStepCnn on a
# batch of 32x1x28x28.
F = torch.nn.functional
xc = torch.randn(32, 1, 28, 28)
yc = torch.randint(0, 10, (32,))
cnn = [torch.randn(16, 1, 3, 3) * 0.3, torch.zeros(16), torch.randn(32, 16, 3, 3) * 0.08, torch.zeros(32),
       torch.randn(1568, 10) * 0.03, torch.zeros(10)]
for p in cnn:
    p.requires_grad_()
cnn_opt = torch.optim.SGD(cnn, lr=0.01)


def cnn_steps(n=5):
    for _ in range(n):
        h = F.max_pool2d(torch.relu(F.conv2d(xc, cnn[0], cnn[1], padding=1)), 2)
        h = F.max_pool2d(torch.relu(F.conv2d(h, cnn[2], cnn[3], padding=1)), 2)
        loss = F.cross_entropy(h.reshape(32, 1568) @ cnn[4] + cnn[5], yc)
        cnn_opt.zero_grad()
        loss.backward()
        cnn_opt.step()


step = min(per_call(cnn_steps, 3) for _ in range(5)) / 5
print(f"torch eager CNN SGD step (32x1x28x28, two conv3x3 layers, autograd): {step * 1e6:.0f} us")
