// A dict's keys(), values() and items() are live views of it, as Python's:
// their length and items follow the dict, and print shows them as
// `dict_keys(['a', 'b'])`. A for loop over a dict or one of its views
// reads an iterator that fails with Python's RuntimeError ("dictionary
// changed size during iteration") at the step after the loop's body adds
// or removes a key; replacing a value is allowed.
#pragma once

#include "runtime/value.h"

namespace nn::rt {

enum class DictPart { Keys, Values, Items };

Value makeDictView(const Value& dict, DictPart part);
Value makeDictIterator(const Value& dict, DictPart part);

}  // namespace nn::rt
