# SPDX-License-Identifier: Apache-2.0
"""Rank orders judged by their content, against Megatron-Core's own
assertions, and the Python package's groups against the C library's.

The table of verdicts comes from megatron_ref.megatron(), a test-side
rewrite of initialize_model_parallel()'s two assertions
(megatron/core/parallel_state.py, NVIDIA/Megatron-LM at d98e8a6,
2026-08-22, lines 898-906: "When not using pp-last rank ordering, the data
parallel size of the attention and moe layers must be the same" and
"Pipeline parallel groups are expected to be the same for Non-Expert and
Expert part"). rankmap must accept what those accept and refuse what they
refuse, with one stated exception: rankmap numbers ep as a factor of data
parallelism, so with ep > 1 it refuses an order where ep is not right
before dp (message "right before dp"), which Megatron would allow.

A named order and the same permutation written out must give the same
answer and the same groups (issue 39: llama3 was checked, its spelling
tp-cp-ep-pp-dp was not).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import megatron_ref  # noqa: E402
import rankmap  # noqa: E402

RANKMAP = os.environ.get("RANKMAP", "build/asan/rankmap")
fails = 0


def report(ok, name, why=""):
    global fails
    if ok:
        print("PASS: orders/%s" % name)
    else:
        fails += 1
        print("FAIL: orders/%s: %s" % (name, why))


def plan(layout, order, world):
    p = subprocess.run([RANKMAP, "plan", "--layout", layout, "--order", order,
                        "--nodes", "n1", "--gpus-per-node", str(world),
                        "--format", "json"], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


NAMED = {"megatron": "tp-cp-ep-dp-pp", "llama3": "tp-cp-ep-pp-dp"}
CUSTOM = ["tp-cp-ep-pp-dp", "tp-cp-ep-dp-pp", "cp-tp-ep-dp-pp",
          "tp-pp-cp-ep-dp", "pp-tp-cp-ep-dp", "tp-ep-cp-dp-pp",
          "dp-tp-cp-ep-pp", "tp-cp-pp-ep-dp", "cp-ep-dp-tp-pp",
          "tp-dp-cp-ep-pp"]
# tp, cp, ep, etp (None = tp), pp, dp
LAYOUTS = [(2, 4, 1, None, 2, 2), (2, 2, 1, None, 2, 2), (2, 1, 1, None, 2, 4),
           (2, 2, 4, 1, 2, 2), (2, 1, 4, None, 2, 4), (1, 2, 2, None, 2, 2),
           (4, 1, 2, 2, 2, 2), (2, 2, 2, None, 1, 2), (2, 1, 2, 1, 2, 2)]

verdicts = {"accept": 0, "refuse": 0, "stricter": 0}
for tp, cp, ep, etp, pp, dp in LAYOUTS:
    world = tp * cp * pp * dp
    layout = "tp=%d,cp=%d,ep=%d%s,pp=%d,dp=%d" % (
        tp, cp, ep, "" if etp is None else ",etp=%d" % etp, pp, dp)
    answers = {}
    for order in list(NAMED) + CUSTOM:
        perm = NAMED.get(order, order)
        try:
            ref = megatron_ref.megatron(world, tp, pp, cp, ep, etp, perm)
        except ValueError as e:
            ref, why = None, str(e)
        rc, out, err = plan(layout, order, world)
        name = "%s/%s" % (layout, order)
        answers[order] = (rc, json.loads(out)["groups"] if rc == 0 else None)
        if ref is None:
            report(rc != 0 and "order" in err, name + "/refused",
                   "Megatron refuses (%s); rankmap rc=%d" % (why, rc))
            verdicts["refuse"] += 1
        elif rc != 0:
            ok = ep > 1 and "right before dp" in err
            report(ok, name + "/stricter",
                   "Megatron accepts; rankmap: %s" % err.strip()[-200:])
            verdicts["stricter"] += 1
        else:
            m = json.loads(out)
            got = dict(m["groups"])
            got.update(m.get("expert_groups", {}))
            bad = [k for k in got if k in ref and got[k] != ref[k]]
            report(not bad, name, "groups differ from Megatron's: %s" % bad)
            verdicts["accept"] += 1
    for order, perm in NAMED.items():
        report(answers[order] == answers[perm],
               "%s/%s=%s" % (layout, order, perm),
               "a named order and its permutation answer differently")

report(verdicts["accept"] >= 20 and verdicts["refuse"] >= 10 and
       verdicts["stricter"] >= 1, "table-covers-all-verdicts",
       str(verdicts))

# The Python package's groups against Megatron's and the C library's, on
# dense maps with unusual orders (where etp != tp's numbering) and on
# MoE maps (where the file lists the C library's expert groups, which
# rankmap.Map checks its own derivation against on every call).
KINDS = ("tp", "cp", "dp", "pp", "tp-pp", "tp-cp", "tp-dp", "dp-cp",
         "tp-dp-cp", "etp", "edp", "etp-ep", "etp-ep-pp")
REF_KIND = {}
PY_ORDERS = ["cp-tp-dp-pp", "dp-tp-cp-pp", "tp-cp-dp-pp", "cp-dp-tp-pp",
             "cp-tp-ep-dp-pp", "tp-cp-ep-dp-pp",
             "megatron", "llama3", "tp-dp-cp-pp"]
compared = 0
for tp, cp, ep, etp, pp, dp in [(2, 2, 1, None, 2, 2), (2, 3, 1, None, 1, 2),
                                (4, 2, 1, None, 2, 1), (2, 2, 2, 1, 1, 2),
                                (2, 2, 1, None, 1, 2)]:
    world = tp * cp * pp * dp
    # A dense map says nothing of ep: the package derives its groups.
    layout = "tp=%d,cp=%d%s,pp=%d,dp=%d" % (
        tp, cp, "" if ep == 1 and etp is None else ",ep=%d,etp=%d" % (
            ep, etp or tp), pp, dp)
    for order in PY_ORDERS:
        if ep > 1 and "ep" not in NAMED.get(order, order):
            continue
        perm = NAMED.get(order, order)
        try:
            ref = megatron_ref.megatron(world, tp, pp, cp, ep, etp, perm)
        except ValueError:
            continue
        rc, out, err = plan(layout, order, world)
        name = "python/%s/%s" % (layout, order)
        if rc != 0:
            report(False, name, err.strip()[-200:])
            continue
        try:
            m = rankmap.Map.loads(out, name)
            bad = [k for k in KINDS if m.groups(k) != sorted(ref[k])]
        except (rankmap.MapError, KeyError) as e:
            bad = [str(e)]
        report(not bad, name, "Map.groups differs from Megatron: %s" % bad)
        compared += 1
report(compared >= 25, "python-enough-maps", "only %d maps" % compared)
sys.exit(1 if fails else 0)
