#!/bin/sh
# The heterogeneous issue's checks on a GPU machine, as one short script
# for the device tool (that machine has CUDA, PyTorch and Python, but none
# of nn's Debian packages): unpacks .gpu/bundle.tar.xz (made here by
# tools/gpu_bundle.sh), finds the machine's cuBLAS and cuDNN, then runs
# the gpu-labelled scripts (tests/gpu/*.nn) in eager and graph mode, and
# the benchmarks side by side: nn's matrix products and training steps on
# cuda:0 (bench/cuda_steps.nn, both modes), cuBLAS alone
# (bench/cublas_matmul) and PyTorch (bench/torch_cuda_steps.py), and last
# the scripts again under compute-sanitizer's memcheck. Each command has a
# time limit; everything goes to $OUT/gpu_check.log as well.
# Usage (from the repository root): sh tools/gpu_check.sh [sizes]
cd "$(dirname "$0")/.." || exit 1
sizes=${1:-1024,2048,4096,8192}
log=${OUT:-/tmp}/gpu_check.log
dir=${TMPDIR:-/tmp}/nn-gpu
rm -rf "$dir" && mkdir -p "$dir" || exit 1
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' .gpu/bundle.tar.xz "$dir" || exit 1

# The folders holding this machine's cuBLAS, cuDNN and CUDA runtime, from
# the toolkit or from PyTorch's wheels.
cuda_dirs=$(python3 - <<'EOF'
import glob, os, site
roots = ["/usr/local/cuda/lib64", "/usr/local/cuda/lib", "/usr/lib/x86_64-linux-gnu"]
roots += [os.path.join(p, "nvidia") for p in site.getsitepackages()]
found = []
for name in ("libcublas.so.13", "libcublasLt.so.13", "libcudnn.so.9", "libcudart.so.13"):
    for root in roots:
        hits = glob.glob(os.path.join(root, "**", name), recursive=True)
        if hits:
            d = os.path.dirname(hits[0])
            if d not in found:
                found.append(d)
            break
print(":".join(found))
EOF
)
export LD_LIBRARY_PATH="$dir/lib:$cuda_dirs"
# The bundle's GCC runtime and cudart only where this machine's are
# missing or older than the binaries need.
if ldd "$dir/bin/nn" "$dir/bin/libnn_cuda.so" "$dir/bin/cublas_matmul" 2>&1 | grep -q "not found"; then
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dir/fallback"
fi

run() {
  echo "\$ $*"
  timeout 120 "$@"
  echo "(exit status $?)"
}

{
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  ldd "$dir/bin/nn" "$dir/bin/libnn_cuda.so" 2>&1 | grep "not found"
  echo 'print(devices())' > "$dir/devices.nn"
  run "$dir/bin/nn" --stats "$dir/devices.nn"
  for script in tests/gpu/*.nn; do
    for mode in eager graph; do run "$dir/bin/script_runner" "$dir/bin/nn" $mode "$script"; done
  done
  run "$dir/bin/cublas_matmul" "$sizes"
  run "$dir/bin/nn" bench/cuda_steps.nn cuda:0 "$sizes"
  run "$dir/bin/nn" --mode eager bench/cuda_steps.nn cuda:0 "$sizes"
  run python3 bench/torch_cuda_steps.py "$sizes"
  # Last, as it is the slowest: every GPU script under compute-sanitizer's
  # memcheck, which names any kernel that reads or writes out of bounds.
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for script in tests/gpu/*.nn; do
    run "$sanitizer" --tool memcheck --error-exitcode 9 "$dir/bin/nn" "$script"
  done
} 2>&1 | tee "$log"
