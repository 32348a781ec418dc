#!/bin/sh
# Runs PEER.py (the same program in Python with PyTorch) and compares what
# it prints with the `# expect:` lines of SCRIPT.nn, which the script runner
# checks nn against in every mode. Exits 77 (CTest: skipped) where no
# Python with torch is installed (python3-torch: benchmark and peer checks
# only, never a build dependency).
# Usage: compare_with_peer.sh SCRIPT.nn PEER.py
set -u
for py in /usr/bin/python3 python3; do
  if "$py" -c 'import torch' >/dev/null 2>&1; then
    expected=$(sed -n 's/^# expect: //p' "$1")
    actual=$("$py" "$2") || exit 1
    if [ "$expected" = "$actual" ]; then exit 0; fi
    printf '%s\n' "$expected" > "${TMPDIR:-/tmp}/peer_expected.$$"
    printf '%s\n' "$actual" | diff -u "${TMPDIR:-/tmp}/peer_expected.$$" - 
    rm -f "${TMPDIR:-/tmp}/peer_expected.$$"
    exit 1
  fi
done
echo "no Python with torch: skipped"
exit 77
