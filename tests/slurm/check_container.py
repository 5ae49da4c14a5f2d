# SPDX-License-Identifier: Apache-2.0
"""check_container.py - run as a step's task inside `apptainer exec`
(tests/slurm/t_launchers.sh, issue 23.3): the plugin's variables reached
the container, the map file they name is readable there and is the one
the plugin wrote (RANKMAP_MAP_SHA256), this rank's record in it is this
host, and the Python package's verify runs against it. Prints
one line "C RANK ok" or "C RANK FAIL why"."""
import hashlib
import os
import sys

rank = os.environ.get("RANK", "?")


def out(what):
    print("C %s %s" % (rank, what), flush=True)
    sys.exit(0)


if not os.environ.get("APPTAINER_CONTAINER"):
    out("FAIL not inside an Apptainer container")
path = os.environ.get("RANKMAP_MAP", "")
try:
    data = open(path, "rb").read()
except OSError as e:
    out("FAIL map %r unreadable in the container: %s" % (path, e))
if hashlib.sha256(data).hexdigest() != os.environ.get("RANKMAP_MAP_SHA256"):
    out("FAIL map digest differs from RANKMAP_MAP_SHA256")
import rankmap  # noqa: E402  (from PYTHONPATH, bound into the container)
m = rankmap.load(path)
r = int(rank)
rec = m.ranks[r] if 0 <= r < len(m.ranks) else None
if rec is None or rec.rank != r or rec.host != os.environ["SLURMD_NODENAME"]:
    out("FAIL map says %r for rank %d on %s" % (rec, r,
                                               os.environ["SLURMD_NODENAME"]))
if int(os.environ["WORLD_SIZE"]) != len(m.ranks):
    out("FAIL WORLD_SIZE %s, map %d" % (os.environ["WORLD_SIZE"], len(m.ranks)))
# inside a Slurm task verify checks this rank's host first (SLURMD_NODENAME)
got = rankmap.verify(m, rank=r, tp=m.group("tp", r), pp=m.group("pp", r))
if got != ["host", "tp", "pp"]:
    out("FAIL verify checked %s" % got)
out("ok")
