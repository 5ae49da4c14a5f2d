#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Which headers each part of rankmap may include (docs/architecture.md).

Outside the library - the CLI (mapper/cli), the SPANK plugin (spank/) and
librankmap-nccl (nccl/) - a file may include librankmap's public headers
(mapper/include), its own part's headers and system headers, and may not
name librankmap's internal functions (rmi_*). Inside the library
(mapper/src) each folder may include headers of the folders before it in
the data flow only:

    util -> layout -> fabric -> {node, place} -> map -> {picture, model}

The same order holds for calls: a file of mapper/src may call, or take
the address of, only rm_* and rmi_* functions (and function-like macros)
defined in its own folder or in a folder it may include. util/util.h
includes rankmap.h, so the include check alone would let any folder call
any public function.

Usage: layers.py [ROOT]. Prints one line per violation, file:line first,
and exits 1 when there is any; prints a summary and exits 0 otherwise.
layers.py --index [ROOT] lists the functions the call check found defined
in the .c files, "name file" a line, for comparing with the objects.
layers.py --doc [ROOT] checks instead that docs/architecture.md's folder
table, the folders of mapper/src, their READMEs and ALLOWED agree.
"""
import os
import re
import sys

# Parts outside the library, each with the folder its own headers live in.
OUTSIDE = ("mapper/cli", "spank", "nccl")
PUBLIC = "mapper/include"
LIB = "mapper/src"
# Folders of mapper/src and the folders whose headers each may include.
# internal.h (mapper/src) gathers util, layout and fabric.
ALLOWED = {
    "util": {"util"},
    "layout": {"util", "layout"},
    "fabric": {"util", "layout", "fabric"},
    "import": {"util", "fabric", "import"},
    "node": {"util", "layout", "fabric", "node"},
    "place": {"util", "layout", "fabric", "place"},
    "map": {"util", "layout", "fabric", "place", "map"},
    "picture": {"util", "layout", "fabric", "place", "map", "picture"},
    "model": {"util", "layout", "fabric", "place", "map", "model"},
}
UMBRELLA = {"internal.h": {"util", "layout", "fabric"}}
# Generated into the build tree, not a folder of mapper/src.
GENERATED = {"pic_assets.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
INTERNAL_NAME = re.compile(r"\b(rmi_[A-Za-z0-9_]+|RMI_[A-Z0-9_]+)\b")
# Comments, strings and character constants, left to right, so that a
# quote inside a comment or a '{' in a lexer does not derail the rest.
NOT_CODE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\""
                      r"|'(?:\\.|[^'\\\n])*'", re.S)


def sources(root, top):
    base = os.path.join(root, top)
    for d, _, files in os.walk(base):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, f), root)


def lib_headers(root):
    """Every header under mapper/src: its path from mapper/src and its
    base name (what a file would write with -Imapper/src or -I<folder>)."""
    by_path, by_name = set(), {}
    for rel in sources(root, LIB):
        if rel.endswith(".h"):
            p = os.path.relpath(rel, LIB)
            by_path.add(p)
            by_name.setdefault(os.path.basename(p), set()).add(p)
    return by_path, by_name


def lib_target(name, src_dir, by_path, by_name):
    """The mapper/src header an include names, or None."""
    if name in by_path:
        return name
    local = os.path.normpath(os.path.join(src_dir, name))
    if local.startswith(LIB + "/"):
        p = os.path.relpath(local, LIB)
        if p in by_path:
            return p
    hits = by_name.get(os.path.basename(name))
    if hits and ("/" not in name or "mapper/src" in name):
        return sorted(hits)[0]
    return None


def code_lines(text):
    """The text with comments and strings blanked, lines kept in place."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return NOT_CODE.sub(blank, text).split("\n")


