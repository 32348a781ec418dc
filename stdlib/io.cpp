// File I/O builtins: load/save of NumPy .npy files (the five nn dtypes, C
// order; Fortran-order files are transposed on load), .npz archives of
// nested structures of tensors (ZIP, stored or deflated entries read, stored
// entries written), and load_csv. save writes to a temporary file in the target's folder and
// renames it over the target, so a failure never leaves a half-written file.
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ir/builtins.h"


#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"

namespace nn::stdlib {

using namespace nn::rt;
namespace fs = std::filesystem;

namespace {

const char* npyDescr(DType t) {
  switch (t) {
    case DType::Bool: return "|b1";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
  }
  return "";
}

std::string npyBytes(const Tensor& t0) {
  Tensor t = readableOnHost(t0, {}).contiguous();
  std::string shape = "(";
  for (int64_t d : t.shape()) shape += std::to_string(d) + ", ";
  if (t.ndim() > 1) shape.erase(shape.size() - 2);
  else if (t.ndim() == 1) shape.erase(shape.size() - 1);
  shape += ")";
  std::string header = std::string("{'descr': '") + npyDescr(t.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts at a multiple of 64 bytes, ending in '\n'.
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  uint16_t len = static_cast<uint16_t>(header.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  out += header;
  out.append(t.bytes(), static_cast<size_t>(t.numel()) * dtypeSize(t.dtype()));
  return out;
}

Tensor parseNpy(const std::string& data, const std::string& what, SourceLoc loc, Device& device) {
  auto bad = [&](const std::string& why) -> Tensor { fail(loc, "malformed .npy data in " + what + ": " + why); };
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0) return bad("missing the NUMPY magic");
  int major = static_cast<unsigned char>(data[6]);
  size_t headerLen, start;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(data[8]) | (static_cast<size_t>(static_cast<unsigned char>(data[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) return bad("truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i) headerLen |= static_cast<size_t>(static_cast<unsigned char>(data[8 + i])) << (8 * i);
    start = 12;
  } else {
    return bad("unsupported format version " + std::to_string(major));
  }
  if (start + headerLen > data.size()) return bad("truncated header");
  std::string header = data.substr(start, headerLen);
  auto field = [&](const std::string& key) -> std::string {
    size_t p = header.find("'" + key + "'");
    if (p == std::string::npos) bad("no '" + key + "' in the header");
    p = header.find(':', p);
    size_t e = p == std::string::npos ? p : key == "shape" ? header.find(')', p) : header.find_first_of(",}", p);
    if (e == std::string::npos) bad("a malformed '" + key + "' in the header");
    return header.substr(p + 1, e - p - (key == "shape" ? 0 : 1));
  };
  std::string descr = field("descr");
  descr.erase(0, descr.find('\'') + 1);
  descr.erase(descr.find('\''));
  std::optional<DType> dt;
  for (DType t : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64})
    if (descr == npyDescr(t) || (descr == "<b1" && t == DType::Bool)) dt = t;
  if (!dt) fail(loc, "unsupported .npy dtype '" + descr + "' in " + what + " (nn reads bool, i32, i64, f32, f64)");
  bool fortran = field("fortran_order").find("True") != std::string::npos;
  // The shape is a tuple of non-negative ints: "(3, 4)", "(5,)", "()".
  std::string shapeText = field("shape");
  Shape shape;
  size_t i = shapeText.find_first_not_of(" \t");
  if (i == std::string::npos || shapeText[i] != '(') return bad("the shape is not a tuple of sizes");
  ++i;
  uint64_t count = 1;
  bool expectSize = true;
  for (;;) {
    while (i < shapeText.size() && (shapeText[i] == ' ' || shapeText[i] == '\t')) ++i;
    if (i == shapeText.size()) return bad("the shape is not a tuple of sizes");
    if (shapeText[i] == ')') break;
    if (expectSize && std::isdigit(static_cast<unsigned char>(shapeText[i]))) {
      uint64_t d = 0;
      for (; i < shapeText.size() && std::isdigit(static_cast<unsigned char>(shapeText[i])); ++i)
        if (__builtin_mul_overflow(d, 10u, &d) || __builtin_add_overflow(d, uint64_t(shapeText[i] - '0'), &d) ||
            d > uint64_t(INT64_MAX))
          return bad("a size in the shape is too large");
      if (__builtin_mul_overflow(count, d, &count) || count > uint64_t(INT64_MAX))
        return bad("the shape holds too many elements");
      shape.push_back(static_cast<int64_t>(d));
      expectSize = false;
    } else if (!expectSize && shapeText[i] == ',') {
      ++i;
      expectSize = true;
    } else {
      return bad("the shape is not a tuple of sizes");
    }
  }
  if (shape.size() == 1 && expectSize == false && shapeText.find(',') == std::string::npos)
    return bad("the shape is not a tuple of sizes");  // "(3)" is an int, not a tuple
  size_t begin = start + headerLen;
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, uint64_t(dtypeSize(*dt)), &bytes) || data.size() - begin < bytes)
    return bad("the data is shorter than its shape " + shapeString(shape));
  Shape fileShape = shape;
  if (fortran) std::reverse(fileShape.begin(), fileShape.end());
  Tensor t = Tensor::empty(*dt, fileShape, device);
  std::memcpy(t.bytes(), data.data() + begin, bytes);
  if (fortran) t = transpose(t, {}, loc).clone();
  return t;
}

// Why `path` cannot be read or replaced as a data file, or "" when it can:
// only regular files are (a directory reads as nothing, a FIFO or a device
// may block or never end, and replacing one by a regular file would lose
// it). A path that does not exist is fine for writing.
std::string notRegular(const std::string& path, bool mustExist) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) return mustExist ? std::strerror(ENOENT) : "";
  if (ec) return ec.message();
  if (st.type() == fs::file_type::directory) return std::strerror(EISDIR);
  if (st.type() != fs::file_type::regular) return "not a regular file";
  return "";
}

std::string readFileOrFail(const std::string& path, SourceLoc loc) {
  std::string why = notRegular(path, true);
  if (!why.empty())
    fail(loc, "cannot open '" + path + "': " + why, why == std::strerror(ENOENT) ? ErrorClass::FileNotFoundError : ErrorClass::OSError);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(loc, "cannot open '" + path + "': " + std::strerror(errno), ErrorClass::OSError);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes through a temporary file and an atomic rename. mkstemp makes the
// temporary's name unique (concurrent writers of one target, in one state
// or several, never share it) without any counter kept by the process.
void writeFileAtomically(const std::string& path, const std::string& data, SourceLoc loc) {
  std::string why = notRegular(path, false);
  if (!why.empty()) fail(loc, "cannot write '" + path + "': " + why, ErrorClass::OSError);
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail(loc, "cannot write '" + path + "': " + std::strerror(errno));
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(loc, "cannot write '" + path + "': " + std::strerror(n < 0 ? err : ENOSPC));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp creates the file 0600; a saved file gets the usual permissions.
  ::fchmod(fd, 0644);
  // The data reaches the disk before the rename replaces the previous file,
  // so a crash or power loss leaves one of the two whole, never an empty one.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(loc, "cannot write '" + path + "': " + std::strerror(err));
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail(loc, "cannot write '" + path + "': " + std::strerror(err));
  }
  std::error_code ec;
  fs::rename(tmp, fs::path(path), ec);
  if (ec) {
    fs::remove(tmp, ec);
    fail(loc, "cannot write '" + path + "': " + ec.message());
  }
}

uint32_t le32(const std::string& s, size_t p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(s[p + i])) << (8 * i);
  return v;
}
uint16_t le16(const std::string& s, size_t p) {
  return static_cast<uint16_t>(static_cast<unsigned char>(s[p]) | (static_cast<unsigned char>(s[p + 1]) << 8));
}
void put32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put16(std::string& s, uint16_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>(v >> 8);
}

