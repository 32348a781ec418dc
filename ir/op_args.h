// The arguments of one tensor op bound to the parameters of its signature
// (ops.def, op_signature.h), as the compiler sees them: from an op node
// (its operands and attributes) or from a call of the op's builtin (its
// positional and keyword arguments; an attribute is known when its
// argument is a constant). Shape rules read these; the builtin-ops pass
// turns a call whose attributes are all constants into the op node; the
// gradient rules of the autodiff issue read the same view.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/ir.h"
#include "ir/op_signature.h"

namespace nn::ir {

struct BoundArg {
  const Value* value = nullptr;     // an operand, or an attribute passed as a value (null: absent)
  std::vector<const Value*> items;  // a variadic parameter's values
  std::optional<Attr> constant;     // an attribute's value, when known
  bool given = false;               // passed by the call (else the default applies)
};

class OpArgs {
 public:
  OpArgs(Op op, SourceLoc loc) : op_(op), loc_(loc), sig_(&signatureOf(op)), args_(sig_->params.size()) {}
  Op op() const { return op_; }
  SourceLoc loc() const { return loc_; }
  const Signature& signature() const { return *sig_; }
  const BoundArg& arg(size_t i) const { return args_[i]; }
  BoundArg& arg(size_t i) { return args_[i]; }
  const BoundArg& arg(std::string_view name) const;

  // The operand parameter `name`'s value; null when absent or None.
  const Value* operand(std::string_view name) const;
  // The operand parameters in signature order (null where absent).
  std::vector<const Value*> operands() const;
  // Attribute `name`'s constant of the kind asked for; nullopt when not
  // known at compile time or of another kind.
  std::optional<int64_t> intAttr(std::string_view name) const;
  std::optional<bool> boolAttr(std::string_view name) const;
  std::optional<std::string> strAttr(std::string_view name) const;
  bool isNone(std::string_view name) const;
  // A dtype attribute: `present` says whether it is given (not None);
  // the result is its dtype when known.
  std::optional<DType> dtypeAttr(std::string_view name, bool& present) const;
  // An `ints` attribute element by element (a constant or unknown);
  // nullopt when its argument is not a sequence of ints.
  std::optional<std::vector<std::optional<int64_t>>> dims(std::string_view name) const;
  // Whether every attribute is a known constant (the call can become the
  // op node).
  bool attributesKnown() const;

 private:
  Op op_;
  SourceLoc loc_;
  const Signature* sig_;
  std::vector<BoundArg> args_;
};

// Binds arguments of a call of op `op`'s builtin to the op's signature;
// nullopt when they do not fit (the runtime reports why).
std::optional<OpArgs> bindArgs(Op op, SourceLoc loc, const std::vector<const Value*>& positional,
                               const std::vector<std::string>& kwnames, const std::vector<const Value*>& kwvalues);
// The same for call node `call` (callee, positional..., keyword values...).
std::optional<OpArgs> bindCall(const Node& call, Op op);
// The arguments of a tensor op node.
OpArgs argsOf(const Node& n);
// `v` as a constant for parameter `p` (an attribute of p's type); nullopt
// when it is not one.
std::optional<Attr> constantAttr(const Value* v, const Param& p);
// The value of an int constant (a `const` node's int), or nullopt.
std::optional<int64_t> constInt(const Value* v);

}  // namespace nn::ir
