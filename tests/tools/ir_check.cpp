// FileCheck-style IR tests. The input file states what to do and what to
// expect in comment lines:
//   # RUN: lower        lower this .nn file to IR
//   # RUN: parse        parse this file as IR text
//   # RUN: parse dce    parse, then run the named pass(es)
//   # CHECK: TEXT       TEXT occurs on a later line of the printed IR
//   # CHECK-NEXT: TEXT  TEXT occurs on the line right after the last match
//   # CHECK-NOT: TEXT   TEXT does not occur before the next match
// Every printed graph must also verify and round-trip through the parser.
// Usage: ir_check FILE
//        ir_check --roundtrip SCRIPT.nn   lower + pipeline, round trip only
#include <iostream>
#include <sstream>

#include "frontend/lower.h"
#include "frontend/parse.h"
#include "ir/text.h"
#include "passes/passes.h"
#include "run_capture.h"
#include "runtime/constant_eval.h"
#include "stdlib/builtins.h"

namespace {

struct Check {
  std::string kind, text;
};

bool runChecks(const std::string& printed, const std::vector<Check>& checks, std::string& why) {
  std::vector<std::string> lines = splitLines(printed);
  size_t pos = 0;  // next line to search from
  std::vector<std::string> pendingNot;
  bool matchedAny = false;
  for (const Check& c : checks) {
    if (c.kind == "CHECK-NOT") {
      pendingNot.push_back(c.text);
      continue;
    }
    size_t found = std::string::npos;
    if (c.kind == "CHECK-NEXT") {
      if (matchedAny && pos < lines.size() && lines[pos].find(c.text) != std::string::npos) found = pos;
    } else {
      for (size_t i = pos; i < lines.size(); ++i)
        if (lines[i].find(c.text) != std::string::npos) {
          found = i;
          break;
        }
    }
    if (found == std::string::npos) {
      why = c.kind + ": '" + c.text + "' not matched after line " + std::to_string(pos);
      return false;
    }
    for (const std::string& n : pendingNot)
      for (size_t i = pos; i < found; ++i)
        if (lines[i].find(n) != std::string::npos) {
          why = "CHECK-NOT: '" + n + "' found on line " + std::to_string(i + 1);
          return false;
        }
    pendingNot.clear();
    pos = found + 1;
    matchedAny = true;
  }
  for (const std::string& n : pendingNot)
    for (size_t i = pos; i < lines.size(); ++i)
      if (lines[i].find(n) != std::string::npos) {
        why = "CHECK-NOT: '" + n + "' found on line " + std::to_string(i + 1);
        return false;
      }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool roundtripOnly = argc == 3 && std::string(argv[1]) == "--roundtrip";
  if (argc != 2 && !roundtripOnly) {
    std::cerr << "usage: ir_check [--roundtrip] FILE\n";
    return 2;
  }
  std::string path = argv[argc - 1];
  std::string text = readWholeFile(path);
  std::vector<std::string> run;
  if (roundtripOnly) run = {"lower", "infer-types"};
  std::vector<Check> checks;
  for (const std::string& line : splitLines(text)) {
    size_t hash = line.find("# ");
    if (hash == std::string::npos) continue;
    std::string rest = line.substr(hash + 2);
    for (const char* kind : {"RUN", "CHECK-NEXT", "CHECK-NOT", "CHECK"}) {
      std::string tag = std::string(kind) + ": ";
      if (rest.rfind(tag, 0) != 0 || roundtripOnly) continue;
      std::string body = rest.substr(tag.size());
      if (std::string(kind) == "RUN") {
        std::stringstream ss(body);
        for (std::string w; ss >> w;) run.push_back(w);
      } else {
        checks.push_back({kind, body});
      }
      break;
    }
  }
  nn::SourceManager sm;
  uint32_t file = sm.add(path, text);
  try {
    std::unique_ptr<nn::ir::Graph> g;
    if (run.empty()) throw std::runtime_error("no RUN line");
    if (run[0] == "lower") {
      nn::frontend::LowerOptions lo;
      lo.builtins = &nn::stdlib::builtinNames();
      g = nn::frontend::lowerModule(*nn::frontend::parseModule(sm, file), sm, lo);
    } else if (run[0] == "parse") {
      g = nn::ir::parse(sm, file);
    } else {
      throw std::runtime_error("unknown RUN action " + run[0]);
    }
    nn::ir::verify(*g);
    nn::passes::PassContext ctx;
    ctx.evaluator = nn::rt::constantEvaluator();  // fold-constants evaluates with the runtime
    for (size_t i = 1; i < run.size(); ++i) {
      const nn::passes::PassInfo* p = nn::passes::findPass(run[i]);
      if (!p) throw std::runtime_error("unknown pass " + run[i]);
      p->run(*g, ctx);
      nn::ir::verify(*g);
    }
    std::string printed = nn::ir::toString(*g);
    // Round trip: the printed text parses back to the same text.
    uint32_t again = sm.add(path + ".printed", printed);
    auto reparsed = nn::ir::parse(sm, again);
    nn::ir::verify(*reparsed);
    if (nn::ir::toString(*reparsed) != printed) {
      std::cerr << path << ": IR does not round-trip\n" << printed << "---- reparsed ----\n"
                << nn::ir::toString(*reparsed);
      return 1;
    }
    std::string why;
    if (!runChecks(printed, checks, why)) {
      std::cerr << path << ": " << why << "\n---- IR ----\n" << printed;
      return 1;
    }
    if (checks.empty() && !roundtripOnly) {
      std::cerr << path << ": no CHECK lines\n";
      return 1;
    }
  } catch (const nn::NnError& e) {
    nn::renderDiagnostic(sm, e.diag(), std::cerr);
    return 1;
  } catch (const std::exception& e) {
    std::cerr << path << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