// Reads the entries of a ZIP archive (the .npz container) via its central directory.
std::vector<std::pair<std::string, std::string>> unzip(const std::string& z, const std::string& path, SourceLoc loc) {
  auto bad = [&](const std::string& why) { fail(loc, "malformed .npz archive '" + path + "': " + why, ErrorClass::ValueError); };
  size_t eocd = z.size() >= 22 ? z.rfind(std::string("PK\x05\x06", 4)) : std::string::npos;
  if (eocd == std::string::npos || eocd + 22 > z.size()) bad("no end of central directory");
  size_t count = le16(z, eocd + 10);
  size_t p = le32(z, eocd + 16);
  std::vector<std::pair<std::string, std::string>> entries;
  for (size_t i = 0; i < count; ++i) {
    if (p + 46 > z.size() || le32(z, p) != 0x02014b50) bad("bad central directory entry");
    uint16_t method = le16(z, p + 10);
    uint32_t csize = le32(z, p + 20), usize = le32(z, p + 24);
    uint16_t nlen = le16(z, p + 28), elen = le16(z, p + 30), clen = le16(z, p + 32);
    size_t local = le32(z, p + 42);
    std::string name = z.substr(p + 46, nlen);
    p += 46 + nlen + elen + clen;
    if (local + 30 > z.size() || le32(z, local) != 0x04034b50) bad("bad local header for " + name);
    size_t dataAt = local + 30 + le16(z, local + 26) + le16(z, local + 28);
    if (dataAt + csize > z.size()) bad("truncated entry " + name);
    std::string data;
    if (method == 0) {
      data = z.substr(dataAt, csize);
    } else if (method == 8) {
      // DEFLATE expands at most 1032:1, so a larger claimed size is a lie
      // that would otherwise allocate up to 4 GiB for a few bytes.
      if (usize > static_cast<uint64_t>(csize) * 1032 + 64) bad("corrupt compressed entry " + name);
      data.resize(usize);
      z_stream s{};
      if (inflateInit2(&s, -MAX_WBITS) != Z_OK) bad("cannot inflate " + name);
      s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data() + dataAt));
      s.avail_in = csize;
      s.next_out = reinterpret_cast<Bytef*>(data.data());
      s.avail_out = usize;
      int rc = inflate(&s, Z_FINISH);
      inflateEnd(&s);
      if (rc != Z_STREAM_END) bad("corrupt compressed entry " + name);
    } else {
      bad("unsupported compression method " + std::to_string(method));
    }
    entries.emplace_back(name, std::move(data));
  }
  return entries;
}

