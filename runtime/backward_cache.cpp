// The tapes' backward cache (see backward_cache.h): a trace's form as a
// byte string, and the bounded map from forms to backwards.
#include "runtime/backward_cache.h"

#include <cstring>
#include <type_traits>
#include <variant>

namespace nn::rt {
namespace {

void put(std::string& k, uint64_t v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  k.append(bytes, sizeof v);
}

void putText(std::string& k, const std::string& s) {
  put(k, s.size());
  k += s;
}

void putType(std::string& k, const ir::Type& t) {
  put(k, static_cast<uint64_t>(t.kind));
  put(k, t.dtype ? static_cast<uint64_t>(*t.dtype) + 1 : 0);
  if (!t.shape) {
    put(k, 0);
    return;
  }
  put(k, t.shape->size() + 1);
  for (const ir::Dim& d : *t.shape) {
    put(k, static_cast<uint64_t>(d.size));
    putText(k, d.sym);
  }
}

void putLoc(std::string& k, const SourceLoc& l) {
  put(k, (uint64_t(l.file) << 32) | l.line);
  put(k, (uint64_t(l.col) << 32) | l.endLine);
  put(k, l.endCol);
}

void putAttr(std::string& k, const ir::Attr& a) {
  put(k, a.index());
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, bool>) {
          put(k, static_cast<uint64_t>(v));
        } else if constexpr (std::is_same_v<T, double>) {
          uint64_t bits;
          std::memcpy(&bits, &v, sizeof bits);
          put(k, bits);
        } else if constexpr (std::is_same_v<T, std::string>) {
          putText(k, v);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          put(k, v.size());
          for (const std::string& s : v) putText(k, s);
        } else if constexpr (std::is_same_v<T, ir::Ints>) {
          put(k, v.size());
          for (int64_t i : v) put(k, static_cast<uint64_t>(i));
        }
      },
      a);
}

}  // namespace

BackwardCache::TraceForm BackwardCache::formOf(const ir::Function& trace, const ir::Value* output, SourceLoc site) {
  TraceForm form;
  putLoc(form.key, site);
  auto number = [&](const ir::Value* v) {
    form.index.emplace(v, static_cast<uint32_t>(form.values.size()));
    form.values.push_back(v);
  };
  const ir::Block& body = *trace.body();
  // The watched values are the trace's parameters, the rest its captures:
  // grad(f, argnums=0) and grad(f, argnums=(0, 1)) of one f differ here.
  put(form.key, trace.numParams());
  put(form.key, body.numArgs());
  for (size_t i = 0; i < body.numArgs(); ++i) {
    number(body.arg(i));
    putType(form.key, body.arg(i)->type());
  }
  for (const auto& n : body.nodes()) {
    put(form.key, static_cast<uint64_t>(n->op()));
    putLoc(form.key, n->loc());
    put(form.key, n->inlinedAt().size());
    for (const SourceLoc& site : n->inlinedAt()) putLoc(form.key, site);
    put(form.key, n->attrs().size());
    for (const auto& [name, value] : n->attrs()) {
      putText(form.key, name);
      putAttr(form.key, value);
    }
    put(form.key, n->operands().size());
    for (const ir::Value* o : n->operands()) put(form.key, form.index.at(o));
    put(form.key, n->numResults());
    for (size_t i = 0; i < n->numResults(); ++i) {
      number(n->result(i));
      putType(form.key, n->result(i)->type());
    }
  }
  put(form.key, form.index.at(output));
  return form;
}

std::shared_ptr<const BackwardCache::Entry> BackwardCache::find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second;
}

void BackwardCache::add(const std::string& key, std::shared_ptr<const Entry> entry) {
  if (key.size() > kMaxKeyBytes) return;
  if (entries_.size() >= kMaxEntries || keyBytes_ + key.size() > kMaxKeyBytes) {
    entries_.clear();
    keyBytes_ = 0;
  }
  if (entries_.insert_or_assign(key, std::move(entry)).second) keyBytes_ += key.size();
}

}  // namespace nn::rt
