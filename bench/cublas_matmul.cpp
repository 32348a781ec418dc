// cuBLAS alone, the baseline for nn's matrix products on a GPU
// (bench/cuda_steps.nn): the same chain of f32 N x N products (each reads
// the last, operands scaled by 1/sqrt(N)), timed with CUDA events around
// the chain, in the same default math mode nn's plugin uses (plain f32,
// no TF32). Prints `cublas_matmul_N_tflops value` lines, the best of the
// rounds; exits 77 with a message where there is no GPU.
// Usage: cublas_matmul [sizes, comma-separated] [rounds]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

void check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "%s failed (cuBLAS status %d)\n", what, static_cast<int>(s));
  std::exit(1);
}

std::vector<int> parseSizes(const char* text) {
  std::vector<int> sizes;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) sizes.push_back(std::atoi(item.c_str()));
  return sizes;
}

// The best time per product over rounds of `reps` chained products.
double bestSeconds(cublasHandle_t blas, int n, float* w, float* x, float* y, int reps, int rounds) {
  const float one = 1.0f, zero = 0.0f;
  auto chain = [&](int count) {
    float* in = x;
    float* out = y;
    for (int i = 0; i < count; ++i) {
      check(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, w, n, in, n, &zero, out, n), "cublasSgemm");
      std::swap(in, out);
    }
  };
  chain(2);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    chain(reps);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    best = std::min(best, ms / 1e3 / reps);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = parseSizes(argc > 1 ? argv[1] : "1024,2048,4096,8192");
  int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("skipped: no GPU here\n");
    return 77;
  }
  cublasHandle_t blas;
  check(cublasCreate(&blas), "cublasCreate");
  std::mt19937 gen(0);
  for (int n : sizes) {
    if (n <= 0) continue;
    size_t elems = static_cast<size_t>(n) * n;
    std::normal_distribution<float> normal(0.0f, 1.0f / std::sqrt(static_cast<float>(n)));
    std::vector<float> host(elems);
    for (float& v : host) v = normal(gen);
    float *w, *x, *y;
    check(cudaMalloc(&w, elems * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&x, elems * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&y, elems * sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(w, host.data(), elems * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(x, host.data(), elems * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    int reps = std::max(2, std::min(50, static_cast<int>(2e12 / (2.0 * n * n * n))));
    double seconds = bestSeconds(blas, n, w, x, y, reps, rounds);
    std::printf("cublas_matmul_%d_tflops %.2f\n", n, 2.0 * n * n * n / seconds / 1e12);
    cudaFree(w);
    cudaFree(x);
    cudaFree(y);
  }
  cublasDestroy(blas);
  return 0;
}
