// The builtin reference: one entry (signature, one-line summary) per
// builtin function and tensor method, read by help(x), the REPL's :help and
// the generated docs/builtins.md, so that the three never disagree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stdlib/builtins.h"

namespace nn::stdlib {

struct BuiltinDoc {
  std::string name;       // "softmax", "Tensor.item"
  std::string signature;  // "softmax(x, axis=-1)", "x.item()"
  std::string summary;
};

// The entry of a builtin function, or of "Tensor.NAME" for a tensor method
// or attribute; nullopt when there is no such builtin.
std::optional<BuiltinDoc> builtinDoc(const std::string& name);
// The names builtin_docs.def describes (its test checks them).
std::vector<std::string> documentedNames();
// Every builtin function's entry, then every tensor method's, by name.
std::vector<BuiltinDoc> builtinReference();
// docs/builtins.md: the reference as Markdown (nn --builtin-reference).
std::string builtinReferenceMarkdown();

// help and dir.
void addHelpBuiltins(BuiltinTable& table);

}  // namespace nn::stdlib