std::string zipStored(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out, central;
  for (const auto& [name, data] : entries) {
    uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    uint32_t offset = static_cast<uint32_t>(out.size());
    put32(out, 0x04034b50);
    put16(out, 20), put16(out, 0), put16(out, 0), put16(out, 0), put16(out, 0x21);
    put32(out, crc), put32(out, static_cast<uint32_t>(data.size())), put32(out, static_cast<uint32_t>(data.size()));
    put16(out, static_cast<uint16_t>(name.size())), put16(out, 0);
    out += name;
    out += data;
    put32(central, 0x02014b50);
    put16(central, 20), put16(central, 20), put16(central, 0), put16(central, 0), put16(central, 0), put16(central, 0x21);
    put32(central, crc), put32(central, static_cast<uint32_t>(data.size())), put32(central, static_cast<uint32_t>(data.size()));
    put16(central, static_cast<uint16_t>(name.size())), put16(central, 0), put16(central, 0), put16(central, 0), put16(central, 0);
    put32(central, 0), put32(central, offset);
    central += name;
  }
  uint32_t cdOffset = static_cast<uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50);
  put16(out, 0), put16(out, 0), put16(out, static_cast<uint16_t>(entries.size())), put16(out, static_cast<uint16_t>(entries.size()));
  put32(out, static_cast<uint32_t>(central.size())), put32(out, cdOffset), put16(out, 0);
  return out;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const std::string& pathArg(CallContext& c, const Value& v) {
  if (!v.is(Kind::Str)) fail(c.loc, c.name + "(): the path must be a str, not " + typeName(v));
  return v.asStr();
}

