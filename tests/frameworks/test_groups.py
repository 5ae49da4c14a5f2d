# SPDX-License-Identifier: Apache-2.0
"""rankmap's dense and expert groups against Megatron-Core's rules and
torch DeviceMesh's (tests/frameworks/megatron_ref.py), through the CLI."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import megatron_ref  # noqa: E402

RANKMAP = os.environ.get("RANKMAP", "build/asan/rankmap")
fails = 0


def report(ok, name, why=""):
    global fails
    if ok:
        print("PASS: groups/%s" % name)
    else:
        fails += 1
        print("FAIL: groups/%s: %s" % (name, why))


def plan(layout, order, world):
    gpn = 8 if world % 8 == 0 else world
    nodes = "n[1-%d]" % (world // gpn) if world // gpn > 1 else "n1"
    p = subprocess.run([RANKMAP, "plan", "--layout", layout, "--order", order,
                        "--nodes", nodes, "--gpus-per-node", str(gpn),
                        "--format", "json"],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# tp, cp, ep, etp (None = tp), pp, dp
MEGATRON = [
    (1, 1, 1, None, 1, 8), (2, 1, 1, None, 2, 4), (2, 1, 2, None, 2, 4),
    (2, 2, 2, None, 1, 2), (2, 2, 4, None, 2, 2), (4, 1, 4, 1, 2, 2),
    (2, 1, 4, 1, 1, 4), (2, 2, 2, 1, 2, 2), (1, 2, 2, None, 2, 2),
    (2, 1, 8, 1, 1, 8), (2, 1, 4, None, 4, 4), (4, 2, 2, 2, 1, 2),
    (1, 1, 4, 2, 2, 4), (2, 3, 2, None, 1, 2), (3, 1, 2, None, 2, 2),
    (2, 1, 1, 4, 1, 4), (1, 1, 2, None, 3, 2), (2, 2, 1, None, 2, 2),
    (4, 1, 2, None, 2, 4), (2, 1, 2, None, 1, 1), (8, 1, 8, 1, 2, 2),
    (1, 1, 8, None, 1, 8), (2, 2, 8, 1, 2, 2), (2, 1, 2, None, 2, 2),
]
ORDERS = {"megatron": "tp-cp-ep-dp-pp", "llama3": "tp-cp-ep-pp-dp"}
checked = 0
for tp, cp, ep, etp, pp, dp in MEGATRON:
    world = tp * cp * pp * dp
    layout = "tp=%d,cp=%d,ep=%d%s,pp=%d,dp=%d" % (
        tp, cp, ep, "" if etp is None else ",etp=%d" % etp, pp, dp)
    for oname, ostr in ORDERS.items():
        name = "%s/%s" % (oname, layout)
        try:
            ref = megatron_ref.megatron(world, tp, pp, cp, ep, etp, ostr)
        except ValueError as e:
            rc, out, err = plan(layout, oname, world)
            report(rc != 0 and ("must divide" in err or "order" in err),
                   name + "/refused", "Megatron refuses (%s), rankmap rc=%d %s"
                   % (e, rc, err.strip()[-200:]))
            continue
        rc, out, err = plan(layout, oname, world)
        if rc != 0:
            report(False, name, "rc=%d %s" % (rc, err.strip()[-300:]))
            continue
        m = json.loads(out)
        got = dict(m["groups"])
        got.update(m.get("expert_groups", {}))
        bad = [k for k in ("tp", "cp", "dp", "pp", "ep", "etp", "edp")
               if k in got and got[k] != ref[k]]
        missing = [k for k in ("tp", "dp", "pp", "ep", "etp", "edp")
                   if k not in got]
        # Each rank record's coordinate is its place in its group.
        coord_ok = all(got[k][[i for i, g in enumerate(got[k]) if r["rank"] in g][0]]
                       .index(r["rank"]) == r[k]
                       for r in m["ranks"] for k in got)
        report(not bad and not missing and coord_ok, name,
               "differs: %s missing: %s coords %s" % (bad, missing, coord_ok))
        checked += 1

# HSDP: torchtitan's mesh (pp, dp_replicate, dp_shard, cp, tp), row-major.
HSDP = [(2, 1, 1, 2, 2), (1, 1, 2, 2, 4), (2, 2, 2, 2, 1), (1, 2, 1, 1, 4),
        (4, 1, 2, 2, 2), (2, 1, 2, 1, 4), (1, 1, 1, 4, 2), (1, 2, 2, 2, 2)]
for tp, cp, pp, rep, shard in HSDP:
    world = tp * cp * pp * rep * shard
    layout = "tp=%d,cp=%d,pp=%d,dp_replicate=%d,dp_shard=%d" % (
        tp, cp, pp, rep, shard)
    ref = megatron_ref.device_mesh(
        [pp, rep, shard, cp, tp], ["pp", "dp_replicate", "dp_shard", "cp", "tp"])
    rc, out, err = plan(layout, "torchtitan", world)
    if rc != 0:
        report(False, "torchtitan/" + layout, err.strip()[-300:])
        continue
    g = json.loads(out)["groups"]
    bad = [k for k in ref if sorted(g[k]) != ref[k]]
    report(not bad, "torchtitan/" + layout, "differs: %s" % bad)
    checked += 1

# torchtitan's expert mesh (parallel_dims.py, pytorch/torchtitan at
# b5bcd76: sparse mesh (pp, dp_replicate, efsdp, ep), row-major, efsdp =
# dp_shard x cp x tp / ep). rankmap refuses --order torchtitan with ep > 1
# and names --order megatron with etp=1, whose groups must then be
# torchtitan's: ep always, efsdp (Megatron's edp) when dp_replicate is 1.
for tp, cp, ep, pp, shard in [(2, 1, 4, 2, 4), (2, 2, 8, 1, 2),
                              (4, 1, 2, 2, 2), (1, 2, 4, 2, 2)]:
    world = tp * cp * pp * shard
    efsdp = shard * cp * tp // ep
    ref = megatron_ref.device_mesh([pp, efsdp, ep], ["pp", "efsdp", "ep"])
    layout = "tp=%d,cp=%d,ep=%d,etp=1,pp=%d,dp=%d" % (tp, cp, ep, pp, shard)
    rc, out, err = plan(layout, "torchtitan", world)
    report(rc != 0 and "--order megatron with etp=1" in err,
           "torchtitan-ep-refused/" + layout, err.strip()[-200:])
    rc, out, err = plan(layout, "megatron", world)
    if rc != 0:
        report(False, "torchtitan-ep/" + layout, err.strip()[-300:])
        continue
    g = json.loads(out)["expert_groups"]
    bad = [k for k, mk in (("ep", "ep"), ("efsdp", "edp"))
           if sorted(g[mk]) != ref[k]]
    report(not bad, "torchtitan-ep/" + layout, "differs: %s" % bad)

report(checked >= 20, "enough-worlds", "only %d worlds compared" % checked)
sys.exit(1 if fails else 0)
