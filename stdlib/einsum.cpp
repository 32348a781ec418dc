// einsum(equation, *operands): Einstein summation as PyTorch's, composed of
// tensor ops (permute, reshape, sum, matmul) run where a tape sees them,
// so that it differentiates in both modes. The operands are contracted
// pairwise from the left, each pair as one batched matrix product over the
// letters they share (contractPair), so that no product of every letter's size
// is ever made ("bij,jk->bik" of [128, 16, 256] and [256, 1024] took 0.7 s
// and 2 GB that way). '...' stands for the dims the letters leave,
// broadcast across the operands as NumPy aligns them; a letter repeated
// within one operand takes its diagonal first.
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

// The operand's diagonal over its dims d1 < d2 (of one size): the elements
// off it replaced by 0 (a where, so an infinity there does not become NaN)
// and the rest summed over d2, with ops the tape records, so a repeated
// subscript ("ii->i", "ii") differentiates.
Value diagonalOf(CallContext& c, const Value& v, size_t d1, size_t d2) {
  const Tensor& t = tensorOf(v);
  int64_t n = t.dim(static_cast<int>(d1));
  std::vector<int64_t> layout(static_cast<size_t>(t.ndim()), 1);
  layout[d1] = layout[d2] = n;
  Value mask = makeTensorValue(reshape(eye(DType::Bool, n, n, t.device(), c.loc), layout, c.loc));
  Value zero = isFloating(t.dtype()) ? Value::real(0.0) : Value::integer(0);
  Value masked = whereOp(mask, v, zero, c.loc);
  if (Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::Where, c.loc, {mask, v, zero}, masked);
  std::vector<Value> s{masked, intsTuple({static_cast<int64_t>(d2)}), Value::boolean(false)};
  return runTensorOp(c.interp, ir::Op::Sum, s, c.loc);
}

// An operand and its subscript letters, one per dim.
struct Term {
  Value v;
  std::string letters;
};

bool has(const std::string& letters, char l) { return letters.find(l) != std::string::npos; }

std::string lettersNotIn(const std::string& letters, const std::string& others) {
  std::string r;
  for (char l : letters)
    if (!has(others, l)) r += l;
  return r;
}

int64_t letterSize(const Term& t, char l) {  // l one of t's letters
  return tensorOf(t.v).dim(static_cast<int64_t>(t.letters.find(l)));
}

std::vector<int64_t> letterSizes(const Term& t, const std::string& letters) {
  std::vector<int64_t> r;
  for (char l : letters) r.push_back(letterSize(t, l));
  return r;
}

// t summed over the dims of the letters in `drop`.
void sumLetters(CallContext& c, Term& t, const std::string& drop) {
  std::vector<int64_t> axes;
  std::string kept;
  for (size_t d = 0; d < t.letters.size(); ++d) {
    if (has(drop, t.letters[d]))
      axes.push_back(static_cast<int64_t>(d));
    else
      kept += t.letters[d];
  }
  if (axes.empty()) return;
  std::vector<Value> s{t.v, intsTuple(axes), Value::boolean(false)};
  t.v = runTensorOp(c.interp, ir::Op::Sum, s, c.loc);
  t.letters = kept;
}

// v in `shape`, through a reshape where it has another.
Value reshapedTo(CallContext& c, const Value& v, const std::vector<int64_t>& shape) {
  const Shape& now = tensorOf(v).shape();
  if (std::vector<int64_t>(now.begin(), now.end()) == shape) return v;
  std::vector<Value> r{v, intsTuple(shape)};
  return runTensorOp(c.interp, ir::Op::Reshape, r, c.loc);
}

// t's dims in the order of `order` (its letters, or more: those it lacks
// are dims of size 1), reshaped to `shape`.
Value arranged(CallContext& c, const Term& t, const std::string& order, const std::vector<int64_t>& shape) {
  std::vector<int64_t> perm;
  for (char l : order)
    if (has(t.letters, l)) perm.push_back(static_cast<int64_t>(t.letters.find(l)));
  Value v = t.v;
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (!identity) {
    std::vector<Value> p{v, intsTuple(perm)};
    v = runTensorOp(c.interp, ir::Op::Permute, p, c.loc);
  }
  return reshapedTo(c, v, shape);
}

