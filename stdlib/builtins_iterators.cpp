// iter(x) and next(it[, default]): an iterator is a position in the loop's
// view of x (interpreter.h's iterable). next takes the item there; a for
// loop over the iterator, list(it), enumerate(it) and the rest take the
// items from there on and leave the position after the last one taken, as
// Python's iterators do (`x, y = next(iter(data.batches(...)))` peeks at a
// batch). iter of an iterator is itself.
#include "ir/builtins.h"
#include "runtime/interpreter.h"
#include "stdlib/builtins.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// Every consumer reads the items in order, each once: at(i) takes the next
// item, whatever i (a consumer asks for 0, 1, 2, ... as Python's next()
// would be called).
class Iterator final : public LazySeqObj {
 public:
  Iterator(Value view, std::string name) : view_(std::move(view)), name_(std::move(name)) {}
  const char* typeName() const override { return name_.c_str(); }
  // The items left (list(it), sorted(it): the rest).
  int64_t length() const override { return std::max<int64_t>(0, iterLength(view_) - position_); }
  Value at(int64_t, SourceLoc loc) override { return next(loc); }
  // A loop reads a view of its own, which counts the items it took.
  Value loopView(const Value& self) const override;
  void forEachHeldValue(const std::function<void(Value&)>& f) override { f(view_); }

  Value next(SourceLoc loc) {
    Value v = iterItem(view_, position_, loc);
    ++position_;
    return v;
  }

 private:
  Value view_;
  std::string name_;
  int64_t position_ = 0;
};

// A loop over an iterator: it goes on while items are left, however many
// the body takes itself with next(it) (a loop's cond asks for the length
// with i = the items the loop took).
class IteratorLoop final : public LazySeqObj {
 public:
  explicit IteratorLoop(Value iterator) : iterator_(std::move(iterator)) {}
  const char* typeName() const override { return iterator().typeName(); }
  int64_t length() const override { return taken_ + iterator().length(); }
  Value at(int64_t, SourceLoc loc) override {
    // Only another reader of the same iterator in the same step (zip(it,
    // it)) can take the item the length promised.
    if (iterator().length() == 0)
      fail(loc, "an iterator read twice in one step (as zip(it, it)) is not supported",
           ErrorClass::NotImplementedError);
    ++taken_;
    return iterator().next(loc);
  }
  void forEachHeldValue(const std::function<void(Value&)>& f) override { f(iterator_); }

 private:
  Iterator& iterator() const { return iterator_.as<Iterator>(); }
  Value iterator_;
  int64_t taken_ = 0;
};

Value Iterator::loopView(const Value& self) const {
  return Value::object(Kind::Lazy, std::make_shared<IteratorLoop>(self));
}

bool isIterator(const Value& v) { return v.is(Kind::Lazy) && dynamic_cast<const Iterator*>(v.ptr()) != nullptr; }

Value bIter(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  if (isIterator(args[0])) return args[0];
  std::string name = std::string(typeName(args[0])) + "_iterator";
  return Value::object(Kind::Lazy, std::make_shared<Iterator>(iterable(args[0], c.loc), std::move(name)));
}

Value bNext(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 2);
  if (!isIterator(args[0]))
    fail(c.loc, std::string("'") + typeName(args[0]) + "' object is not an iterator", ErrorClass::TypeError);
  auto& it = args[0].as<Iterator>();
  if (it.length() == 0) {
    if (args.size() == 2) return args[1];
    fail(c.loc, "StopIteration", ErrorClass::StopIteration);
  }
  return it.next(c.loc);
}

}  // namespace

void addIteratorBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Iter).name] = bIter;
  table[ir::builtinInfo(ir::Builtin::Next).name] = bNext;
}

}  // namespace nn::stdlib
