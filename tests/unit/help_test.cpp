// The builtin reference covers every builtin: each function, tensor method
// and method of lists, dicts, strs and tuples has an entry, and each entry
// of builtin_docs.def names one.
#include <gtest/gtest.h>

#include "ir/builtins.h"
#include "stdlib/builtins.h"
#include "stdlib/help.h"

namespace nn {

TEST(BuiltinDocs, EveryBuiltinFunctionHasAnEntry) {
  for (const std::string& name : stdlib::builtinNames()) {
    if (name.rfind('_', 0) == 0) continue;  // internal (the loaders behind stdlib modules)
    std::optional<stdlib::BuiltinDoc> d = stdlib::builtinDoc(name);
    ASSERT_TRUE(d) << name << " has no entry in stdlib/builtin_docs.def";
    EXPECT_FALSE(d->signature.empty()) << name;
    EXPECT_FALSE(d->summary.empty()) << name;
  }
}

TEST(BuiltinDocs, EveryTensorMethodHasAnEntry) {
  std::vector<std::string> methods = ir::tensorMethodNames();
  methods.insert(methods.end(), stdlib::tensorAttributeNames().begin(), stdlib::tensorAttributeNames().end());
  for (const std::string& m : methods) {
    std::optional<stdlib::BuiltinDoc> d = stdlib::builtinDoc("Tensor." + m);
    ASSERT_TRUE(d) << "Tensor." << m << " has no entry (its own, or its function's)";
    EXPECT_EQ(d->signature.rfind("x.", 0), 0u) << d->signature;
  }
}

TEST(BuiltinDocs, EveryListDictStrAndTupleMethodHasAnEntry) {
  const std::pair<const char*, rt::Value> samples[] = {
      {"list", rt::makeList({})}, {"dict", rt::makeDict()}, {"str", rt::Value::str("")}, {"tuple", rt::makeTuple({})}};
  for (const auto& [type, v] : samples)
    for (const std::string& m : stdlib::attributeNames(v)) {
      std::optional<stdlib::BuiltinDoc> d = stdlib::builtinDoc(std::string(type) + "." + m);
      ASSERT_TRUE(d) << type << "." << m << " has no entry in stdlib/builtin_docs.def";
      EXPECT_NE(d->signature.find("." + m + "("), std::string::npos) << d->signature;
    }
  EXPECT_FALSE(stdlib::builtinDoc("tuple.append"));  // a list's method, not a tuple's
}

TEST(BuiltinDocs, EveryEntryNamesABuiltin) {
  for (const std::string& name : stdlib::documentedNames())
    EXPECT_TRUE(stdlib::builtinDoc(name)) << "builtin_docs.def describes '" << name << "', which does not exist";
}

TEST(BuiltinDocs, OpSignaturesComeFromTheOpTable) {
  EXPECT_EQ(stdlib::builtinDoc("softmax")->signature, "softmax(x, axis=-1)");
  EXPECT_EQ(stdlib::builtinDoc("Tensor.softmax")->signature, "x.softmax(axis=-1)");
  EXPECT_EQ(stdlib::builtinDoc("Tensor.softmax")->summary, stdlib::builtinDoc("softmax")->summary);
  EXPECT_FALSE(stdlib::builtinDoc("no_such_builtin"));
}

}  // namespace nn