int64_t elementCount(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The product of a and b summed over the letters they share that `keep`
// lacks, as one (batched) matrix product: a as [batch..., M, K], b as
// [batch..., K, N], where the batch letters are those both have and keep
// has (broadcast as matmul broadcasts), K the summed ones, M and N each
// one's own. A letter only one of them has and keep lacks is summed out of
// it first; a summed letter of size 1 in one of them (broadcast) is
// summed out of the other.
Term contractPair(CallContext& c, Term a, Term b, const std::string& keep) {
  sumLetters(c, a, lettersNotIn(lettersNotIn(a.letters, b.letters), keep));
  sumLetters(c, b, lettersNotIn(lettersNotIn(b.letters, a.letters), keep));
  std::string batch, summed, broadcastOnce;
  for (char l : a.letters) {
    if (!has(b.letters, l)) continue;
    if (has(keep, l))
      batch += l;
    else if (letterSize(a, l) != letterSize(b, l))
      broadcastOnce += l;
    else
      summed += l;
  }
  for (char l : broadcastOnce) {
    bool inA = letterSize(a, l) == 1;
    sumLetters(c, inA ? a : b, std::string(1, l));  // a dim of size 1: dropped
    sumLetters(c, inA ? b : a, std::string(1, l));
  }
  std::string left = lettersNotIn(a.letters, b.letters), right = lettersNotIn(b.letters, a.letters);
  std::vector<int64_t> leftDims = letterSizes(a, left), rightDims = letterSizes(b, right),
                       sumDims = letterSizes(a, summed);
  std::vector<int64_t> aShape = letterSizes(a, batch), bShape = letterSizes(b, batch), outShape;
  for (size_t i = 0; i < batch.size(); ++i) outShape.push_back(std::max(aShape[i], bShape[i]));
  aShape.push_back(elementCount(leftDims));
  aShape.push_back(elementCount(sumDims));
  bShape.push_back(elementCount(sumDims));
  bShape.push_back(elementCount(rightDims));
  Value r = binary(c, ir::Op::MatMul, arranged(c, a, batch + left + summed, aShape),
                   arranged(c, b, batch + summed + right, bShape));
  outShape.insert(outShape.end(), leftDims.begin(), leftDims.end());
  outShape.insert(outShape.end(), rightDims.begin(), rightDims.end());
  return {reshapedTo(c, r, outShape), batch + left + right};
}

// Bool operands: each laid out over every letter (the output's first, then
// the summed ones, size 1 where it lacks one), multiplied with
// broadcasting, and the summed letters reduced.
Value productSummed(CallContext& c, const std::vector<Term>& ts, const std::string& out, const std::string& seen) {
  std::string order = out;
  for (char l : seen)
    if (!has(out, l)) order += l;
  Value product;
  for (size_t k = 0; k < ts.size(); ++k) {
    std::vector<int64_t> shape;
    for (char l : order) shape.push_back(has(ts[k].letters, l) ? letterSize(ts[k], l) : 1);
    Value v = arranged(c, ts[k], order, shape);
    if (k == 0) {
      product = v;
      continue;
    }
    product = binary(c, ir::Op::Mul, product, v);
  }
  if (order.size() == out.size()) return product;
  std::vector<int64_t> summed;
  for (size_t a = out.size(); a < order.size(); ++a) summed.push_back(static_cast<int64_t>(a));
  std::vector<Value> s{product, intsTuple(summed), Value::boolean(false)};
  return runTensorOp(c.interp, ir::Op::Sum, s, c.loc);
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
  // "..." becomes one '.' (a lone '.' is an error); the dims it stands for
  // get letters of their own below, chars 1 .. 31, which no equation has.
  auto ellipses = [&](std::string text) {
    std::string r;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '.') {
        r += text[i];
        continue;
      }
      if (text.compare(i, 3, "...") != 0) bad("a '.' that is not part of '...'");
      r += '.';
      i += 2;
    }
    return r;
  };
  size_t arrow = eq.find("->");
  std::string lhs = ellipses(eq.substr(0, arrow));
  std::vector<std::string> terms{""};
  for (char ch : lhs) {
    if (ch == ',') terms.emplace_back();
    else if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '.') terms.back() += ch;
    else bad(std::string("'") + ch + "' is not a subscript letter");
  }
  if (terms.size() != operands.size())
    bad("the equation has " + std::to_string(terms.size()) + " operand(s) but " + std::to_string(operands.size()) +
        " tensor(s) were given");
  if (operands.empty()) bad("no operands");
  auto name = [](char l) { return l < ' ' ? std::string("a dim of '...'") : std::string("subscript '") + l + "'"; };
  // The dims '...' stands for, right-aligned across the operands as
  // broadcasting aligns them.
  size_t broadcastRank = 0;
  std::vector<size_t> spans(terms.size(), 0);
  for (size_t k = 0; k < terms.size(); ++k) {
    if (!operands[k].is(Kind::Tensor)) bad("operand " + std::to_string(k) + " is a " + typeName(operands[k]) + ", not a Tensor");
    const std::string& term = terms[k];
    size_t dots = std::count(term.begin(), term.end(), '.');
    size_t rank = static_cast<size_t>(tensorOf(operands[k]).ndim());
    if (dots > 1) bad("operand " + std::to_string(k) + " has '...' more than once");
    if (dots == 1 && rank + 1 < term.size())
      bad("subscripts '" + term.substr(0, term.find('.')) + "..." + term.substr(term.find('.') + 1) +
          "' need more dims than operand " + std::to_string(k) + " " + typeString(tensorOf(operands[k])) + " has");
    spans[k] = dots ? rank + 1 - term.size() : 0;
    broadcastRank = std::max(broadcastRank, spans[k]);
  }
  if (broadcastRank > 31) bad("'...' stands for more than 31 dims");
  std::string broadcastLetters;
  for (size_t i = 0; i < broadcastRank; ++i) broadcastLetters += static_cast<char>(1 + i);
  for (size_t k = 0; k < terms.size(); ++k) {
    size_t at = terms[k].find('.');
    if (at != std::string::npos) terms[k].replace(at, 1, broadcastLetters.substr(broadcastRank - spans[k]));
  }
  // The implicit output counts the letters as written ("ii" sums i).
  std::map<char, int64_t> uses;
  for (const std::string& term : terms)
    for (char l : term) ++uses[l];
  // A letter repeated within one operand takes that operand's diagonal.
  for (size_t k = 0; k < terms.size(); ++k) {
    for (size_t d2 = 0; d2 < terms[k].size(); ++d2) {
      size_t d1 = terms[k].find(terms[k][d2]);
      if (d1 == d2 || static_cast<int64_t>(terms[k].size()) != tensorOf(operands[k]).ndim()) continue;
      const Tensor& t = tensorOf(operands[k]);
      if (t.dim(static_cast<int>(d1)) != t.dim(static_cast<int>(d2)))
        bad(name(terms[k][d2]) + " is repeated in operand " + std::to_string(k) + " with sizes " +
            std::to_string(t.dim(static_cast<int>(d1))) + " and " + std::to_string(t.dim(static_cast<int>(d2))));
      operands[k] = diagonalOf(c, operands[k], d1, d2);
      terms[k].erase(d2, 1);
      --d2;
    }
  }
  std::map<char, int64_t> size;
  std::string seen;  // letters by first appearance
  for (size_t k = 0; k < terms.size(); ++k) {
    const Tensor& t = tensorOf(operands[k]);
    if (static_cast<int64_t>(terms[k].size()) != t.ndim())
      bad("subscripts '" + terms[k] + "' do not match the " + std::to_string(t.ndim()) + " dims of operand " +
          std::to_string(k) + " " + typeString(t));
    for (size_t d = 0; d < terms[k].size(); ++d) {
      char l = terms[k][d];
      int64_t n = t.dim(static_cast<int64_t>(d));
      auto it = size.find(l);
      if (it == size.end()) {
        size[l] = n;
        seen += l;
      } else if (it->second != n && it->second != 1 && n != 1) {
        bad(name(l) + " has size " + std::to_string(n) + " in operand " + std::to_string(k) + " but " +
            std::to_string(it->second) + " before");
      } else {
        it->second = std::max(it->second, n);
      }
    }
  }
  std::string out;
  if (arrow == std::string::npos) {
    out = broadcastLetters;  // '...' first, then the letters used once, alphabetically
    for (const auto& [l, n] : uses)
      if (n == 1 && l >= ' ') out += l;
  } else {
    std::string written = ellipses(eq.substr(arrow + 2));
    for (char ch : written) {
      if (ch == '.') out += broadcastLetters;
      else if (!std::isalpha(static_cast<unsigned char>(ch))) bad(std::string("'") + ch + "' is not a subscript letter");
      else out += ch;
    }
    if (std::count(written.begin(), written.end(), '.') > 1) bad("the output has '...' more than once");
    for (size_t i = 0; i < out.size(); ++i) {
      if (!size.count(out[i])) bad(std::string("output subscript '") + out[i] + "' is not in any operand");
      if (out.find(out[i]) != i) bad(std::string("output subscript '") + out[i] + "' appears more than once");
    }
  }
  std::vector<Term> ts;
  for (size_t k = 0; k < operands.size(); ++k) ts.push_back({operands[k], terms[k]});
  // Bool operands keep the product of all of them summed (a matrix
  // product of bools is not PyTorch's); the others contract pairwise.
  bool bools = std::any_of(ts.begin(), ts.end(), [](const Term& t) { return tensorOf(t.v).dtype() == DType::Bool; });
  if (bools) return productSummed(c, ts, out, seen);
  // Left to right, as PyTorch's: each product keeps the letters the output
  // or a later operand has.
  Term result = ts[0];
  for (size_t k = 1; k < ts.size(); ++k) {
    std::string keep = out;
    for (size_t j = k + 1; j < ts.size(); ++j) keep += ts[j].letters;
    result = contractPair(c, result, ts[k], keep);
  }
  sumLetters(c, result, lettersNotIn(result.letters, out));
  return arranged(c, result, out, letterSizes(result, out));
}

}  // namespace

void addEinsumBuiltin(BuiltinTable& table) { table[ir::builtinInfo(ir::Builtin::Einsum).name] = bEinsum; }

}  // namespace nn::stdlib
