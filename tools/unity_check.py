#!/usr/bin/env python3
"""Finds what would break or change meaning in a unity build (CMakeLists.txt
compiles each library's files in batches, one translation unit a batch).

Two checks, on a build tree configured with -DCMAKE_UNITY_BUILD=OFF:

1. Every library's files included into one translation unit must compile
   (-fsyntax-only): this finds internal names defined twice and
   using-directives of one file that make another file's names ambiguous,
   whatever batches the files later fall into.
2. No two files of a library may define internal functions or variables
   (anonymous namespace or static) of the same name: with different
   parameter types they would silently overload each other in one batch,
   and a call could reach the other file's function. This reads the symbol
   tables of the objects already built in that tree (build it at -O0 so
   that nothing is inlined away).

Usage: tools/unity_check.py BUILD_DIR   (exit status 1 on a finding)
"""
import collections
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile


def targets(build_dir):
    """{target: [(source, argv, directory, object)]} for the C++ files that a unity
    build batches (files with flags of their own are compiled alone)."""
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        commands = json.load(f)
    by_target = collections.OrderedDict()
    for entry in commands:
        source = entry["file"]
        if not source.endswith(".cpp") or source.startswith(os.path.abspath(build_dir)):
            continue  # generated sources (the ANTLR parser) have flags of their own
        argv = shlex.split(entry["command"])
        if os.path.basename(argv[0]) == "ccache":
            argv = argv[1:]
        obj = argv[argv.index("-o") + 1]
        target = obj.split(".dir/")[0]
        by_target.setdefault(target, []).append((source, argv, entry["directory"], obj))
    return by_target


def flags_key(argv, source):
    """The compile flags without the file names, to group files built alike."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT"):
            skip = True
            continue
        if a in ("-c", source):
            continue
        out.append(a)
    return tuple(out)


def syntax_check(target, files):
    groups = collections.OrderedDict()
    for source, argv, directory, _ in files:
        groups.setdefault(flags_key(argv, source), []).append((source, directory))
    problems = []
    for key, members in groups.items():
        if len(members) < 2:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
            for source, _ in members:
                f.write('#include "%s"\n' % source)
            unit = f.name
        result = subprocess.run(list(key) + ["-fsyntax-only", unit], cwd=members[0][1],
                                capture_output=True, text=True)
        os.unlink(unit)
        problems += [line for line in result.stderr.splitlines() if "error" in line]
    return problems


# Operator names' tokens, longest first: "operator<" is an operator,
# "operator==<int>" one with template arguments.
OPERATOR_TOKENS = ("<=>", "<<=", ">>=", "->*", "()", "[]", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
                   "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "->", "<", ">", "=", "!", "+", "-", "*", "/", "%",
                   "^", "&", "|", "~", ",")


# An internal symbol's name without its parameters or template arguments:
# "(anonymous namespace)::count(std::string const&)" -> "(anonymous namespace)::count".
# The parameters start at the first "(" outside template arguments (which
# may hold function types: "blockKernel<double, &(void f(double))>").
def base_name(demangled):
    name = demangled.replace("(anonymous namespace)", "@anon")
    depth, i = 0, 0
    while i < len(name):
        if name.startswith("operator", i):
            i += len("operator")
            token = next((t for t in OPERATOR_TOKENS if name.startswith(t, i)), "")
            i += len(token)
            continue
        ch = name[i]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            name = name[:i]
            break
        i += 1
    while True:
        stripped = re.sub(r"<[^<>]*>", "", name)
        if stripped == name:
            break
        name = stripped
    # A function template's instance names its return type first
    # ("void std::destroy_at"): keep the qualified name, and a conversion
    # operator's type with it ("std::optional<T>::operator bool").
    name = name.replace("operator ", "operator@").strip().split(" ")[-1].replace("operator@", "operator ")
    return name.replace("@anon", "(anonymous namespace)")


FOREIGN = ("std::", "testing::", "llvm::", "__gnu", "dnnl::", "antlr4::", "CLI::", "icu")


def header_identifiers(root):
    """Identifiers named in the project's headers: a constant a header
    defines has internal linkage in every file that includes it, which is
    no clash."""
    idents = set()
    for top in ("include", "support", "ir", "frontend", "passes", "runtime", "stdlib", "repl", "tests", "tools"):
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith((".h", ".hpp", ".def")):
                    with open(os.path.join(directory, name), errors="replace") as f:
                        idents.update(re.findall(r"[A-Za-z_]\w*", f.read()))
    return idents


def internal_names(obj, in_headers):
    result = subprocess.run(["nm", "-C", "--defined-only", obj], capture_output=True, text=True)
    names = set()
    for line in result.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3:
            continue
        kind, name = parts[1], parts[2]
        anonymous = "(anonymous namespace)::" in name
        if kind not in "tTdDbBrR" or not (anonymous or kind in "tdbr"):
            continue
        if " for " in name or "{lambda" in name or name.startswith(("_", ".")):
            continue  # thunks and guards, lambdas (named after their enclosing function)
        base = base_name(name)
        # Library internals, and instances of library templates over a
        # file's internal types (internal too; they only clash if those
        # types do, which the syntax check sees). The base name, not the
        # symbol, is tested: an instance's symbol starts with its return
        # type ("std::string (anonymous namespace)::describe<int>(int)").
        if base.startswith(FOREIGN) or base.startswith("decltype") or not base:
            continue
        if not anonymous and base.split("::")[-1] in in_headers:
            continue
        names.add(base)
    return names


def clash_check(target, files, in_headers):
    owners = collections.defaultdict(set)
    for source, _, directory, obj in files:
        path = os.path.join(directory, obj)
        if not os.path.exists(path):
            continue
        for name in internal_names(path, in_headers):
            owners[name].add(os.path.relpath(source))
    return ["%s: %s" % (name, ", ".join(sorted(srcs))) for name, srcs in sorted(owners.items()) if len(srcs) > 1]


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    failed = False
    in_headers = header_identifiers(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for target, files in targets(sys.argv[1]).items():
        for kind, problems in (("does not compile as one unit", syntax_check(target, files)),
                               ("files define the same internal name", clash_check(target, files, in_headers))):
            if problems:
                failed = True
                print("%s: %s" % (target, kind))
                for p in problems[:50]:
                    print("    " + p)
    print("unity check: " + ("problems found" if failed else "no clash"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
