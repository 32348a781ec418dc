// Structural node keys (see node_key.h).
#include "ir/node_key.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace nn::ir {
namespace {

size_t mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }

size_t hashAttr(const Attr& a) {
  size_t h = a.index();
  if (auto* i = std::get_if<int64_t>(&a)) return mix(h, std::hash<int64_t>()(*i));
  if (auto* d = std::get_if<double>(&a)) {
    uint64_t bits;
    std::memcpy(&bits, d, sizeof bits);
    return mix(h, std::hash<uint64_t>()(bits));
  }
  if (auto* b = std::get_if<bool>(&a)) return mix(h, *b);
  if (auto* s = std::get_if<std::string>(&a)) return mix(h, std::hash<std::string>()(*s));
  if (auto* l = std::get_if<std::vector<std::string>>(&a))
    for (const auto& s : *l) h = mix(h, std::hash<std::string>()(s));
  if (auto* l = std::get_if<Ints>(&a))
    for (int64_t i : *l) h = mix(h, std::hash<int64_t>()(i));
  return h;
}

bool sameAttr(const Attr& a, const Attr& b) {
  if (a.index() != b.index()) return false;
  if (auto* d = std::get_if<double>(&a)) return std::memcmp(d, &std::get<double>(b), sizeof(double)) == 0;
  return a == b;
}

// Commutative ops, and + and * on numbers and tensors (on strings and
// lists they concatenate and repeat, which is not commutative).
bool commutative(const Node& n) {
  if (hasTrait(n.op(), COMM)) return true;
  if (n.op() != Op::Add && n.op() != Op::Mul) return false;
  for (const Value* v : n.operands()) {
    TypeKind k = v->type().kind;
    if (k != TypeKind::Tensor && k != TypeKind::Int && k != TypeKind::Float && k != TypeKind::Bool) return false;
  }
  return true;
}

}  // namespace

NodeKey::NodeKey(const Node& n) : node(&n), operands(n.operands().begin(), n.operands().end()) {
  if (commutative(n)) std::sort(operands.begin(), operands.end(), [](const Value* a, const Value* b) {
    return a->id() < b->id();
  });
  hash = static_cast<size_t>(n.op());
  for (const Value* v : operands) hash = mix(hash, std::hash<const void*>()(v));
  for (const auto& [name, value] : n.attrs()) hash = mix(mix(hash, std::hash<std::string>()(name)), hashAttr(value));
  for (size_t i = 0; i < n.numResults(); ++i) hash = mix(hash, std::hash<std::string>()(n.result(i)->type().str()));
}

bool NodeKey::operator==(const NodeKey& o) const {
  const Node& a = *node;
  const Node& b = *o.node;
  if (a.op() != b.op() || operands != o.operands || a.numResults() != b.numResults() ||
      a.attrs().size() != b.attrs().size())
    return false;
  for (size_t i = 0; i < a.attrs().size(); ++i)
    if (a.attrs()[i].first != b.attrs()[i].first || !sameAttr(a.attrs()[i].second, b.attrs()[i].second)) return false;
  for (size_t i = 0; i < a.numResults(); ++i)
    if (a.result(i)->type() != b.result(i)->type()) return false;
  return true;
}

}  // namespace nn::ir