// A nested structure in an .npz archive: each tensor is an entry named by
// its path (`layers/0/w.npy`), and, unless the structure is a flat dict of
// tensors (NumPy's own layout, written as before), an entry kStructure
// lists every path in order with what it holds (dict, list, tuple, tensor,
// int, float, bool), so that load rebuilds the same containers in the same
// key order. Numbers are stored as 0-d arrays.
constexpr const char* kStructure = "__nn_structure__.txt";

struct Flattened {
  std::vector<std::pair<std::string, std::string>> entries;
  std::string structure;
  bool flat = true;  // a dict of tensors only
};

void flatten(CallContext& c, const Value& v, const std::string& path, int depth, Flattened& out) {
  auto line = [&](const char* kind) { out.structure += path + "\t" + kind + "\n"; };
  auto leaf = [&](const Tensor& t, const char* kind) {
    out.entries.emplace_back(path + ".npy", npyBytes(t));
    line(kind);
  };
  auto child = [&](const std::string& key) { return path.empty() ? key : path + "/" + key; };
  if (depth > 64) fail(c.loc, "save(): the structure is nested more than 64 levels deep");
  switch (v.kind()) {
    case Kind::Tensor:
      out.flat = out.flat && depth == 1;
      leaf(tensorOf(v), "tensor");
      return;
    case Kind::Int: case Kind::Bool: case Kind::Float: {
      out.flat = false;
      DType dt = v.is(Kind::Float) ? DType::F64 : v.is(Kind::Int) ? DType::I64 : DType::Bool;
      Tensor t = Tensor::empty(dt, {}, c.interp.context().cpu());
      if (dt == DType::F64) *t.data<double>() = v.asFloat();
      else if (dt == DType::I64) *t.data<int64_t>() = v.asInt();
      else *t.data<bool>() = v.asInt() != 0;
      leaf(t, v.is(Kind::Float) ? "float" : v.is(Kind::Int) ? "int" : "bool");
      return;
    }
    case Kind::Dict:
      out.flat = out.flat && depth == 0;
      line("dict");
      for (const auto& [k, item] : v.as<DictObj>().items) {
        if (k.empty() || k.find('/') != std::string::npos || k == kStructure)
          fail(c.loc, "save(): the key '" + k + "' cannot name an archive entry (empty, or holding '/')");
        flatten(c, item, child(k), depth + 1, out);
      }
      return;
    case Kind::List: case Kind::Tuple: {
      out.flat = false;
      line(v.is(Kind::List) ? "list" : "tuple");
      const auto& items = v.as<SeqObj>().items;
      for (size_t i = 0; i < items.size(); ++i) flatten(c, items[i], child(std::to_string(i)), depth + 1, out);
      return;
    }
    default:
      fail(c.loc, "save(): " + (path.empty() ? std::string("the value") : "'" + path + "'") + " is a " + typeName(v) +
                      "; tensors, numbers, and dicts, lists and tuples of them can be saved");
  }
}

