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

Usage: layers.py [ROOT]. Prints one line per violation, file:line first,
and exits 1 when there is any; prints a summary and exits 0 otherwise.
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
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


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
    return STRING.sub(blank, COMMENT.sub(blank, text)).split("\n")


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
    for b in bad:
        print(b)
    if bad:
        print(f"layers: {len(bad)} violation(s) in {nfiles} files")
        return 1
    print(f"layers: {nfiles} files, every include within its layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
