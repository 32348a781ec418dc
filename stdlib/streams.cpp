// sys.stdout and sys.stderr: the host's output streams as values
// (Kind::Stream), with Python's text-file methods write(s) and flush(),
// and the stream print(file=...) writes to. Stream 1 is where print
// writes, stream 2 where warnings go (the embedding API's nn_set_output
// numbers them so); a progress bar on the terminal is cleared before
// either is written, as print clears it.
#include "runtime/status_line.h"
#include "stdlib/builtins.h"
#include "support/suggest.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

std::ostream& hostStream(CallContext& c, const Value& stream) {
  c.interp.host().statusLine()->clear();
  return stream.asInt() == 2 ? c.interp.host().err() : c.interp.host().out();
}

// write(s): writes s and returns its length in characters, as Python's.
Value streamWrite(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  if (!args[1].is(Kind::Str))
    fail(c.loc, std::string("write() argument must be str, not ") + typeName(args[1]), ErrorClass::TypeError);
  const std::string& s = args[1].asStr();
  hostStream(c, args[0]) << s;
  int64_t characters = 0;
  for (char ch : s) characters += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return Value::integer(characters);
}

Value streamFlush(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  hostStream(c, args[0]).flush();
  return Value::none();
}

}  // namespace

const std::vector<std::string>& streamAttributeNames() {
  static const std::vector<std::string> names = {"flush", "write"};
  return names;
}

Value streamAttribute(const Value& stream, const std::string& name, SourceLoc loc) {
  BuiltinFn fn = name == "write" ? streamWrite : name == "flush" ? streamFlush : nullptr;
  if (!fn)
    fail(loc, "'_io.TextIOWrapper' object has no attribute '" + name + "'" + didYouMean(name, streamAttributeNames()),
         ErrorClass::AttributeError);
  auto m = std::make_shared<MethodObj>();
  m->self = stream;
  m->name = name;
  m->fn = fn;
  m->keywords = "";
  return Value::object(Kind::Method, std::move(m));
}

std::ostream& printStream(CallContext& c, const Value* file) {
  if (!file || file->is(Kind::None)) return hostStream(c, Value::stream(1));
  if (!file->is(Kind::Stream)) {
    std::string python = std::string("'") + typeName(*file) + "' object has no attribute 'write'";
    fail(c.loc, python + " (print's file= takes sys.stdout or sys.stderr)", ErrorClass::AttributeError, python);
  }
  return hostStream(c, *file);
}

}  // namespace nn::stdlib
