// Graph-versus-eager checking (see check_eager.h).
#include "stdlib/check_eager.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "runtime/format.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"

namespace nn {
namespace {

using rt::Kind;
using rt::Value;

// Occurrences per operation kept for comparison: enough to catch a
// difference inside a loop without keeping every iteration's tensors.
constexpr size_t kPerSite = 64;

struct Site {
  SourceLoc loc;
  ir::Op op;
  bool operator<(const Site& o) const {
    return std::tie(loc.file, loc.line, loc.col, loc.endLine, loc.endCol, op) <
           std::tie(o.loc.file, o.loc.line, o.loc.col, o.loc.endLine, o.loc.endCol, o.op);
  }
};

struct Trace {
  std::map<Site, std::vector<Value>> values;
  std::map<Site, size_t> runs;                 // every run, kept or not
  std::vector<std::pair<Site, size_t>> order;  // (site, occurrence) as they ran

  void record(const ir::Node& n, const Value& v) {
    if ((!v.is(Kind::Tensor) && !v.isNumber()) || n.backward()) return;
    // An if's or a loop's results are values its blocks made, compared
    // where they were made; graph mode drops those nothing reads (an
    // inlined callee's unused result), which would pair the rest wrongly.
    if (n.op() == ir::Op::If || n.op() == ir::Op::Loop) return;
    Site s{n.loc(), n.op()};
    ++runs[s];
    auto& list = values[s];
    if (list.size() >= kPerSite) return;
    order.emplace_back(s, list.size());
    list.push_back(v);
  }
};

// Tolerance of the dtype: what reassociation and fused kernels can change.
bool close(double a, double b, bool f32) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  double rtol = f32 ? 1e-5 : 1e-12, atol = f32 ? 1e-6 : 1e-12;
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

}  // namespace

namespace {

std::string differenceOf(const Value& g, const Value& e) {
  if (g.is(Kind::Tensor) != e.is(Kind::Tensor)) return "one is a tensor and the other is not";
  if (!g.is(Kind::Tensor)) {
    if (g.is(Kind::Float) || e.is(Kind::Float))
      return close(g.asFloat(), e.asFloat(), false) ? "" : "values differ";
    return g.asInt() == e.asInt() ? "" : "values differ";
  }
  // A GPU's tensors are compared on the host.
  rt::Tensor a = rt::readableOnHost(rt::tensorOf(g), {});
  rt::Tensor b = rt::readableOnHost(rt::tensorOf(e), {});
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return "types differ";
  // Along a dim both broadcast (stride 0) every slice is the first: compare
  // that one, so a view expanded to 2**62 elements takes no time.
  rt::Shape shape = a.shape();
  for (size_t d = 0; d < shape.size(); ++d)
    if (a.strides()[d] == 0 && b.strides()[d] == 0) shape[d] = std::min<int64_t>(shape[d], 1);
  a = a.view(shape, a.strides(), a.offset());
  b = b.view(shape, b.strides(), b.offset());
  bool f32 = a.dtype() == rt::DType::F32;
  for (int64_t i = 0; i < a.numel(); ++i)
    if (!close(a.flatAsDouble(i), b.flatAsDouble(i), f32)) {
      std::ostringstream os;
      os << "element " << i << " differs";
      return os.str();
    }
  return "";
}

}  // namespace

// Reading a value on the host can fail (a device without the copy it
// needs): that is a difference to report, never an exception out of the
// check.
std::string valueDifference(const Value& g, const Value& e) {
  try {
    return differenceOf(g, e);
  } catch (const NnError& error) {
    return std::string("cannot be compared: ") + error.what();
  }
}

namespace {

std::string describe(const Value& v) {
  try {
    if (v.is(Kind::Tensor)) return rt::typeString(rt::tensorOf(v)) + " " + rt::repr(v);
    return rt::repr(v);
  } catch (const NnError&) {
    return v.is(Kind::Tensor) ? rt::typeString(rt::tensorOf(v)) : rt::typeName(v);
  }
}

}  // namespace

int checkAgainstEager(StateOptions options, const std::string& path, std::ostream& out, std::ostream& err) {
  options.mode = ExecMode::Graph;
  options.schedule = rt::Schedule::Serial;  // traced in program order
  // The states outlive the traces: the traced tensors live on the states'
  // devices.
  State graphState(options, out, err);
  std::ostringstream quietOut, quietErr;
  options.mode = ExecMode::Eager;
  State s(options, quietOut, quietErr);
  Trace graph, eager;
  graphState.interpreter().rng().reseed(0);
  graphState.interpreter().context().clock().record();
  graphState.interpreter().setTracer([&](const ir::Node& n, const Value& v) { graph.record(n, v); });
  Status st = graphState.runFile(path);
  bool graphOk = st.ok();
  out.flush();
  if (!st.ok()) graphState.render(st.error(), err);

  s.interpreter().rng().reseed(0);
  s.interpreter().context().clock().replay(graphState.interpreter().context().clock().readings());
  s.interpreter().setTracer([&](const ir::Node& n, const Value& v) { eager.record(n, v); });
  s.runFile(path);

  size_t compared = 0;
  std::map<Site, std::vector<bool>> paired;  // the eager occurrences a graph one matched
  for (const auto& [site, k] : graph.order) {
    auto it = eager.values.find(site);
    if (it == eager.values.end() || k >= it->second.size()) continue;
    // A site that ran a different number of times in the two modes was
    // rewritten in some of its specialisations only (a linear fused into
    // linear_relu for f32 calls, not f64 ones): its runs do not pair up.
    if (graph.runs[site] != eager.runs[site]) continue;
    const Value& g = graph.values[site][k];
    const Value& e = it->second[k];
    ++compared;
    std::vector<bool>& taken = paired[site];
    taken.resize(it->second.size());
    std::string why = valueDifference(g, e);
    if (why.empty() && !taken[k]) {
      taken[k] = true;
      continue;
    }
    // The copies of an unrolled loop's body share their locations, and
    // the optimiser may order independent ones differently (each layer's
    // product before the sum that reads them): a value that matches
    // another occurrence nothing has matched yet pairs with that one.
    bool matched = false;
    for (size_t j = 0; !matched && j < it->second.size(); ++j)
      if (j != k && !taken[j] && valueDifference(g, it->second[j]).empty()) taken[j] = matched = true;
    if (matched || why.empty()) continue;
    Diagnostic d;
    d.loc = site.loc;
    d.message = "graph and eager mode differ here (" + std::string(ir::opInfo(site.op).name) + ", run " +
                std::to_string(k + 1) + "): " + why + "\n  graph: " + describe(g) + "\n  eager: " + describe(e);
    renderDiagnostic(s.sources(), d, err);
    return 1;
  }
  if (!graphOk) return 1;
  err << "check: graph and eager mode agree on " << compared << " values";
  if (size_t n = s.interpreter().context().clock().replayed())
    err << " (the eager run read the graph run's " << n << " reading" << (n == 1 ? "" : "s")
        << " of time() and memory_stats(), so values computed from them agree by construction)";
  err << "\n";
  return 0;
}

}  // namespace nn