// The structure flatten() wrote, rebuilt from the archive's entries.
Value rebuild(CallContext& c, const std::string& structure, std::map<std::string, std::string>& arrays,
              const std::string& path) {
  auto bad = [&](const std::string& why) { fail(c.loc, "load(): malformed structure in '" + path + "': " + why); };
  std::map<std::string, Value> made;
  Value root;
  std::istringstream lines(structure);
  for (std::string line; std::getline(lines, line);) {
    size_t tab = line.find('\t');
    if (tab == std::string::npos) bad("a line without a tab");
    std::string at = line.substr(0, tab), kind = line.substr(tab + 1);
    Value v;
    if (kind == "dict") v = makeDict();
    else if (kind == "list") v = makeList({});
    else if (kind == "tuple") {
      // Filled below, item by item: its items are not at hand to look into.
      v = makeTuple({});
      v.as<SeqObj>().mayReachContainers = true;
    }
    else {
      auto it = arrays.find(at);
      if (it == arrays.end()) bad("no array for '" + at + "'");
      Tensor t = parseNpy(it->second, path + ":" + at, c.loc, c.interp.context().cpu());
      if (kind == "tensor") v = makeTensorValue(t);
      else if ((kind == "int" || kind == "float" || kind == "bool") && t.numel() == 1) {
        v = item(t, c.loc);
        if (kind == "float") v = Value::real(v.asFloat());
      } else bad("'" + at + "' holds '" + kind + "'");
    }
    if (at.empty()) {
      root = v;
    } else {
      size_t slash = at.rfind('/');
      std::string parent = slash == std::string::npos ? "" : at.substr(0, slash);
      std::string key = slash == std::string::npos ? at : at.substr(slash + 1);
      auto p = made.find(parent);
      if (p == made.end()) bad("'" + at + "' comes before its container");
      if (p->second.is(Kind::Dict)) p->second.as<DictObj>().set(key, v);
      else
        p->second.as<SeqObj>().append(v);
    }
    if (v.is(Kind::Dict) || v.is(Kind::List) || v.is(Kind::Tuple)) made[at] = v;
  }
  if (root.is(Kind::None)) bad("no root");
  return root;
}

Value bLoad(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  const std::string& path = pathArg(c, args[0]);
  std::string data = readFileOrFail(path, c.loc);
  if (endsWith(path, ".npz")) {
    std::vector<std::pair<std::string, std::string>> entries = unzip(data, path, c.loc);
    for (const auto& [name, bytes] : entries)
      if (name == kStructure) {
        std::map<std::string, std::string> arrays;
        for (auto& [n, b] : entries)
          if (endsWith(n, ".npy")) arrays[n.substr(0, n.size() - 4)] = std::move(b);
        return rebuild(c, bytes, arrays, path);
      }
    Value d = makeDict();
    for (auto& [name, bytes] : entries) {
      std::string key = endsWith(name, ".npy") ? name.substr(0, name.size() - 4) : name;
      d.as<DictObj>().set(key, makeTensorValue(parseNpy(bytes, path + ":" + name, c.loc, c.interp.context().cpu())));
    }
    return d;
  }
  return makeTensorValue(parseNpy(data, "'" + path + "'", c.loc, c.interp.context().cpu()));
}

Value bSave(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  const std::string& path = pathArg(c, args[0]);
  if (args[1].is(Kind::Tensor)) {
    writeFileAtomically(path, npyBytes(tensorOf(args[1])), c.loc);
    return Value::none();
  }
  if (!args[1].is(Kind::Dict) && !args[1].is(Kind::List) && !args[1].is(Kind::Tuple))
    fail(c.loc, std::string("save(): expected a Tensor, or a dict, list or tuple of tensors, not ") + typeName(args[1]));
  if (!endsWith(path, ".npz"))
    fail(c.loc, std::string("save(): a ") + typeName(args[1]) + " of tensors is saved as .npz; use a path ending in .npz");
  Flattened f;
  flatten(c, args[1], "", 0, f);
  if (!f.flat) f.entries.emplace_back(kStructure, f.structure);
  writeFileAtomically(path, zipStored(f.entries), c.loc);
  return Value::none();
}

// A CSV header field: trimmed, and unquoted when it is a quoted field.
std::string headerField(std::string f) {
  size_t b = f.find_first_not_of(" \t");
  f = b == std::string::npos ? "" : f.substr(b, f.find_last_not_of(" \t") - b + 1);
  if (f.size() >= 2 && f.front() == '"' && f.back() == '"') {
    std::string u;
    for (size_t i = 1; i + 1 < f.size(); ++i) {
      u += f[i];
      if (f[i] == '"' && f[i + 1] == '"') ++i;
    }
    f = u;
  }
  return f;
}

