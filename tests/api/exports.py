#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The public header, the version script and the shared library agree.

    exports.py HEADER MAPFILE [LIBRARY.so]
    exports.py --names HEADER    the declared names, one a line

Names the header declares (functions and extern data at file scope, after
the preprocessor), names the version script's global section lists, and,
with a library, the names it exports with their version node. Prints one
line per disagreement and exits 1; prints a summary and exits 0 when the
three hold the same names, all under one node.
"""
import re
import subprocess
import sys

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def declared(header):
    """Functions and data the header declares at file scope."""
    cpp = subprocess.run(["cc", "-E", "-P", "-D__GNUC__=12", "-x", "c",
                          header], capture_output=True, text=True,
                         check=True).stdout
    # Statements at brace depth 0, so struct members and enum values are
    # not declarations; system headers' names do not start with rm_.
    names, depth, stmt = set(), 0, []
    for ch in COMMENT.sub(" ", cpp):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            s = " ".join("".join(stmt).split())
            stmt = []
            if s.startswith(("typedef", "struct", "enum", "union")):
                continue
            m = re.search(r"\b(rm_\w+)\s*\(", s) or \
                (s.startswith("extern") and re.search(r"\b(rm_\w+)\s*\[", s))
            if m:
                names.add(m.group(1))
            continue
        if depth == 0 or ch in "{}":
            stmt.append(ch)
    return names


def mapped(mapfile):
    """(node, names) of the version script's global section."""
    text = COMMENT.sub(" ", open(mapfile).read())
    m = re.search(r"(\w+)\s*\{\s*global\s*:(.*?)local\s*:\s*\*\s*;\s*\}\s*;",
                  text, re.S)
    if not m:
        sys.exit(f"{mapfile}: no 'NODE {{ global: ...; local: *; }};'")
    return m.group(1), {n.strip() for n in m.group(2).split(";")
                        if n.strip()}


def exported(lib):
    """name -> version node of what the library exports."""
    out = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions",
                          lib], capture_output=True, text=True,
                         check=True).stdout
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 3 or f[1] in ("A",):
            continue
        name, _, node = f[2].partition("@")
        got[name] = node.lstrip("@")
    return got


def main(argv):
    if len(argv) == 3 and argv[1] == "--names":
        print("\n".join(sorted(declared(argv[2]))))
        return 0
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    header, mapfile = argv[1], argv[2]
    decl = declared(header)
    node, listed = mapped(mapfile)
    bad = []
    for n in sorted(decl - listed):
        bad.append(f"{header}: {n} is declared but not in {mapfile}")
    for n in sorted(listed - decl):
        bad.append(f"{mapfile}: {n} is listed but not declared in {header}")
    if len(argv) == 4:
        lib = argv[3]
        got = exported(lib)
        for n in sorted(decl - set(got)):
            bad.append(f"{lib}: does not export {n}, which {header} declares")
        for n in sorted(set(got) - decl):
            bad.append(f"{lib}: exports {n}, which {header} does not declare")
        for n in sorted(set(got) & decl):
            if got[n] != node:
                bad.append(f"{lib}: {n} is under '{got[n] or 'no node'}', "
                           f"not {node}")
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"exports: {len(decl)} names in {header}, {mapfile} "
          f"({node})" + (f" and {argv[3]}" if len(argv) == 4 else "") +
          " agree")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
