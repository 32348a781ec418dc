// Creation kernels for devices whose memory the host cannot address (a
// GPU's), made from the CPU's: the ramps (arange, linspace), eye, the
// random ops (rand, randn, randint, randperm) and dropout's draws run the
// CPU kernel into host memory of the device's host (Device::host(), the
// context's CPU) and are copied in with the device's transfer. The linear
// algebra ops (inverse, det, cholesky, eigvalsh, svdvals, qr) and
// ctc_loss likewise copy their operand out and their result in, LAPACK's
// (or the alpha-beta recursion's) answer made on the host. So one
// generator, the state's, draws every device's numbers: after seed(s), a
// randn on cuda:0 holds the numbers a randn on the CPU would (PyTorch
// gives each device a generator of its own). The context adds them when a
// device is registered, for each op and dtype the device has no kernel of
// its own for.
#pragma once

namespace nn::rt {

class KernelTable;

// Adds to `t` the host-made kernels it lacks.
void addHostMadeKernels(KernelTable& t);

}  // namespace nn::rt
