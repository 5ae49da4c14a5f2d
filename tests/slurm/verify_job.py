#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for a training framework in a real Slurm job: it builds its
own tp/dp/pp process groups the way Megatron-Core does for the order in
FRAMEWORK_ORDER (tests/frameworks/megatron_ref.py), then calls
rankmap.verify against the map the plugin planned - as a training script
would at step 0. A numbering that differs from the plan must stop the job
there, naming the first group that differs; so must a map of other nodes
(FOREIGN_MAP), whose groups agree."""
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "frameworks"))
import megatron_ref  # noqa: E402
import rankmap  # noqa: E402
import torch.distributed as dist  # noqa: E402

# FOREIGN_MAP: a map of other nodes with the same layout (another job's)
m = rankmap.load(os.environ.get("FOREIGN_MAP") or os.environ["RANKMAP_MAP"])
dist.init_process_group("gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()
tp, pp = m.size("tp"), m.size("pp")
ref = megatron_ref.megatron(world, tp, pp, 1, 1, None,
                            os.environ["FRAMEWORK_ORDER"])
mine = {}
for kind in ("tp", "dp", "pp"):          # the framework's own groups
    for g in ref[kind]:
        pg = dist.new_group(ranks=g)
        if rank in g:
            mine[kind] = pg
try:
    rankmap.verify(m, tp=mine["tp"], dp=mine["dp"], pp=mine["pp"])
except (rankmap.GroupMismatch, rankmap.PlacementMismatch) as e:
    print("rank %d STOP %s" % (rank, e), flush=True)
    sys.exit(3)
print("rank %d VERIFIED" % rank, flush=True)
dist.barrier()
print("rank %d STEP 1" % rank, flush=True)
dist.destroy_process_group()
