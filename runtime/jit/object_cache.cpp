// The JIT's persistent object cache (object_cache.h): files named after
// their keys, each "nnjit01\n", the payload's length and FNV-1a checksum
// (8 bytes each, little-endian as this host writes them), then the payload.
#include "runtime/jit/object_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <thread>
#include <vector>

namespace nn::rt::jit {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'n', 'n', 'j', 'i', 't', '0', '1', '\n'};
constexpr size_t kHeader = sizeof kMagic + 2 * sizeof(uint64_t);

uint64_t checksum(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ull;
  return h;
}

// Keys are hex digests; anything else never names a file.
bool validKey(const std::string& key) {
  return !key.empty() && key.size() <= 128 &&
         std::all_of(key.begin(), key.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string defaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/nn";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/nn";
  return "";
}

std::optional<std::string> ObjectCache::load(const std::string& key) const {
  if (dir_.empty() || !validKey(key)) return std::nullopt;
  fs::path path = fs::path(dir_) / (key + ".o");
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  uint64_t size = fs::file_size(path, ec);
  if (ec || size < kHeader || size > maxBytes_) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string bytes(size, '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) return std::nullopt;
  uint64_t length, sum;
  std::memcpy(&length, bytes.data() + sizeof kMagic, sizeof length);
  std::memcpy(&sum, bytes.data() + sizeof kMagic + sizeof length, sizeof sum);
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0 || length != size - kHeader ||
      sum != checksum(bytes.data() + kHeader, length))
    return std::nullopt;
  // Recently used: the last to be evicted.
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
  return bytes.substr(kHeader);
}

void ObjectCache::store(const std::string& key, const std::string& bytes) const {
  if (dir_.empty() || !validKey(key) || bytes.size() + kHeader > maxBytes_) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return;
  // A name no other process or thread uses.
  std::string unique = std::to_string(::getpid()) + "-" +
                       std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())) + "-" +
                       std::to_string(fs::file_time_type::clock::now().time_since_epoch().count());
  fs::path tmp = fs::path(dir_) / (".tmp-" + unique + "-" + key);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    uint64_t length = bytes.size(), sum = checksum(bytes.data(), bytes.size());
    out.write(kMagic, sizeof kMagic);
    out.write(reinterpret_cast<const char*>(&length), sizeof length);
    out.write(reinterpret_cast<const char*>(&sum), sizeof sum);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, fs::path(dir_) / (key + ".o"), ec);
  if (ec) {
    fs::remove(tmp, ec);
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  bytes_ += bytes.size() + kHeader;
  if (!scanned_ || bytes_ > maxBytes_) {
    bytes_ = evict();
    scanned_ = true;
  }
}

uint64_t ObjectCache::evict() const {
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    uint64_t size;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    if (!it->is_regular_file(e)) continue;
    uint64_t size = it->file_size(e);
    fs::file_time_type time = it->last_write_time(e);
    if (e) continue;
    entries.push_back({it->path(), time, size});
    total += size;
  }
  if (total <= maxBytes_) return total;
  // Oldest first, down to three quarters of the bound (not one file per store).
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
  for (const Entry& e : entries) {
    if (total <= maxBytes_ / 4 * 3) break;
    std::error_code r;
    if (fs::remove(e.path, r)) total -= e.size;
  }
  return total;
}

}  // namespace nn::rt::jit
