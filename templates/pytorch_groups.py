#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A plain PyTorch job that takes everything from rankmap's SPANK plugin.

    srun --parallel-layout=2x2x2 python3 templates/pytorch_groups.py

init_process_group reads RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
(env://). The groups come from the map file ($RANKMAP_MAP) through the
rankmap Python package (python/ in the source tree, `pip install ./python`
or `make install`): rankmap.torch.new_groups creates every group of every
kind on every rank, in the same order, as torch.distributed requires, and
rankmap.verify checks them against the map. Then one all_reduce per group
checks that the group really holds the ranks the map says: each rank
contributes its RANK and the sum must be the sum of the members.

Backend: RANKMAP_BACKEND, default nccl when CUDA is available, else gloo.
With nccl every rank first binds its GPU (LOCAL_RANK) and the tensors live
there; with gloo they stay on the CPU.

Exit status 0 when every check passed; 1 otherwise.
"""
import hashlib
import os
import sys
import time

try:
    import rankmap
except ImportError:  # running from a source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "python"))
    import rankmap
import rankmap.torch as rmt


def fail(msg):
    print("rank %s: FAILED: %s" % (os.environ.get("RANK", "?"), msg),
          flush=True)
    sys.exit(1)


def env_int(name):
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        fail("%s is missing or not a number; was the job started with "
             "--parallel-layout?" % name)


def main():
    rank, world = env_int("RANK"), env_int("WORLD_SIZE")
    local_rank = env_int("LOCAL_RANK")
    path = os.environ.get("RANKMAP_MAP", "")
    with open(path, "rb") as f:
        raw = f.read()
    if hashlib.sha256(raw).hexdigest() != os.environ.get("RANKMAP_MAP_SHA256"):
        fail("map file %s does not match RANKMAP_MAP_SHA256" % path)
    m = rankmap.Map.loads(raw.decode("utf-8"), path)
    if m.world_size != world:
        fail("map file %s is not a map of this world" % path)
    me = m.ranks[rank]
    if me.local_gpu != local_rank:
        fail("map says rank %d is local GPU %d, env says %d"
             % (rank, me.local_gpu, local_rank))
    for axis in ("tp", "cp", "pp", "dp"):
        var = "RANKMAP_%s_RANK" % axis.upper()
        if var in os.environ and int(os.environ[var]) != me.coord.get(axis, 0):
            fail("%s disagrees with the map" % var)

    import torch
    import torch.distributed as dist

    backend = os.environ.get("RANKMAP_BACKEND") or (
        "nccl" if torch.cuda.is_available() else "gloo")
    device = torch.device("cpu")
    if backend == "nccl":
        # NCCL needs each rank on its own GPU before the first collective.
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    t0 = time.time()
    dist.init_process_group(backend=backend, init_method="env://")
    if dist.get_rank() != rank or dist.get_world_size() != world:
        fail("torch sees rank %d of %d" % (dist.get_rank(),
                                           dist.get_world_size()))

    kinds = ["tp", "pp", "dp", "tp-pp"] + (["cp"] if m.size("cp") > 1 else [])
    if m.experts:
        kinds += ["ep", "edp"]
    if m.hsdp:
        kinds += ["dp_shard", "dp_replicate"]
    groups = rmt.new_groups(m, kinds=kinds)
    try:
        rankmap.verify(m, rank=rank, **{k: g for k, g in groups.items()})
    except rankmap.GroupMismatch as e:
        fail(str(e))

    for kind, g in groups.items():
        members = m.group(kind, rank)
        t = torch.tensor([float(rank)], device=device)
        dist.all_reduce(t, group=g)
        if int(t.item()) != sum(members):
            fail("%s group %s: all_reduce gave %d, expected %d"
                 % (kind, members, int(t.item()), sum(members)))
    t = torch.tensor([1.0], device=device)
    dist.all_reduce(t)
    if int(t.item()) != world:
        fail("world all_reduce gave %d" % int(t.item()))
    print("rank %d OK host %s %s (%.1fs)" % (
        rank, me.host,
        " ".join("%s=%s" % (k, m.group(k, rank)) for k in kinds),
        time.time() - t0), flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
