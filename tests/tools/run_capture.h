// Runs a command with optional stdin text and captures its exit status,
// stdout and stderr (test helper shared by the script and REPL runners).
#pragma once

#include <string>
#include <vector>

struct Captured {
  int status = -1;
  std::string out, err;
};

Captured runCapture(const std::vector<std::string>& argv, const std::string& input, bool mergeStderr);
std::vector<std::string> splitLines(const std::string& text);
std::string readWholeFile(const std::string& path);
// Drops trailing spaces and carriage returns.
std::string trimRight(std::string s);
