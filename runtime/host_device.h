// NN_HOST_DEVICE marks a function that both the host's kernels and the CUDA
// plugin's compile (__host__ __device__ under nvcc, nothing elsewhere), so
// that the two devices compute an element with one definition.
#pragma once

#ifdef __CUDACC__
#define NN_HOST_DEVICE __host__ __device__
#else
#define NN_HOST_DEVICE
#endif
