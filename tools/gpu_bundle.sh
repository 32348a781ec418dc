#!/bin/sh
# Packs what a GPU machine needs to run tools/gpu_check.sh into
# .gpu/bundle.tar.xz (ignored by git): the nn binary with its CUDA plugin,
# library modules and script runner, the cuBLAS-alone benchmark, and every
# shared library they load that a machine without nn's Debian packages
# lacks (oneDNN, LLVM, ANTLR, libedit and what those load). glibc stays
# the machine's; so do cuBLAS and cuDNN (the GPU machine's CUDA has its
# own). The GCC runtime and cudart go to a fallback folder that
# gpu_check.sh uses only where the machine's own are missing or too old.
# The device tool carries the folder: run(carry=[".gpu"], command=
# "sh tools/gpu_check.sh"). Usage: tools/gpu_bundle.sh [build dir]
set -e
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target nn script_runner nn_cuda cublas_matmul
stage=.gpu/stage
rm -rf .gpu
mkdir -p $stage/bin/lib $stage/lib $stage/fallback
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
cp "$build/nn" "$build/libnn_cuda.so" "$build/tests/script_runner" "$build/bench/cublas_matmul" $stage/bin/
cp "$build"/lib/*.nn $stage/bin/lib/
for f in $stage/bin/nn $stage/bin/libnn_cuda.so $stage/bin/script_runner $stage/bin/cublas_matmul; do ldd "$f"; done |
  awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u | while read -r name path; do
    case $name in
      libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
      libcublas*|libcudnn*) ;;
      libstdc++*|libgcc_s*|libgomp*|libcudart*) cp -L "$path" $stage/fallback/"$name" ;;
      *) cp -L "$path" $stage/lib/"$name" ;;
    esac
  done
tar -C $stage -cf - . | xz -T0 -6 > .gpu/bundle.tar.xz
rm -rf $stage
ls -l .gpu/bundle.tar.xz
