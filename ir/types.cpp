// Printing and parsing of IR type names.
#include "ir/types.h"

namespace nn::ir {

static const char* const kTypeNames[] = {"any", "none", "bool", "int", "float", "str",
                                         "tuple", "list", "dict", "func", "module", "tensor"};

std::string Type::str() const { return kTypeNames[static_cast<int>(kind)]; }

std::optional<Type> Type::parse(std::string_view text) {
  for (int i = 0; i < static_cast<int>(std::size(kTypeNames)); ++i)
    if (text == kTypeNames[i]) return Type{static_cast<TypeKind>(i)};
  return std::nullopt;
}

}  // namespace nn::ir