// load_csv(path, delimiter=",", header=False, dtype=f32, skip_header=False):
// with header, the first line names the columns and the result is
// (tensor, names); skip_header drops it unread.
Value bLoadCsv(CallContext& c, std::vector<Value>& args) {
  const Value* dkw = c.kw("dtype");
  const Value* skip = c.kw("skip_header");
  const Value* delimKw = c.kw("delimiter");
  const Value* headerKw = c.kw("header");
  checkArity(c, args, 1, 3);
  if (args.size() > 1 && delimKw) fail(c.loc, "load_csv() got multiple values for argument 'delimiter'");
  if (args.size() > 2 && headerKw) fail(c.loc, "load_csv() got multiple values for argument 'header'");
  const Value* delimiter = args.size() > 1 ? &args[1] : delimKw;
  const Value* header = args.size() > 2 ? &args[2] : headerKw;
  char delim = ',';
  if (delimiter) {
    if (!delimiter->is(Kind::Str) || delimiter->asStr().size() != 1)
      fail(c.loc, "load_csv(): delimiter must be a 1-character string", ErrorClass::TypeError);
    delim = delimiter->asStr()[0];
  }
  bool withHeader = header && truthy(*header);
  const std::string& path = pathArg(c, args[0]);
  DType dt = DType::F32;
  if (dkw && dkw->is(Kind::DType)) dt = static_cast<DType>(dkw->asInt());
  else if (dkw && !dkw->is(Kind::None)) fail(c.loc, "load_csv(): dtype must be f32, f64, i32 or i64");
  std::istringstream in(readFileOrFail(path, c.loc));
  std::vector<double> values;
  int64_t rows = 0, cols = -1, lineNo = 0;
  std::string line;
  bool skipFirst = (skip && truthy(*skip)) || withHeader;
  std::vector<Value> names;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (skipFirst) {
      skipFirst = false;
      if (withHeader) {
        std::stringstream fields(line);
        for (std::string f; std::getline(fields, f, delim);) names.push_back(Value::str(headerField(f)));
      }
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    int64_t n = 0;
    std::stringstream fields(line);
    for (std::string f; std::getline(fields, f, delim);) {
      char* end = nullptr;
      size_t b = f.find_first_not_of(" \t");
      std::string trimmed = b == std::string::npos ? "" : f.substr(b, f.find_last_not_of(" \t") - b + 1);
      double v = std::strtod(trimmed.c_str(), &end);
      if (trimmed.empty() || *end)
        fail(c.loc, "load_csv: '" + path + "' line " + std::to_string(lineNo) + ": '" + trimmed + "' is not a number");
      // An integer dtype takes integers in its range only (no NaN turned
      // into 0, no saturation), as NumPy's loadtxt.
      if (!isFloating(dt) && dt != DType::Bool) {
        double lo = dt == DType::I32 ? -2147483648.0 : -9223372036854775808.0;
        double hi = dt == DType::I32 ? 2147483648.0 : 9223372036854775808.0;
        if (!(v >= lo && v < hi) || v != std::floor(v))
          fail(c.loc, "load_csv: '" + path + "' line " + std::to_string(lineNo) + ": '" + trimmed + "' is not an " +
                          dtypeName(dt) + " integer", ErrorClass::ValueError);
      }
      values.push_back(v);
      ++n;
    }
    if (cols >= 0 && n != cols)
      fail(c.loc, "load_csv: '" + path + "' line " + std::to_string(lineNo) + " has " + std::to_string(n) +
                      " fields, expected " + std::to_string(cols));
    cols = n;
    ++rows;
  }
  if (withHeader && cols >= 0 && static_cast<int64_t>(names.size()) != cols)
    fail(c.loc, "load_csv: '" + path + "' has " + std::to_string(names.size()) + " column names but " +
                    std::to_string(cols) + " columns", ErrorClass::ValueError);
  Tensor t = Tensor::empty(DType::F64, {rows, std::max<int64_t>(cols, 0)}, c.interp.context().cpu());
  std::copy(values.begin(), values.end(), t.data<double>());
  Value result = makeTensorValue(astype(t, dt));
  if (withHeader) return makeTuple({result, makeList(std::move(names))});
  return result;
}

