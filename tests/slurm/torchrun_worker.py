# SPDX-License-Identifier: Apache-2.0
"""One worker that torchrun started: joins the gloo group with torchrun's
numbering (so every worker agrees on it) and prints what it was given, for
check_torchrun.py to hold against the map.

    W rank=R local=L world=W node=NODE cvd=CUDA_VISIBLE_DEVICES slurm=GPUS

GPUS is Slurm's own list of the node's GPUs for the step
(GPU_DEVICE_ORDINAL, which the plugin leaves alone), so that the checker
can say which GPU cuda:LOCAL_RANK is.
"""
import os

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
local = int(os.environ["LOCAL_RANK"])
world = int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo")
got = [torch.zeros(1, dtype=torch.int64) for _ in range(world)]
dist.all_gather(got, torch.tensor([rank], dtype=torch.int64))
seen = sorted(int(t.item()) for t in got)
print("W rank=%d local=%d world=%d node=%s cvd=%s slurm=%s group=%s" % (
    rank, local, world, os.environ.get("SLURMD_NODENAME", "?"),
    os.environ.get("CUDA_VISIBLE_DEVICES", "-"),
    os.environ.get("GPU_DEVICE_ORDINAL", "-"),
    "ok" if seen == list(range(world)) else "bad:%s" % seen), flush=True)
dist.destroy_process_group()
