#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cdp.py - opens rankmap pictures in headless Chromium and checks them.

Drives Debian's `chromium` over its DevTools protocol on
--remote-debugging-pipe (commands on fd 3, replies on fd 4, each message
ended by a NUL byte), with nothing but the Python standard library.

usage: cdp.py PAGE.html MAP.json [BASELINE.json] --shot FILE.png [--name N]
              [--priced CHECK.json]

For each view of the page (the map, then the baseline when given) it checks
against the map files that `rankmap plan --format json` wrote: no console
errors or exceptions, one GPU cell drawn per GPU of the allocation, the
pipeline crossings drawn equal to the report's, the TP groups outlined red
equal to the report's split count, and that clicking a rank's GPU shows
that rank's coordinates and host, and that the header above each view
states the map file's PP pairs per tier, DP (and EP) group spans and
must-rules, and with --priced (what `rankmap check --model ... --format
json` wrote for the same maps) each map's seconds per step. Prints
PASS:/FAIL: lines (tests/run.sh counts them) and saves a screenshot.
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

SUITE = os.environ.get("SUITE", "picture/browser")
fails = 0


def check(name, ok, why=""):
    global fails
    if ok:
        print("PASS: %s/%s" % (SUITE, name))
    else:
        fails += 1
        print("FAIL: %s/%s: %s" % (SUITE, name, why))
    sys.stdout.flush()