def check(root):
    by_path, by_name = lib_headers(root)
    bad = []
    nfiles = 0
    for part in OUTSIDE:
        for rel in sources(root, part):
            nfiles += 1
            with open(os.path.join(root, rel), errors="replace") as f:
                text = f.read()
            for n, line in enumerate(text.split("\n"), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(2)
                if os.path.exists(os.path.join(root, PUBLIC, name)):
                    continue
                if os.path.exists(os.path.join(root, os.path.dirname(rel),
                                               name)):
                    target = os.path.normpath(
                        os.path.join(os.path.dirname(rel), name))
                    if not target.startswith(LIB + "/"):
                        continue
                t = lib_target(name, os.path.dirname(rel), by_path, by_name)
                if t:
                    bad.append(f"{rel}:{n}: includes librankmap's internal "
                               f"header {LIB}/{t}: outside the library "
                               f"only {PUBLIC}/*.h is public")
            for n, line in enumerate(code_lines(text), 1):
                m = INTERNAL_NAME.search(line)
                if m:
                    bad.append(f"{rel}:{n}: uses librankmap's internal "
                               f"name {m.group(1)}: outside the library "
                               f"only rm_* from {PUBLIC} is public")
    for rel in sources(root, LIB):
        nfiles += 1
        parts = os.path.relpath(rel, LIB).split("/")
        folder = parts[0] if len(parts) > 1 else None
        if folder is None:
            continue                  # internal.h itself
        if folder not in ALLOWED:
            bad.append(f"{rel}:1: folder {LIB}/{folder} has no place in "
                       f"the data flow (tests/layers/layers.py ALLOWED)")
            continue
        with open(os.path.join(root, rel), errors="replace") as f:
            lines = f.read().split("\n")
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m or m.group(1) != '"':
                continue
            name = m.group(2)
            if name in GENERATED or os.path.exists(
                    os.path.join(root, PUBLIC, name)):
                continue
            if name in UMBRELLA:
                used = UMBRELLA[name]
            else:
                t = lib_target(name, os.path.dirname(rel), by_path, by_name)
                if t is None:
                    continue          # a system or library header
                used = {t.split("/")[0]} if "/" in t else {None}
            for u in sorted(x for x in used if x not in ALLOWED[folder]):
                bad.append(f"{rel}:{n}: {folder}/ includes {name} "
                           f"({u}/): {folder}/ may use only "
                           f"{', '.join(sorted(ALLOWED[folder]))}")
    return nfiles, bad


# --- Calls -----------------------------------------------------------------
# The definitions are read from the sources rather than from `nm` on the
# objects: it needs no build, sees function-like macros and static inline
# functions in headers (which leave no symbol of their own), and names the
# defining file in the message. The price is a small C reader that relies
# on the tree's style: a definition's head ends with its parameter list
# at brace depth 0.
FUNC_NAME = re.compile(r"\b(rmi?_[a-z0-9_]+)\b")
MACRO_DEF = re.compile(r"^\s*#\s*define\s+(rmi?_[a-z0-9_]+)\b")
DIRECTIVE = re.compile(r"^\s*#")
BRACE = re.compile(r"[{};]")
# The end of a function definition's head: NAME(params), the params
# nesting two levels deep (a function pointer parameter).
DEF_HEAD = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*"
                      r"\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\s*$")


def folder_of(rel):
    parts = os.path.relpath(rel, LIB).split("/")
    return parts[0] if len(parts) > 1 else None


def without_directives(lines):
    """The code lines with preprocessor directives (and their continuation
    lines) blanked, so a macro's braces do not look like a body."""
    out, cont = [], False
    for line in lines:
        if cont or DIRECTIVE.match(line):
            cont = line.rstrip().endswith("\\")
            out.append("")
        else:
            out.append(line)
    return out


def definitions(code):
    """(name, static) for each function defined at file scope of `code`,
    whose comments, strings and directives are blanked: the text between
    the last ';' or '}' at depth 0 and a '{' is the head of a definition
    when it ends with a parameter list and assigns nothing."""
    defs, depth, head = [], 0, 0
    for m in BRACE.finditer(code):
        ch = m.group(0)
        if depth == 0 and ch == "{":
            text = code[head:m.start()]
            d = DEF_HEAD.search(text)
            if d and "=" not in text[:d.start()]:
                defs.append((d.group(1),
                             re.search(r"\bstatic\b", text) is not None))
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        if depth == 0:
            head = m.end()
    return defs


def read_lib(root):
    """Each file of mapper/src's folders: its code lines (comments,
    strings and character constants blanked)."""
    files = {}
    for rel in sources(root, LIB):
        if folder_of(rel) is None:
            continue
        with open(os.path.join(root, rel), errors="replace") as f:
            files[rel] = code_lines(f.read())
    return files


