// Runs one end-to-end .nn test script in one mode and checks it against the
// expectations written in the script itself:
//   # expect: TEXT                 the next line of stdout is TEXT
//   # expect-error: L:C: FRAGMENT  the run fails (exit 1) with a diagnostic
//                                  at line L, column C whose message
//                                  contains FRAGMENT
//   # expect-error: F.nn:L:C: FRAG  the same, in file F.nn beside the script
//   # expect-trace: L:C             the error trace has "called from" L:C
//   # args: A B C                  extra script arguments
//   # flags: --X --Y               extra nn options (before the script)
//   # expect-eager: TEXT           like expect, in eager mode only
//   # expect-graph: TEXT           like expect, in graph mode only
//                                  (graph mode compiles a function before
//                                  running it, so its compile-time errors
//                                  come before the function's output)
//   # expect-error-graph: L:C: F   like expect-error, in graph mode only
//   # expect-stderr: TEXT          stderr contains TEXT
//   # expect-stderr-graph: TEXT    the same, in graph mode only (eager too)
// MODE is eager; graph (graph mode with `--jit always`: elementwise
// chains fused and compiled to native code by the JIT at their first run,
// and every loop compiled as native glue at its first iteration, so that
// the scripts meet the compiled code and not only the executor that runs
// nodes until they are hot); tiered (the default graph mode, `--jit on`:
// compiled once hot); nojit (graph mode without the JIT, op by op); parallel (graph mode with `--schedule parallel`: every
// block with independent nodes runs on the thread pool, whether or not
// that pays, so the parallel executor meets every script; and with
// `--jit off --fusion on`, so fused nodes run op by op over tiles, the
// path of nodes the JIT does not compile); or check: `nn --check eager`
// (graph mode's output and expectations, JIT-compiled at first runs, and
// the report that both modes agree on every value).
// Usage: script_runner NN_BINARY MODE SCRIPT
#include <algorithm>
#include <iostream>

#include "run_capture.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: script_runner NN MODE SCRIPT\n";
    return 2;
  }
  std::string nn = argv[1], runMode = argv[2], script = argv[3];
  bool check = runMode == "check", parallel = runMode == "parallel", nojit = runMode == "nojit";
  bool tiered = runMode == "tiered";
  std::string mode = check || parallel || nojit || tiered ? "graph" : runMode;
  std::vector<std::string> expected;
  std::string errorLoc, errorFragment, traceLoc;
  std::vector<std::string> flags, scriptArgs, stderrFragments;
  auto words = [](const std::string& rest, std::vector<std::string>& into) {
    size_t s = 0;
    while (s < rest.size()) {
      size_t e = rest.find(' ', s);
      if (e == std::string::npos) e = rest.size();
      if (e > s) into.push_back(rest.substr(s, e - s));
      s = e + 1;
    }
  };
  for (const std::string& line : splitLines(readWholeFile(script))) {
    auto at = [&](const char* tag) {
      size_t p = line.find(tag);
      return p == std::string::npos ? std::string::npos : p + std::string(tag).size();
    };
    if (size_t p = at("# expect: "); p != std::string::npos) {
      expected.push_back(trimRight(line.substr(p)));
    } else if (size_t p = at(("# expect-" + mode + ": ").c_str()); p != std::string::npos) {
      expected.push_back(trimRight(line.substr(p)));
    } else if (size_t p = at(("# expect-stderr-" + mode + ": ").c_str()); p != std::string::npos) {
      stderrFragments.push_back(trimRight(line.substr(p)));
    } else if (size_t p = at("# expect-stderr: "); p != std::string::npos) {
      stderrFragments.push_back(trimRight(line.substr(p)));
    } else if (size_t p = at("# flags: "); p != std::string::npos) {
      words(trimRight(line.substr(p)), flags);
    } else if (line.find("# expect:") != std::string::npos && trimRight(line).size() == line.find("# expect:") + 9) {
      expected.push_back("");  // "# expect:" alone: an empty line
    } else if (size_t p = std::min(at("# expect-error: "), at(("# expect-error-" + mode + ": ").c_str()));
               p != std::string::npos) {
      std::string rest = line.substr(p);
      size_t sep = rest.find(": ");
      errorLoc = rest.substr(0, sep);
      errorFragment = rest.substr(sep + 1);
      while (!errorFragment.empty() && errorFragment[0] == ' ') errorFragment.erase(0, 1);
    } else if (size_t p = at("# expect-trace: "); p != std::string::npos) {
      traceLoc = trimRight(line.substr(p));
    } else if (size_t p = at("# args: "); p != std::string::npos) {
      words(trimRight(line.substr(p)), scriptArgs);
    }
  }
  std::vector<std::string> args{nn, "--mode", mode};
  if (mode == "graph") args.insert(args.end(), {"--jit", "always"});
  if (tiered) args = {nn, "--mode", "graph"};
  if (check) args = {nn, "--jit", "always", "--check", "eager"};
  if (parallel) args = {nn, "--mode", "graph", "--schedule", "parallel", "--jit", "off", "--fusion", "on"};
  if (nojit) args = {nn, "--mode", "graph", "--jit", "off"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(script);
  args.insert(args.end(), scriptArgs.begin(), scriptArgs.end());
  Captured r = runCapture(args, "", false);
  std::vector<std::string> out = splitLines(r.out);
  bool ok = true;
  auto failWith = [&](const std::string& msg) {
    std::cerr << script << " [" << runMode << "]: " << msg << "\n";
    ok = false;
  };
  for (size_t i = 0; i < std::max(out.size(), expected.size()); ++i) {
    std::string got = i < out.size() ? trimRight(out[i]) : "<missing>";
    std::string want = i < expected.size() ? expected[i] : "<nothing>";
    if (got != want) {
      failWith("stdout line " + std::to_string(i + 1) + ":\n  expected: " + want + "\n  got:      " + got);
      break;
    }
  }
  for (const std::string& f : stderrFragments)
    if (r.err.find(f) == std::string::npos) failWith("stderr does not contain '" + f + "'");
  if (errorLoc.empty()) {
    if (r.status != 0) failWith("exit status " + std::to_string(r.status));
    if (check && r.err.find("check: graph and eager mode agree") == std::string::npos)
      failWith("no report that graph and eager mode agree");
    for (const std::string& l : splitLines(r.err))
      if (l.rfind("error", 0) == 0) failWith("unexpected error output");
  } else {
    if (r.status != 1) failWith("expected exit status 1, got " + std::to_string(r.status));
    // "L:C" is a position in the script; "path/file.nn:L:C" one in a file
    // next to it (an imported module).
    std::string locText = std::count(errorLoc.begin(), errorLoc.end(), ':') == 1
                              ? script + ":" + errorLoc
                              : script.substr(0, script.find_last_of('/') + 1) + errorLoc;
    if (r.err.find("--> " + locText) == std::string::npos) failWith("no diagnostic at " + locText);
    if (!traceLoc.empty() && r.err.find("called from " + script + ":" + traceLoc) == std::string::npos)
      failWith("no 'called from " + script + ":" + traceLoc + "' in the trace");
    if (r.err.find("error: ") == std::string::npos || r.err.find(errorFragment) == std::string::npos)
      failWith("diagnostic does not contain '" + errorFragment + "'");
    if (r.err.find(" | ") == std::string::npos || r.err.find('^') == std::string::npos)
      failWith("diagnostic has no source line with a caret");
  }
  if (!ok) {
    std::cerr << "---- stdout ----\n" << r.out << "---- stderr ----\n" << r.err;
    return 1;
  }
  return 0;
}