class Browser:
    def __init__(self, exe, width, height):
        self.tmp = tempfile.mkdtemp(prefix="rankmap-chromium.")
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def child():
            # Move both ends above 3/4 first, so dup2 never meets itself.
            a = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [exe, "--headless", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-sync",
                "--remote-debugging-pipe", "--user-data-dir=" + self.tmp,
                "--window-size=%d,%d" % (width, height), "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses root otherwise
        self.proc = subprocess.Popen(args, preexec_fn=child, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(self.tmp, "stderr"), "w"))
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_w)
        os.close(self.from_r)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply from chromium")
            r, _, _ = select.select([self.from_r], [], [], left)
            if r:
                chunk = os.read(self.from_r, 1 << 20)
                if not chunk:
                    raise EOFError("chromium closed the pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))


def errors(events):
    out = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: %s" % d.get("exception", {}).get("description", d.get("text")))
        elif m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.%s: %s" % (p["type"], [a.get("value") for a in p.get("args", [])]))
        elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: %s" % p["entry"].get("text"))
    return out


def open_page(b, path, width, height, timeout=60):
    """Open `path` in a new tab and wait for the picture; returns an
    evaluate function and the session id."""
    t = b.send("Target.createTarget", {"url": "about:blank"})
    s = b.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})["sessionId"]
    for m in ("Runtime.enable", "Log.enable", "Page.enable"):
        b.send(m, session=s)
    b.send("Emulation.setDeviceMetricsOverride",
           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=s)

    def js(expr):
        r = b.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                        "awaitPromise": True}, session=s, timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    b.send("Page.navigate", {"url": "file://" + os.path.abspath(path)}, session=s)
    b.wait_event("Page.loadEventFired", timeout)
    deadline = time.monotonic() + timeout
    while not js("!!(window.rankmapPicture && rankmapPicture.ready)"):
        if time.monotonic() > deadline:
            raise TimeoutError("the page never became ready")
        time.sleep(0.05)
    return js, s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("maps", nargs="+")
    ap.add_argument("--shot", required=True)
    ap.add_argument("--name", default="page")
    ap.add_argument("--priced")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    a = ap.parse_args()
    maps = [json.load(open(p)) for p in a.maps]
    W, H = 1400, 900
    b = Browser(a.chromium, W, H)
    try:
        js, s = open_page(b, a.page, W, H)
        n = a.name
        ms = js("rankmapPicture.paintedMs")
        print("%s: first picture painted %.0f ms after navigation start (performance.now())" % (n, ms))
        state = ("rankmapPicture.views.map(function (v) { return {name: v.name, slots: v.gpuSlots, "
                 "drawn: v.drawnGpus(), nodes: v.drawnNodes(), detail: v.detail(), crossings: v.crossings, "
                 "reportCross: v.reportCross, tpSplit: v.tpSplit}; })")
        views = js(state)
        axes = js("rankmapPicture.axes")
        check(n + "/views", len(views) == len(maps), "%d views for %d maps" % (len(views), len(maps)))

        def button(label):
            js("Array.prototype.filter.call(document.querySelectorAll('#bar button'), function (b) "
               "{ return b.textContent === '%s'; })[0].click()" % label)

        # Zoomed in, every node in view is drawn GPU by GPU.
        zoomed = views
        for _ in range(6):
            if all(v["detail"] for v in zoomed):
                break
            button("zoom in")
            zoomed = js(state)
        for i, (v, z, m) in enumerate(zip(views, zoomed, maps)):
            tag = "%s/%s" % (n, "map" if i == 0 else "baseline")
            g = m["gpus_per_node"]
            nodes = len(m["nodes"]) + len(m["spares"])
            # Fitted, every node of the allocation is drawn: GPU by GPU, or
            # as one block when GPU cells would be under 3 pixels.
            ok = v["nodes"] == nodes and v["slots"] == nodes * g and \
                v["drawn"] == (nodes * g if v["detail"] else 0)
            check(tag + "/gpu-cells", ok, "fitted (detail=%s): %s nodes, %s GPU cells drawn; the allocation "
                  "has %d nodes of %d GPUs" % (v["detail"], v["nodes"], v["drawn"], nodes, g))
            check(tag + "/gpu-cells-zoomed", z["detail"] and z["nodes"] > 0 and z["drawn"] == z["nodes"] * g,
                  "zoomed (detail=%s): %s GPU cells for %s nodes" % (z["detail"], z["drawn"], z["nodes"]))
        button("fit")
        priced = json.load(open(a.priced))["priced"]["maps"] if a.priced else None
        for i, (v, m) in enumerate(zip(views, maps)):
            tag = "%s/%s" % (n, "map" if i == 0 else "baseline")
            val = m["validation"]
            # The header as the reader sees it: the figures of the map file.
            head = js("rankmapPicture.views[%d].header()" % i)
            want = ["PP pairs per tier: node %d, leaf %d, pod %d, spine %d" % (
                        val["pp_same_node"], val["pp_same_leaf"] + val["pp_same_rail"],
                        val["pp_cross_pod"], val["pp_cross_spine"]),
                    "DP groups span leaves: max %d, mean %.2f; pods: max %d, mean %.2f" % (
                        val["dp_leaves_max"], val["dp_leaves_mean"], val["dp_tops_max"], val["dp_tops_mean"]),
                    "all must-rules hold: %s" % ("yes" if val["must_ok"] else "no"),
                    "TP groups inside one NVLink domain (%d of %d split" % (val["tp_split"], val["tp_groups"])]
            if val["ep_groups"]:
                want.append("EP groups span leaves: max %d" % val["ep_leaves_max"])
            if priced:
                want.append("%.3f s per step, MFU %.1f %%" % (priced[i]["step_s"], 100 * priced[i]["mfu"]))
            missing = [w for w in want if w not in head]
            check(tag + "/header", not missing, "%r not in the header %r" % (missing, head[:600]))
            check(tag + "/crossings", v["crossings"] == val["pp_cross"] == v["reportCross"],
                  "drew %s crossing links, report says %s" % (v["crossings"], val["pp_cross"]))
            check(tag + "/tp-split", v["tpSplit"] == val["tp_split"],
                  "outlined %s TP groups, report says %s" % (v["tpSplit"], val["tp_split"]))
            # Click a rank that is neither first nor last, by its screen position.
            r = m["world_size"] * 5 // 7
            p = js("rankmapPicture.views[%d].cellCenter(%d)" % (i, r))
            for t_ in ("mousePressed", "mouseReleased"):
                b.send("Input.dispatchMouseEvent", {"type": t_, "x": p["x"], "y": p["y"],
                                                    "button": "left", "clickCount": 1}, session=s)
            rec = m["ranks"][r]
            want = " ".join("%s=%d" % (ax, rec[ax]) for ax in axes)
            got = js("(document.querySelector('.sel-rank') || {}).textContent + '|' + "
                     "(document.querySelector('.sel-coords') || {}).textContent + '|' + "
                     "document.getElementById('info').textContent")
            rank_t, coords, text = (got or "||").split("|", 2)
            check(tag + "/click-shows-coordinates",
                  rank_t == "rank %d" % r and coords == want and
                  ("%s GPU %d" % (rec["host"], rec["local_gpu"])) in text,
                  "clicked rank %d at (%.0f,%.0f): got %r %r %r; want %r on %s GPU %d"
                  % (r, p["x"], p["y"], rank_t, coords, text[:160], want, rec["host"], rec["local_gpu"]))
        # Each highlight button selects the clicked rank's group along its
        # axis: the same members, in the same order, as the map file's
        # groups (or expert_groups) list that holds the rank.
        r = js("Number(document.querySelector('.sel-rank').textContent.slice(5))")
        m = maps[-1]
        lists = dict(m.get("groups", {}), **m.get("expert_groups", {}))
        for ax in axes:
            if ax not in lists or len(lists[ax][0]) < 2:
                continue
            want = [g for g in lists[ax] if r in g]
            got = js("(function () { document.querySelector('#info .group-%s').click(); "
                     "return rankmapPicture.selectedGroup(); })()" % ax)
            check("%s/highlight-%s-group" % (n, ax),
                  got and got["axis"] == ax and want and got["members"] == want[0],
                  "rank %d: highlighted %r, the map file's group is %r" % (r, got, want[:1]))
        # Typing a rank number selects it too (keyboard and screen readers).
        r = maps[0]["world_size"] - 1
        rec = maps[0]["ranks"][r]
        got = js("(function () { var f = document.getElementById('find-rank'); f.value = '%d'; "
                 "f.dispatchEvent(new Event('change')); "
                 "return document.getElementById('info').textContent; })()" % r)
        want = " ".join("%s=%d" % (ax, rec[ax]) for ax in axes)
        check(n + "/find-rank", got.startswith("rank %d: %s on %s GPU %d" % (r, want, rec["host"], rec["local_gpu"])),
              "typed rank %d: %r" % (r, got[:160]))
        # Colouring by another axis: the legend follows.
        other = axes[0] if axes[0] != "pp" else axes[-1]
        legend = js("(function () { var s = document.querySelector('#bar select'); s.value = '%s'; "
                    "s.dispatchEvent(new Event('change')); "
                    "return document.getElementById('legend').textContent; })()" % other)
        check(n + "/colour-by", ("%s 0" % other) in legend, "legend after choosing %s: %r" % (other, legend[:120]))
        shot = b.send("Page.captureScreenshot", {"format": "png"}, session=s)
        os.makedirs(os.path.dirname(os.path.abspath(a.shot)), exist_ok=True)
        with open(a.shot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        print("%s: screenshot %s" % (n, a.shot))
        js("0")  # collect late events
        errs = errors(b.events)
        check(n + "/no-console-errors", not errs, "; ".join(errs)[:600])
    finally:
        b.close()
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