def def_index(files):
    """name -> {file defining it} for what other files can reach: non-static
    functions of .c files, and functions and macros defined in headers
    (static inline included: every includer gets the body); and
    file -> {name} for each .c file's own static functions."""
    index, local = {}, {}
    for rel, code in files.items():
        header = rel.endswith(".h")
        for line in code:
            m = MACRO_DEF.match(line)
            if m:
                index.setdefault(m.group(1), set()).add(rel)
        for name, static in definitions("\n".join(without_directives(code))):
            if not FUNC_NAME.fullmatch(name):
                continue
            if static and not header:
                local.setdefault(rel, set()).add(name)
            else:
                index.setdefault(name, set()).add(rel)
    return index, local


def check_calls(root):
    """Every mention of an rm_/rmi_ function in a file of mapper/src, call
    or address taken, checked against ALLOWED. A call through a pointer
    names no function; the place that took the address is checked
    instead. Names defined nowhere in mapper/src (types, libc, misspelt
    ones the compiler will catch) are not ours to judge."""
    files = read_lib(root)
    index, local = def_index(files)
    bad, nuses = [], 0
    for rel, code in sorted(files.items()):
        folder = folder_of(rel)
        if folder not in ALLOWED:
            continue                  # reported by check()
        own = local.get(rel, set())
        for n, line in enumerate(code, 1):
            for m in FUNC_NAME.finditer(line):
                name = m.group(1)
                if name in own or name not in index:
                    continue
                nuses += 1
                where = index[name]
                if any(folder_of(d) in ALLOWED[folder] for d in where):
                    continue
                d = sorted(where)[0]
                verb = ("calls" if line[m.end():].lstrip().startswith("(")
                        else "uses")
                bad.append(f"{rel}:{n}: {folder}/ {verb} {name} "
                           f"({os.path.relpath(d, LIB)}): {folder}/ may "
                           f"use only {', '.join(sorted(ALLOWED[folder]))}")
    return nuses, bad


DOC = "docs/architecture.md"
DOC_ROW = re.compile(r"^\| `mapper/src/([a-z0-9_]+)/` \|[^|]*\| ([^|]*) \|$")


def check_doc(root):
    """docs/architecture.md's folder table, the folders of mapper/src, their
    READMEs and ALLOWED above must all say the same."""
    bad = []
    tree = sorted(d for d in os.listdir(os.path.join(root, LIB))
                  if os.path.isdir(os.path.join(root, LIB, d)))
    doc = {}
    with open(os.path.join(root, DOC)) as f:
        for n, line in enumerate(f, 1):
            m = DOC_ROW.match(line.rstrip("\n"))
            if m:
                may = {w.strip() for w in m.group(2).split(",")} - {"-", ""}
                doc[m.group(1)] = (n, may)
    for d in tree:
        if d not in doc:
            bad.append(f"{DOC}: no row for the folder {LIB}/{d}/")
        if d not in ALLOWED:
            bad.append(f"{LIB}/{d}/: not in ALLOWED of tests/layers/layers.py")
        if not os.path.exists(os.path.join(root, LIB, d, "README.md")):
            bad.append(f"{LIB}/{d}/: no README.md saying what it owns")
    for d, (n, may) in sorted(doc.items()):
        if d not in tree:
            bad.append(f"{DOC}:{n}: {LIB}/{d}/ is not in the tree")
        elif d in ALLOWED and may != ALLOWED[d] - {d}:
            bad.append(f"{DOC}:{n}: {d}/ may include "
                       f"{', '.join(sorted(may)) or '-'} by the page, "
                       f"{', '.join(sorted(ALLOWED[d] - {d})) or '-'} "
                       f"by the check")
    return len(tree), bad


def main():
    args = sys.argv[1:]
    if args and args[0] == "--index":
        # what t_layers.sh compares with nm on the built objects
        index, _ = def_index(read_lib(args[1] if len(args) > 1 else "."))
        for name in sorted(index):
            for rel in sorted(index[name]):
                if rel.endswith(".c"):
                    print(name, rel)
        return 0
    if args and args[0] == "--doc":
        root = args[1] if len(args) > 1 else "."
        n, bad = check_doc(root)
        for b in bad:
            print(b)
        if bad:
            return 1
        print(f"layers: {DOC} matches the {n} folders of {LIB}")
        return 0
    root = args[0] if args else "."
    nfiles, bad = check(root)
    ncalls, bad_calls = check_calls(root)
    bad += bad_calls
    for b in bad:
        print(b)
    if bad:
        print(f"layers: {len(bad)} violation(s) in {nfiles} files")
        return 1
    print(f"layers: {nfiles} files, every include within its layer")
    print(f"layers: {ncalls} uses of rm_/rmi_ functions in {LIB}, "
          f"every call within its layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
