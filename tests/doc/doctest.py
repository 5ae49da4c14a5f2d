#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Doc tests: run the commands README.md and docs/*.md show and compare the
output they show with the real one.

    tests/doc/doctest.py [FILE.md ...]      (default: README.md docs/*.md)

Inside a fenced block, a line `$ rankmap ...` (or `$ rankmap-nccl-check`,
or `$ python3`, `$ sort` making an input file) is a command; a trailing
backslash continues it on the next line. The lines after it, up to the next `$ ` line or the end of the
block, are its output (stdout and stderr together). No lines: only the exit
status is checked. The command must exit 0; a doc that shows a failure
writes `$ rankmap ...; echo "exit $?"` and shows the status.

Elisions in the shown output:
    ...         a line of its own: any number of lines (also none)
    [...]       inside a line: any text on that line
Trailing spaces and trailing blank lines are ignored.

Markers, HTML comments on a line of their own before a fenced block:
    <!-- doctest: skip REASON -->     the block is not run (say why)
    <!-- doctest: needs PROGRAM -->   SKIP the block where build/PROGRAM
                                      was not built (e.g. rankmap-nccl-check)
    <!-- doctest: setup SHELL -->     run SHELL in the doc's directory first
    <!-- doctest: fixture PATH -->    SKIP the block where PATH (relative to
                                      the repository, e.g. ../shared/...) is
                                      absent: data not every machine has
                                      ($RM_ROOT is the repository)

Each doc runs in its own temporary directory holding links to the
repository's site/, templates/ and tests/, so commands that write files
(`-o map.json`) and later ones that read them work as in a shell. A line in
a block that starts with `rankmap` but has no `$ ` and is not a synopsis
(a line with `[--` or `(--`) is an error: a command shown must be run.

Prints PASS:/FAIL:/SKIP: lines for tests/run.sh; FAIL names the doc, the
line of the command and the line of the shown output that differs.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("RM_ROOT") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("RM_BUILD") or os.path.join(ROOT, "build")
RANKMAP = os.environ.get("RANKMAP") or os.path.join(BUILD, "rankmap")
TIMEOUT = int(os.environ.get("DOCTEST_TIMEOUT", "120"))
PROGRAMS = ("rankmap", "rankmap-nccl-check")
# `$ python3` and `$ sort` lines make a doc's input files in plain sight
# (README.md's frag.txt), so a reader can run the example as shown; they
# are run like the programs' lines, and only `$ ` lines of theirs are.
HELPERS = ("python3", "sort")
MARK = re.compile(r"^<!--\s*doctest:\s*(\w+)\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(```|~~~)")


class Block:
    def __init__(self, start, marks):
        self.start = start          # line number of the opening fence
        self.marks = marks          # [(kind, arg, line)]
        self.lines = []             # [(line number, text)]


def parse(path):
    """The fenced blocks of a markdown file, with the markers before each."""
    blocks, marks, cur = [], [], None
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if cur is None:
                m = MARK.match(line.strip())
                if m:
                    marks.append((m.group(1), m.group(2), no))
                elif FENCE.match(line.lstrip()):
                    cur = Block(no, marks)
                    marks = []
            elif FENCE.match(line.lstrip()):
                blocks.append(cur)
                cur = None
            else:
                cur.lines.append((no, line))
    if marks:
        blocks.append(Block(0, marks))   # setup/markers after the last block
    return blocks


def first_word(cmd):
    m = re.match(r"\s*([^\s;|&<>()]*)", cmd)
    return m.group(1)


def commands(block):
    """[(line, command, [(line, expected)])] of one block."""
    out, i, lines = [], 0, block.lines
    while i < len(lines):
        no, text = lines[i]
        if not text.startswith("$ "):
            i += 1
            continue
        cmd = text[2:]
        i += 1
        while cmd.endswith("\\") and i < len(lines):
            cmd = cmd + "\n" + lines[i][1]
            i += 1
        exp = []
        while i < len(lines) and not lines[i][1].startswith("$ "):
            exp.append(lines[i])
            i += 1
        while exp and not exp[-1][1].strip():
            exp.pop()
        out.append((no, cmd, exp))
    return out


def unrun(block):
    """Lines that show a rankmap command without `$ ` (not synopses), up to
    the first `$ ` line (what follows one is its output)."""
    bad = []
    for no, text in block.lines:
        if text.startswith("$ "):
            break
        w = first_word(text)
        if w in PROGRAMS and len(text.split()) > 1 and \
                "[--" not in text and "(--" not in text and \
                not text.startswith(w + ": "):
            bad.append((no, text))
    return bad


def line_match(pattern, text):
    parts = pattern.split("[...]")
    rx = ".*".join(re.escape(p) for p in parts)
    return re.fullmatch(rx, text, re.S) is not None


def match(exp, got, ei=0, gi=0):
    """Index into exp of the first line that cannot match, or None."""
    while ei < len(exp):
        pat = exp[ei][1].rstrip()
        if pat == "...":
            for k in range(gi, len(got) + 1):
                if match(exp, got, ei + 1, k) is None:
                    return None
            return ei + 1 if ei + 1 < len(exp) else None
        if gi >= len(got) or not line_match(pat, got[gi]):
            return ei
        ei, gi = ei + 1, gi + 1
    return None if gi == len(got) else len(exp)


def first_bad(exp, got):
    """(expected line index, got line index) of the first difference, by
    walking both as far as the elisions allow."""
    ei = gi = 0
    while ei < len(exp) and gi < len(got):
        pat = exp[ei][1].rstrip()
        if pat == "...":
            if ei + 1 == len(exp):
                return None
            nxt = exp[ei + 1][1].rstrip()
            start = gi
            while gi < len(got) and not line_match(nxt, got[gi]):
                gi += 1
            if gi == len(got):
                return ei + 1, -1 - start
            ei += 1
            continue
        if not line_match(pat, got[gi]):
            return ei, gi
        ei, gi = ei + 1, gi + 1
    return ei, gi


def setup_dir():
    d = tempfile.mkdtemp(prefix="rankmap-doctest.")
    for name in ("site", "templates", "tests", "docs"):
        os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
    bindir = os.path.join(d, ".bin")
    os.mkdir(bindir)
    os.symlink(os.path.abspath(RANKMAP), os.path.join(bindir, "rankmap"))
    for prog in PROGRAMS[1:]:
        p = os.path.join(BUILD, prog)
        if os.path.exists(p):
            os.symlink(p, os.path.join(bindir, prog))
    return d, bindir


def environment(bindir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    env["RM_ROOT"] = ROOT
    # the docs show what their options say, not this machine's Slurm
    # configuration (which `rankmap plan` reads by default)
    env["SLURM_CONF"] = "/nonexistent/slurm.conf"
    env["LC_ALL"] = "C"
    env["COLUMNS"] = "80"
    return env


def run_doc(path, rel, counts):
    d, bindir = setup_dir()
    env = environment(bindir)
    try:
        for block in parse(path):
            skip = [m for m in block.marks if m[0] == "skip"]
            needs = [m for m in block.marks if m[0] == "needs"]
            for kind, arg, no in block.marks:
                if kind not in ("skip", "needs", "setup", "fixture"):
                    report("FAIL", f"{rel}:{no}: unknown doctest marker "
                           f"'{kind}' (skip, needs, setup, fixture)", counts)
            if skip:
                if not skip[0][1]:
                    report("FAIL", f"{rel}:{skip[0][2]}: doctest skip needs "
                           "a reason", counts)
                continue
            missing = [a for _, a, _ in needs
                       if not shutil.which(a, path=bindir)]
            if missing:
                report("SKIP", f"{rel}:{block.start}: {missing[0]} not built",
                       counts)
                continue
            absent = [a for k, a, _ in block.marks if k == "fixture"
                      and not os.path.exists(os.path.join(ROOT, a))]
            if absent:
                report("SKIP", f"{rel}:{block.start}: no {absent[0]} (a "
                       "fixture this machine does not have)", counts)
                continue
            for kind, arg, no in block.marks:
                if kind == "setup":
                    r = subprocess.run(["bash", "-c", arg], cwd=d, env=env,
                                       stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT,
                                       timeout=TIMEOUT)
                    if r.returncode:
                        report("FAIL", f"{rel}:{no}: setup exited "
                               f"{r.returncode}:\n" +
                               r.stdout.decode(errors="replace"), counts)
            for no, text in unrun(block):
                report("FAIL", f"{rel}:{no}: a command shown but not run: "
                       f"write it as '$ {text.strip()}' (its output below "
                       "it, or none) or mark the block "
                       "<!-- doctest: skip REASON -->", counts)
            for no, cmd, exp in commands(block):
                if first_word(cmd) not in PROGRAMS + HELPERS:
                    continue
                check(rel, no, cmd, exp, d, env, counts)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def check(rel, no, cmd, exp, d, env, counts):
    head = cmd.splitlines()[0].rstrip(" \\")
    name = f"{rel}:{no}: $ {head}"
    try:
        r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=d,
                           env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        report("FAIL", f"{name}\n    did not finish in {TIMEOUT} s", counts)
        return
    got = [l.rstrip() for l in r.stdout.decode(errors="replace").split("\n")]
    while got and not got[-1]:
        got.pop()
    problem = None
    if r.returncode:
        problem = (f"exited {r.returncode} (a doc that shows a failure "
                   "writes '$ CMD; echo \"exit $?\"')")
    elif exp and match(exp, got) is not None:
        bad = first_bad(exp, got)
        if bad is None:
            problem = "the output does not match the shown one"
        else:
            ei, gi = bad
            want = (f"{rel}:{exp[ei][0]}: {exp[ei][1].rstrip()}"
                    if ei < len(exp) else "(the shown output ends here)")
            if gi < 0:
                have = (f"no output line from line {-gi} on matches it "
                        "(the line after '...')")
            elif gi < len(got):
                have = f"output line {gi + 1}: {got[gi]}"
            else:
                have = "(the real output ends here)"
            problem = f"output differs\n    doc  {want}\n    real {have}"
    if problem:
        full = "\n".join("    | " + l for l in got[:200])
        report("FAIL", f"{name}\n    {problem}\n    real output:\n{full}",
               counts)
    else:
        report("PASS", name, counts)


def report(kind, msg, counts):
    counts[kind] = counts.get(kind, 0) + 1
    print(f"{kind}: {msg}", flush=True)


def main(argv):
    files = argv[1:] or (["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
        if f.endswith(".md")))
    if not os.access(RANKMAP, os.X_OK):
        print(f"FAIL: {RANKMAP} not built (make)")
        return 1
    counts = {}
    for f in files:
        path = f if os.path.isabs(f) else os.path.join(ROOT, f)
        if not os.path.exists(path) and os.path.exists(f):
            path = os.path.abspath(f)
        run_doc(path, os.path.relpath(path, ROOT), counts)
    print(f"doctest: {counts.get('PASS', 0)} passed, {counts.get('FAIL', 0)} "
          f"failed, {counts.get('SKIP', 0)} skipped")
    return 1 if counts.get("FAIL") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
