// The differential tester: runs random programs (program_gen.h) in eager
// mode, in graph mode without the JIT and in graph mode with the JIT
// compiling at first run, and where a program has no tensors in CPython
// too, and reports any difference in output, exit status or error location.
// A program that differs is minimised (lines are dropped while the
// difference stays) and written to the --keep folder, ready to join
// tests/differential.
// Usage: difftest NN_BINARY [--seed S] [--count N] [--python PYTHON] [--keep DIR]
//        difftest --print SEED   (the program of one seed)
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

#include "program_gen.h"
#include "run_capture.h"

namespace {

struct Outcome {
  int status = 0;
  std::string out;
  std::string error;  // the diagnostic's first two lines: message and location
};

constexpr int kKilled = 128 + 9;  // timeout -s KILL's status

std::string scratchPath() { return "/tmp/nn_difftest_" + std::to_string(::getpid()) + ".nn"; }

// Runs argv on the program; a run longer than `seconds` is killed (its
// status is timeout's 137), so a program that loops forever in every mode
// (a minimisation step can make one) costs seconds, not the session.
Outcome run(const std::vector<std::string>& argv, const std::string& program, int seconds) {
  std::string path = scratchPath();
  std::ofstream(path) << program;
  std::vector<std::string> cmd = {"/usr/bin/timeout", "-s", "KILL", std::to_string(seconds)};
  cmd.insert(cmd.end(), argv.begin(), argv.end());
  cmd.push_back(path);
  Captured c = runCapture(cmd, "", false);
  Outcome o{c.status, c.out, c.status < 0 ? c.err : ""};
  std::vector<std::string> err = splitLines(c.err);
  for (size_t i = 0; i < err.size() && i < 2; ++i) o.error += err[i] + "\n";
  return o;
}

// The first difference between the runs of `program`, or "".
// `completed` tells whether the eager run ended with status 0.
std::string difference(const std::string& nn, const std::string& python, const std::string& program, bool tensors,
                       int seconds = 60, bool* completed = nullptr) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> modes = {
      {"eager", {nn, "--mode", "eager", "--cpu-devices", "2"}},
      {"graph --jit off", {nn, "--mode", "graph", "--jit", "off", "--cpu-devices", "2"}},
      {"graph --jit always", {nn, "--mode", "graph", "--jit", "always", "--cpu-devices", "2"}}};
  Outcome first = run(modes[0].second, program, seconds);
  if (first.status < 0 || first.status == 126 || first.status == 127) {  // nothing ran: never a vacuous pass
    std::cerr << "difftest: cannot run " << nn << " (" << first.error << ")\n";
    std::exit(2);
  }
  if (completed) *completed = first.status == 0;
  for (size_t m = 1; m < modes.size(); ++m) {
    Outcome o = run(modes[m].second, program, seconds);
    if (o.status == kKilled && first.status == kKilled) continue;  // both ran out of time: what they printed is cut anywhere
    if (o.status != first.status || o.out != first.out || o.error != first.error)
      return modes[0].first + " and " + modes[m].first + " differ:\n--- " + modes[0].first + " (status " +
             std::to_string(first.status) + ")\n" + first.out + first.error + "--- " + modes[m].first + " (status " +
             std::to_string(o.status) + ")\n" + o.out + o.error;
  }
  if (!tensors && !python.empty()) {
    Outcome py = run({python}, program, seconds);
    bool bothFailed = py.status != 0 && first.status != 0;
    if (!bothFailed && (py.status != first.status || py.out != first.out))
      return "nn and CPython differ:\n--- nn (status " + std::to_string(first.status) + ")\n" + first.out +
             first.error + "--- CPython (status " + std::to_string(py.status) + ")\n" + py.out;
  }
  return "";
}

// Drops lines while the program still differs (one pass from the end,
// then again until nothing more can go).
std::string minimise(const std::string& nn, const std::string& python, std::string program, bool tensors) {
  bool changed = true;
  while (changed) {
    changed = false;
    std::vector<std::string> lines = splitLines(program);
    for (size_t i = lines.size(); i-- > 0;) {
      std::string candidate;
      for (size_t j = 0; j < lines.size(); ++j)
        if (j != i) candidate += lines[j] + "\n";
      if (!difference(nn, python, candidate, tensors, 5).empty()) {
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
        program = candidate;
        changed = true;
      }
    }
  }
  return program;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: difftest NN_BINARY [--seed S] [--count N] [--python PYTHON] [--keep DIR]\n"
                 "       difftest --print SEED\n";
    return 2;
  }
  if (std::string(argv[1]) == "--print" && argc == 3) {
    std::cout << generateProgram(std::strtoull(argv[2], nullptr, 10)).text;
    return 0;
  }
  std::string nn = argv[1], python, keep;
  uint64_t seed = 1, count = 100;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--count") count = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--python") python = argv[i + 1];
    else if (flag == "--keep") keep = argv[i + 1];
  }
  uint64_t failures = 0, completed = 0;
  for (uint64_t s = seed; s < seed + count; ++s) {
    GeneratedProgram p = generateProgram(s);
    bool ranToTheEnd = false;
    std::string why = difference(nn, python, p.text, p.usesTensors, 60, &ranToTheEnd);
    completed += ranToTheEnd;
    if (why.empty()) continue;
    ++failures;
    // A difference that does not show again is reported as it is: the
    // minimisation would chase noise.
    if (difference(nn, python, p.text, p.usesTensors).empty()) {
      std::cerr << "seed " << s << " (seen once, not again): " << why << "--- program ---\n" << p.text << "\n";
      continue;
    }
    std::string small = minimise(nn, python, p.text, p.usesTensors);
    std::cerr << "seed " << s << ": " << why << "--- minimised program ---\n" << small << "\n";
    if (!keep.empty()) std::ofstream(keep + "/difftest_" + std::to_string(s) + ".nn") << small;
  }
  ::unlink(scratchPath().c_str());
  std::cout << "difftest: " << count << " programs from seed " << seed << " (" << completed
            << " ran to their end), " << failures << " with differences\n";
  return failures == 0 ? 0 : 1;
}
