// The JIT's persistent cache of compiled kernels: one file per key in a
// directory ($XDG_CACHE_HOME/nn, else ~/.cache/nn), so that a later run —
// another process — loads a kernel's machine code instead of compiling it.
// Keys are hashes of everything that determines the code (engine.cpp).
//
// Files are written to a temporary name and renamed into place, so a reader
// sees a whole entry or none, and two processes writing one key each leave a
// whole one. Each entry carries a magic string, its length and a checksum:
// a truncated or corrupt file reads as absent (and is rebuilt and replaced).
// Every store evicts the least recently used entries beyond the size bound
// (a load refreshes an entry's time). The cache is an optimisation: every
// filesystem error (no home, a read-only or full disk) reads as a miss or a
// skipped store, never as a failure of the run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/jit/jit.h"

namespace nn::rt::jit {

class ObjectCache {
 public:
  ObjectCache(std::string dir, uint64_t maxBytes) : dir_(std::move(dir)), maxBytes_(maxBytes) {}
  // The bytes stored under `key`, or nullopt when absent or damaged.
  std::optional<std::string> load(const std::string& key) const;
  void store(const std::string& key, const std::string& bytes) const;
  const std::string& dir() const { return dir_; }

 private:
  void evict() const;
  std::string dir_;
  uint64_t maxBytes_;
};

}  // namespace nn::rt::jit
