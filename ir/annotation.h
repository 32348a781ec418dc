// A declared type (`x: Tensor[f32, (N, 784)]`, `-> list[int] | None`) and
// where it was written. The front end makes one from an annotation
// (frontend/annotations.cpp), calls are checked against it
// (runtime/annotations.h), and the IR prints and parses its text form:
//
//   annotation := item ('|' item)*
//   item := Any | None | Callable | int | float | bool | str | tensor types
//           (tensor, f32[...], f32[N, 784]) | list ['[' annotation ']']
//         | dict ['[' str ',' annotation ']']
//         | tuple ['[' (annotation (',' annotation)* [',' ...] | '()') ']']
//
// which is also how messages show it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/types.h"
#include "support/source.h"

namespace nn::ir {

struct Annotation {
  // How `args` refine `type`.
  enum class Form : uint8_t {
    Plain,  // `type` alone: a scalar, str, tensor, None, Callable, Any, or a bare list/dict/tuple
    Each,   // every item of a list or tuple, or value of a dict, matches args[0]
    Items,  // a tuple whose items match args one for one (tuple[int, str], tuple[()])
    Union,  // one of args matches (`int | None`, Optional[int]); `type` is any
  };

  // The type a value so declared has in the IR: the kind (with a tensor's
  // dtype and shape) or any (Any, a union).
  Type type;
  SourceLoc loc;
  Form form = Form::Plain;
  std::vector<Annotation> args;

  static Annotation of(Type t) {
    Annotation a;
    a.type = std::move(t);
    return a;
  }
  std::string str() const;
  static std::optional<Annotation> parse(std::string_view text);
};

}  // namespace nn::ir
