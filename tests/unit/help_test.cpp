// The builtin reference covers every builtin: each function, tensor method
// and method of lists, dicts, strs and tuples has an entry, each entry of
// builtin_docs.def names one, and an entry shows by name exactly the
// keyword arguments its builtin is declared to take.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <sstream>

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
    // x.matmul() was shown for x.matmul(y): an op of two operands whose
    // method form has no signature of its own needs an entry.
    std::optional<ir::Op> op = ir::methodOp(m);
    if (op && ir::opInfo(*op).minOperands >= 2) {
      EXPECT_EQ(d->signature.find("()"), std::string::npos) << d->signature << " shows no operand";
    }
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

// The names `keywords` (rt::BuiltinObj's form) declares, and those a
// signature shows with a default ("sep" of "print(*values, sep=' ')").
std::set<std::string> declaredKeywords(const char* keywords) {
  std::set<std::string> out;
  std::istringstream in(keywords);
  for (std::string k; in >> k;) out.insert(k);
  return out;
}
// Of each form ("range(stop) | range(start, stop, step=1, /)"), those after
// its `/`, Python's mark of the positional-only parameters before it.
std::set<std::string> documentedKeywords(const std::string& signature) {
  std::set<std::string> out;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::istringstream forms(signature);
  for (std::string form; std::getline(forms, form, '|');) {
    size_t slash = form.rfind(", /");
    if (slash != std::string::npos) form = form.substr(slash);
    // Each name directly before an "=" (not std::regex: GCC 12 warns of
    // its own <regex> code at -O1 under the sanitizers).
    for (size_t eq = form.find('='); eq != std::string::npos; eq = form.find('=', eq + 1)) {
      size_t start = eq;
      while (start > 0 && word(form[start - 1])) --start;
      while (start < eq && std::isdigit(static_cast<unsigned char>(form[start]))) ++start;
      if (start < eq) out.insert(form.substr(start, eq - start));
    }
  }
  return out;
}

// A builtin takes by name exactly the parameters its entry shows with a
// default, so that help() never advertises a keyword the call refuses.
TEST(BuiltinDocs, DeclaredKeywordsAreTheDocumentedOnes) {
  for (const std::string& name : stdlib::builtinNames()) {
    rt::Value b = stdlib::makeBuiltin(name);
    if (!b.is(rt::Kind::Builtin) || name.rfind('_', 0) == 0) continue;
    const char* keywords = b.as<rt::BuiltinObj>().keywords;
    if (std::string(keywords) == "*") continue;  // matched by the builtin itself
    EXPECT_EQ(declaredKeywords(keywords), documentedKeywords(stdlib::builtinDoc(name)->signature)) << name;
  }
  const std::pair<const char*, rt::Value> samples[] = {
      {"list", rt::makeList({})}, {"dict", rt::makeDict()}, {"str", rt::Value::str("")}, {"tuple", rt::makeTuple({})}};
  for (const auto& [type, v] : samples)
    for (const std::string& m : stdlib::attributeNames(v)) {
      const char* keywords = stdlib::attribute(v, m, SourceLoc{}).as<rt::MethodObj>().keywords;
      if (std::string(keywords) == "*") continue;
      EXPECT_EQ(declaredKeywords(keywords), documentedKeywords(stdlib::builtinDoc(std::string(type) + "." + m)->signature))
          << type << "." << m;
    }
}

TEST(BuiltinDocs, OpSignaturesComeFromTheOpTable) {
  EXPECT_EQ(stdlib::builtinDoc("softmax")->signature, "softmax(x, axis=-1)");
  EXPECT_EQ(stdlib::builtinDoc("Tensor.softmax")->signature, "x.softmax(axis=-1)");
  EXPECT_EQ(stdlib::builtinDoc("Tensor.softmax")->summary, stdlib::builtinDoc("softmax")->summary);
  EXPECT_FALSE(stdlib::builtinDoc("no_such_builtin"));
}

}  // namespace nn
