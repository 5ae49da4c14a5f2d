#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_picture.py - `make bench`: how fast the HTML picture draws in
headless Chromium, beside the browser's own fixed cost (the 32-GPU demo
page) in the same run. Figures are performance.now() inside the page:
"first picture" is from navigation start to the end of the first drawing
(file read, parse, both views drawn and painted); "redraw" is one zoom or
click (every view drawn again and painted), median of 7, fitted and
zoomed in 8 times. Target: 16,384 GPUs under
2,000 ms; 131,072 GPUs with no redraw over 250 ms (no freezing)."""
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
    print("%-38s %9s %10s %14s %10s %10s" % ("page (plan + baseline)", "file", "rankmap", "first picture",
                                             "redraw", "zoomed x8"))
    b = cdp.Browser(shutil.which("chromium"), 1400, 900)
    try:
        for name, args in cases:
            page = os.path.join(d, "p.html")
            t0 = time.monotonic()
            subprocess.run([RANKMAP, "plan"] + args + ["--baseline", "--format", "html", "-o", page], check=True)
            gen = (time.monotonic() - t0) * 1000
            js, _ = cdp.open_page(b, page, 1400, 900, timeout=120)
            first = js("rankmapPicture.paintedMs")
            redraw = statistics.median(js("rankmapPicture.redrawMs()") for _ in range(7))
            for _ in range(3):  # x8: GPU by GPU everywhere
                js("Array.prototype.filter.call(document.querySelectorAll('#bar button'), function (b) "
                   "{ return b.textContent === 'zoom in'; })[0].click()")
            zoomed = statistics.median(js("rankmapPicture.redrawMs()") for _ in range(7))
            print("%-38s %7.1f MB %7.0f ms %11.0f ms %7.0f ms %7.0f ms" % (
                name, os.path.getsize(page) / 1e6, gen, first, redraw, zoomed))
            sys.stdout.flush()
    finally:
        b.close()
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