// One CSV field: numbers as Python prints them, 0-d tensors by their
// value, strings quoted where they hold a separator, quote or line break.
std::string csvField(CallContext& c, const Value& v) {
  Value x = v.is(Kind::Tensor) && tensorOf(v).numel() == 1 ? item(tensorOf(v), c.loc) : v;
  if (x.is(Kind::Str)) {
    const std::string& t = x.asStr();
    if (t.find_first_of(",\"\r\n") == std::string::npos) return t;
    std::string q = "\"";
    for (char ch : t) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  }
  if (x.isNumber() || x.is(Kind::None)) return str(x);
  fail(c.loc, std::string("save_csv(): a field is a ") + typeName(v) + "; fields are numbers, strings or one-element tensors");
}

// save_csv(path, rows, header=None): `rows` is a 2-D tensor (an optional
// header names its columns) or a list of dicts with the same keys, the
// header (a training log: one dict of figures per epoch). The file is
// rewritten whole, atomically, so calling it after every epoch with the
// rows so far keeps a complete log even if the run is stopped.
Value bSaveCsv(CallContext& c, std::vector<Value>& args) {
  const Value* header = c.kw("header");
  checkArity(c, args, 2, 2);
  const std::string& path = pathArg(c, args[0]);
  std::string text;
  auto line = [&](const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) text += (i ? "," : "") + fields[i];
    text += "\n";
  };
  std::vector<std::string> names;
  if (header && !header->is(Kind::None)) {
    for (const Value& h : iterate(*header, c.loc)) names.push_back(csvField(c, h));
  }
  const Value& rows = args[1];
  if (rows.is(Kind::Tensor)) {
    const Tensor& t = tensorOf(rows);
    if (t.ndim() != 2) fail(c.loc, "save_csv(): a tensor to save must be 2-D, not " + std::to_string(t.ndim()) + "-D", ErrorClass::ValueError);
    if (!names.empty() && static_cast<int64_t>(names.size()) != t.dim(1))
      fail(c.loc, "save_csv(): " + std::to_string(names.size()) + " header names for " + std::to_string(t.dim(1)) + " columns");
    if (!names.empty()) line(names);
    Value cells = toList(t);
    for (const Value& r : cells.as<SeqObj>().items) {
      std::vector<std::string> fields;
      for (const Value& x : r.as<SeqObj>().items) fields.push_back(str(x));
      line(fields);
    }
  } else if (rows.is(Kind::List) || rows.is(Kind::Tuple)) {
    const auto& items = rows.as<SeqObj>().items;
    if (!names.empty()) fail(c.loc, "save_csv(): the keys of the rows are the header; header= is for a tensor");
    if (!items.empty() && items[0].is(Kind::Dict))
      for (const auto& kv : items[0].as<DictObj>().items) names.push_back(csvField(c, Value::str(kv.first)));
    if (!names.empty()) line(names);
    for (size_t r = 0; r < items.size(); ++r) {
      if (!items[r].is(Kind::Dict))
        fail(c.loc, std::string("save_csv(): row ") + std::to_string(r) + " is a " + typeName(items[r]) + ", not a dict");
      const auto& d = items[r].as<DictObj>().items;
      const auto& first = items[0].as<DictObj>().items;
      bool same = d.size() == first.size();
      for (size_t k = 0; same && k < d.size(); ++k) same = d[k].first == first[k].first;
      if (!same) fail(c.loc, "save_csv(): row " + std::to_string(r) + " has other keys than row 0");
      std::vector<std::string> fields;
      for (const auto& kv : d) fields.push_back(csvField(c, kv.second));
      line(fields);
    }
  } else {
    fail(c.loc, std::string("save_csv(): expected a 2-D tensor or a list of dicts, not ") + typeName(rows));
  }
  writeFileAtomically(path, text, c.loc);
  return Value::none();
}

}  // namespace

void addIoBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Load).name] = bLoad;
  table[ir::builtinInfo(ir::Builtin::Save).name] = bSave;
  table[ir::builtinInfo(ir::Builtin::LoadCsv).name] = bLoadCsv;
  table[ir::builtinInfo(ir::Builtin::SaveCsv).name] = bSaveCsv;
}

}  // namespace nn::stdlib
