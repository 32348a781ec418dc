#!/bin/sh
# Installs the Debian 12 packages nn needs to build and test (run as root).
# Idempotent: does nothing when everything is already installed.
set -e
PACKAGES="build-essential cmake ninja-build pkg-config ccache antlr4 libantlr4-runtime-dev
libedit-dev libcli11-dev libgtest-dev googletest libdnnl-dev libsleef-dev liblapack-dev libblas-dev zlib1g-dev libicu-dev
libbenchmark-dev llvm-14-dev clang-14 libclang-rt-14-dev libomp-14-dev libtcmalloc-minimal4"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing
fi
