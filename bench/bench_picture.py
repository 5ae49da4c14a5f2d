#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_picture.py - `make bench`: how fast the HTML picture draws in
headless Chromium, beside the browser's own fixed cost (the 32-GPU demo
page) in the same run. Figures are performance.now() inside the page:
"first picture" is from navigation start to the end of the first drawing
(file read, parse, both views drawn and painted); "redraw" is one zoom or
click (every view drawn again and painted), fitted and zoomed in 8
times. Each page is generated and opened in a fresh tab ROUNDS times;
"rankmap" and "first picture" are the median (min-max) of those rounds,
the redraws the median (min-max) of all ROUNDS x 7 redraws. "x fixed" is
the first picture over the 32-GPU page's in the same run (what the
browser costs before the picture counts). No verdict: what a picture may
cost is a person's patience, not a ratio, and the figures say how far
each page is from the browser's own cost."""
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.environ.get("RM_ROOT", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "picture"))
import cdp  # noqa: E402

ROUNDS = 5
RANKMAP = os.environ.get("RANKMAP", os.path.join(ROOT, "build", "rankmap"))


def fabric(d):
    """Llama 3 style at 16,384 nodes: 2 nodes per ToR, 192 ToRs per pod,
    and the node list shuffled, so the baseline crosses at nearly every
    stage boundary: about 180,000 links drawn."""
    p = os.path.join(d, "t131k.conf")
    with open(p, "w") as f:
        for leaf in range(8192):
            f.write("SwitchName=tor%04d Nodes=n[%05d-%05d]\n" % (leaf, leaf * 2 + 1, leaf * 2 + 2))
        for pod in range(43):
            f.write("SwitchName=pod%02d Switches=tor[%04d-%04d]\n" % (pod, pod * 192, min(8191, pod * 192 + 191)))
        f.write("SwitchName=spine Switches=pod[00-42]\n")
    nodes = ["n%05d" % i for i in range(1, 16385)]
    random.Random(7).shuffle(nodes)
    with open(os.path.join(d, "n131k.txt"), "w") as f:
        f.write("\n".join(nodes) + "\n")
    # as tests/picture/t_browser.sh: 2,300 of the 3,072 Llama 3 nodes, shuffled
    hosts = ["gpu%04d" % i for i in range(1, 3073)]
    with open(os.path.join(d, "n16k.txt"), "w") as f:
        f.write("\n".join(random.Random(7).sample(hosts, 2300)) + "\n")
    return p


def mmm(v):
    """median (min-max) of the runs in v, in whole ms"""
    return "%.0f (%.0f-%.0f)" % (statistics.median(v), min(v), max(v))


def close_tabs(b):
    """Close the tabs open_page opened (file:// pages)."""
    for t in b.send("Target.getTargets")["targetInfos"]:
        if t["type"] == "page" and t["url"].startswith("file://"):
            b.send("Target.closeTarget", {"targetId": t["targetId"]})


def main():
    if not shutil.which("chromium"):
        print("bench_picture: SKIP: Debian's chromium is not installed (make deps)")
        return 0
    d = tempfile.mkdtemp(prefix="rankmap-bench-picture.")
    with open(os.path.join(d, "demo.conf"), "w") as f:
        f.write("SwitchName=leaf1 Nodes=node[1-3]\nSwitchName=leaf2 Nodes=node4\n"
                "SwitchName=spine1 Switches=leaf[1-2]\n")
    big = fabric(d)
    cases = [
        ("32 GPUs (demo; browser's fixed cost)", ["--layout", "8x2x2", "--order", "megatron", "--gpus-per-node", "8",
                                                   "--topology", os.path.join(d, "demo.conf"), "--nodes", "node[1-4]"]),
        ("16,384 GPUs (llama3-roce, 2,300 nodes)", ["--layout", "8x16x128", "--site",
                                                    os.path.join(ROOT, "site/llama3-roce/site.yaml"),
                                                    "--nodes-file", os.path.join(d, "n16k.txt")]),
        ("131,072 GPUs (2 per ToR, shuffled)", ["--layout", "8x16x1024", "--order", "megatron", "--topology", big,
                                                "--nodes-file", os.path.join(d, "n131k.txt")]),
    ]
    print("browser picture, median (min-max) of %d fresh tabs; redraws: of %d x 7; "
          "x fixed = first picture / the 32-GPU page's" % (ROUNDS, ROUNDS))
    print("%-38s %7s %18s %22s %7s %16s %16s" % ("page (plan + baseline)", "file", "rankmap ms",
                                                   "first picture ms", "x fixed", "redraw ms",
                                                   "zoomed x8 ms"))
    b = cdp.Browser(shutil.which("chromium"), 1400, 900)
    fixed = None
    try:
        for name, args in cases:
            page = os.path.join(d, "p.html")
            gen, first, redraw, zoomed = [], [], [], []
            for _ in range(ROUNDS):
                t0 = time.monotonic()
                subprocess.run([RANKMAP, "plan"] + args + ["--baseline", "--format", "html", "-o", page],
                               check=True)
                gen.append((time.monotonic() - t0) * 1000)
                js, _ = cdp.open_page(b, page, 1400, 900, timeout=120)
                first.append(js("rankmapPicture.paintedMs"))
                redraw += [js("rankmapPicture.redrawMs()") for _ in range(7)]
                for _ in range(3):  # x8: GPU by GPU everywhere
                    js("Array.prototype.filter.call(document.querySelectorAll('#bar button'), function (b) "
                       "{ return b.textContent === 'zoom in'; })[0].click()")
                zoomed += [js("rankmapPicture.redrawMs()") for _ in range(7)]
                close_tabs(b)  # ROUNDS tabs of 131,072 GPUs would not fit
            if fixed is None:
                fixed = statistics.median(first)
            print("%-38s %4.1f MB %18s %22s %7.1f %16s %16s" % (
                name, os.path.getsize(page) / 1e6, mmm(gen), mmm(first),
                statistics.median(first) / fixed, mmm(redraw), mmm(zoomed)))
            sys.stdout.flush()
    finally:
        b.close()
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
