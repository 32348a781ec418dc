// einsum(equation, *operands): Einstein summation as PyTorch's, composed of
// tensor ops (permute, reshape, multiply, sum) run where a tape sees them,
// so that it differentiates in both modes. Each operand is laid out over
// every subscript letter (the output's first, then the summed ones, size 1
// where it lacks one), the operands are multiplied with broadcasting, and
// the summed letters are reduced.
#include <algorithm>
#include <map>

#include "ir/builtins.h"
#include "runtime/tape.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value intsTuple(const std::vector<int64_t>& v) {
  std::vector<Value> items;
  for (int64_t i : v) items.push_back(Value::integer(i));
  return makeTuple(std::move(items));
}

Value bEinsum(CallContext& c, std::vector<Value>& args) {
  if (args.empty() || !args[0].is(Kind::Str)) fail(c.loc, "einsum(): the first argument is the equation, a str", ErrorClass::TypeError);
  std::vector<Value> operands(args.begin() + 1, args.end());
  if (operands.size() == 1 && (operands[0].is(Kind::List) || operands[0].is(Kind::Tuple)))
    operands = std::vector<Value>(operands[0].as<SeqObj>().items);  // einsum(eq, [a, b])
  std::string eq;
  for (char ch : args[0].asStr())
    if (ch != ' ') eq += ch;
  auto bad = [&](const std::string& why) { fail(c.loc, "einsum(): " + why, ErrorClass::ValueError); };
  if (eq.find("...") != std::string::npos) bad("'...' in the equation is not supported");
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms{""};
  for (char ch : lhs) {
    if (ch == ',') terms.emplace_back();
    else if (std::isalpha(static_cast<unsigned char>(ch))) terms.back() += ch;
    else bad(std::string("'") + ch + "' is not a subscript letter");
  }
  if (terms.size() != operands.size())
    bad("the equation has " + std::to_string(terms.size()) + " operand(s) but " + std::to_string(operands.size()) +
        " tensor(s) were given");
  std::map<char, int64_t> size, count;
  std::string seen;  // letters by first appearance
  for (size_t k = 0; k < terms.size(); ++k) {
    if (!operands[k].is(Kind::Tensor)) bad("operand " + std::to_string(k) + " is a " + typeName(operands[k]) + ", not a Tensor");
    const Tensor& t = tensorOf(operands[k]);
    if (static_cast<int64_t>(terms[k].size()) != t.ndim())
      bad("subscripts '" + terms[k] + "' do not match the " + std::to_string(t.ndim()) + " dims of operand " +
          std::to_string(k) + " " + typeString(t));
    for (size_t d = 0; d < terms[k].size(); ++d) {
      char l = terms[k][d];
      if (terms[k].find(l) != d) bad(std::string("a subscript repeated within one operand ('") + l + "') is not supported");
      int64_t n = t.dim(static_cast<int64_t>(d));
      auto it = size.find(l);
      if (it == size.end()) {
        size[l] = n;
        seen += l;
      } else if (it->second != n && it->second != 1 && n != 1) {
        bad(std::string("subscript '") + l + "' has size " + std::to_string(n) + " in operand " + std::to_string(k) +
            " but " + std::to_string(it->second) + " before");
      } else {
        it->second = std::max(it->second, n);
      }
      ++count[l];
    }
  }
  std::string out;
  if (arrow == std::string::npos) {
    for (const auto& [l, n] : count)
      if (n == 1) out += l;  // the letters used once, in alphabetical order
  } else {
    out = eq.substr(arrow + 2);
    for (size_t i = 0; i < out.size(); ++i) {
      if (!size.count(out[i])) bad(std::string("output subscript '") + out[i] + "' is not in any operand");
      if (out.find(out[i]) != i) bad(std::string("output subscript '") + out[i] + "' appears more than once");
    }
  }
  std::string order = out;
  for (char l : seen)
    if (out.find(l) == std::string::npos) order += l;

  Interpreter& interp = c.interp;
  Value product;
  for (size_t k = 0; k < operands.size(); ++k) {
    const std::string& term = terms[k];
    std::vector<int64_t> perm, shape;
    for (char l : order) {
      size_t d = term.find(l);
      if (d != std::string::npos) perm.push_back(static_cast<int64_t>(d));
      shape.push_back(d == std::string::npos ? 1 : tensorOf(operands[k]).dim(static_cast<int64_t>(d)));
    }
    std::vector<Value> p{operands[k], intsTuple(perm)};
    Value v = runTensorOp(interp, ir::Op::Permute, p, c.loc);
    std::vector<Value> r{v, intsTuple(shape)};
    v = runTensorOp(interp, ir::Op::Reshape, r, c.loc);
    if (k == 0) {
      product = v;
      continue;
    }
    Value next = tensorBinary(ir::Op::Mul, product, v, c.loc);
    if (Tape* tape = interp.tape()) tape->recordOp(ir::Op::Mul, c.loc, {product, v}, next);
    product = next;
  }
  if (operands.empty()) bad("no operands");
  if (order.size() == out.size()) return product;
  std::vector<int64_t> summed;
  for (size_t a = out.size(); a < order.size(); ++a) summed.push_back(static_cast<int64_t>(a));
  std::vector<Value> s{product, intsTuple(summed), Value::boolean(false)};
  return runTensorOp(interp, ir::Op::Sum, s, c.loc);
}

}  // namespace

void addEinsumBuiltin(BuiltinTable& table) { table[ir::builtinInfo(ir::Builtin::Einsum).name] = bEinsum; }

}  // namespace nn::stdlib
