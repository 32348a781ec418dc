// Drives the REPL through a pipe with a transcript and compares the output.
// Transcript format (tests/repl/*.txt):
//   >>> CODE      an input line        ... CODE   a continuation line
//   ...           an empty continuation line (ends a block)
//   ## comment    ignored
//   anything else an expected output line (stdout and stderr together)
// Usage: repl_runner NN_BINARY TRANSCRIPT
#include <iostream>

#include "run_capture.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: repl_runner NN TRANSCRIPT\n";
    return 2;
  }
  std::string input;
  std::vector<std::string> expected;
  for (const std::string& line : splitLines(readWholeFile(argv[2]))) {
    if (line.rfind("## ", 0) == 0 || line == "##") continue;
    if (line.rfind(">>> ", 0) == 0 || line.rfind("... ", 0) == 0) input += line.substr(4) + "\n";
    else if (line == "..." || line == ">>>") input += "\n";
    else expected.push_back(trimRight(line));
  }
  Captured r = runCapture({argv[1]}, input, true);
  std::vector<std::string> out = splitLines(r.out);
  for (auto& l : out) l = trimRight(l);
  bool ok = r.status == 0 && out == expected;
  if (!ok) {
    std::cerr << argv[2] << ": REPL output differs (exit " << r.status << ")\n---- expected ----\n";
    for (const auto& l : expected) std::cerr << l << "\n";
    std::cerr << "---- got ----\n" << r.out;
    return 1;
  }
  return 0;
}
