// The JIT's persistent cache of compiled kernels: one file per key in a
// directory ($XDG_CACHE_HOME/nn, else ~/.cache/nn), so that a later run —
// another process — loads a kernel's machine code instead of compiling it.
// Keys are hashes of everything that determines the code (engine.cpp).
//
// Files are written to a temporary name and renamed into place, so a reader
// sees a whole entry or none, and two processes writing one key each leave a
// whole one. Each entry carries a magic string, its length and a checksum:
// a truncated or corrupt file reads as absent (and is rebuilt and replaced).
// A store that takes the cache beyond its size bound evicts the least
// recently used entries (a load refreshes an entry's time); the cache's
// size is read from the directory at a process's first store and when its
// count says the bound is passed, not at every store (a scan of a full
// cache's thousands of files took milliseconds per kernel). The cache is
// an optimisation: every filesystem error (no home, a read-only or full
// disk) reads as a miss or a skipped store, never as a failure of the run.
#pragma once

#include <cstdint>
#include <mutex>
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
  // Reads the directory's entries and, beyond the bound, removes the
  // oldest; the bytes left.
  uint64_t evict() const;
  std::string dir_;
  uint64_t maxBytes_;
  // The cache's bytes as this process counts them: read by evict(), then
  // each store adds its own (another process's stores are seen at the
  // next scan).
  mutable std::mutex mutex_;
  mutable bool scanned_ = false;
  mutable uint64_t bytes_ = 0;
};

}  // namespace nn::rt::jit
