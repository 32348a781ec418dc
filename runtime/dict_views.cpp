// Dict views and the iterators of loops over dicts (see dict_views.h).
#include "runtime/dict_views.h"

namespace nn::rt {
namespace {

Value partOf(const DictObj& d, DictPart part, size_t i) {
  const auto& [key, value] = d.items[i];
  switch (part) {
    case DictPart::Keys: return Value::str(key);
    case DictPart::Values: return value;
    case DictPart::Items: return makeTuple({Value::str(key), value});
  }
  return Value::none();
}

// What a view and an iterator share: the dict and the part they read.
class DictReader : public LazySeqObj {
 public:
  DictReader(Value dict, DictPart part) : dict_(std::move(dict)), part_(part) {}
  void forEachHeldValue(const std::function<void(Value&)>& f) override { f(dict_); }

 protected:
  const DictObj& dictOf() const { return dict_.as<DictObj>(); }
  Value dict_;
  DictPart part_;
};

class DictIterator final : public DictReader {
 public:
  DictIterator(Value dict, DictPart part)
      : DictReader(std::move(dict), part), size_(dictOf().items.size()), version_(dictOf().keyVersion) {}
  const char* typeName() const override {
    static const char* const names[] = {"dict_keyiterator", "dict_valueiterator", "dict_itemiterator"};
    return names[static_cast<int>(part_)];
  }
  // One more item than the dict had once its keys change, so that the loop
  // takes one more step, and that step fails (as Python's next() checks
  // before it looks for the end).
  int64_t length() const override {
    return static_cast<int64_t>(size_) + (dictOf().keyVersion != version_ ? 1 : 0);
  }
  Value at(int64_t i, SourceLoc loc) override {
    const DictObj& d = dictOf();
    if (d.keyVersion != version_ || static_cast<size_t>(i) >= d.items.size())
      fail(loc,
           d.items.size() != size_ ? "dictionary changed size during iteration"
                                   : "dictionary keys changed during iteration",
           ErrorClass::RuntimeError);
    return partOf(d, part_, static_cast<size_t>(i));
  }
  bool quickAt(int64_t i, Value& out) override {
    const DictObj& d = dictOf();
    if (d.keyVersion != version_ || i < 0 || static_cast<size_t>(i) >= d.items.size()) return false;
    // A value is assigned as it is, without a temporary (a comprehension
    // over d.values() takes this per item).
    if (part_ == DictPart::Values) {
      out = d.items[static_cast<size_t>(i)].second;
      return true;
    }
    try {
      out = partOf(d, part_, static_cast<size_t>(i));  // a key's str may pass the memory limit
    } catch (...) {
      return false;
    }
    return true;
  }

 private:
  size_t size_;
  uint64_t version_;
};

class DictView final : public DictReader {
 public:
  using DictReader::DictReader;
  const char* typeName() const override {
    static const char* const names[] = {"dict_keys", "dict_values", "dict_items"};
    return names[static_cast<int>(part_)];
  }
  int64_t length() const override { return static_cast<int64_t>(dictOf().items.size()); }
  // list(), sorted(), unpacking: every item as the dict holds it now.
  Value at(int64_t i, SourceLoc loc) override {
    if (static_cast<size_t>(i) >= dictOf().items.size())
      fail(loc, "dictionary changed size during iteration", ErrorClass::RuntimeError);
    return partOf(dictOf(), part_, static_cast<size_t>(i));
  }
  std::string show(const std::function<std::string(const Value&)>& reprOf) const override {
    std::string s = std::string(typeName()) + "([";
    const DictObj& d = dictOf();
    for (size_t i = 0; i < d.items.size(); ++i) {
      s += (i ? ", " : "") + reprOf(partOf(d, part_, i));
      checkHostAllocation(s.size(), 1);
    }
    return s + "])";
  }
  Value loopView(const Value&) const override { return makeDictIterator(dict_, part_); }
};

}  // namespace

Value makeDictView(const Value& dict, DictPart part) {
  return Value::object(Kind::Lazy, std::make_shared<DictView>(dict, part));
}

Value makeDictIterator(const Value& dict, DictPart part) {
  return Value::object(Kind::Lazy, std::make_shared<DictIterator>(dict, part));
}

}  // namespace nn::rt
