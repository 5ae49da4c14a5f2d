# SPDX-License-Identifier: Apache-2.0
"""rankmap.torch.device_mesh against torch's real DeviceMesh: WORLD gloo
processes on this machine, each building the mesh of one map and holding
every dimension's group (as torch reports it) against the map's group of
that kind. Prints PASS:/FAIL: lines.

usage: mesh_workers.py NAME MAP.json
"""
import datetime
import json
import os
import socket
import subprocess
import sys
import tempfile

import torch
import torch.distributed as dist

from rankmap import Map
from rankmap.torch import device_mesh, mesh_groups, mesh_shape


def worker(rank, world, port, path):
    # Debian builds torch without libuv, which TCPStore asks for by default.
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                      USE_LIBUV="0")
    # 8 processes on a loaded 2-core make check were once slow enough
    # for two to give up: a generous timeout, the store's and gloo's
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=300))
    m = Map.load(path)
    mesh = device_mesh(m, device_type="cpu")
    bad = []
    for name, ranks in mesh_groups(mesh).items():
        want = m.group(name, rank)
        if list(ranks) != list(want):
            bad.append("%s: torch %s, map %s" % (name, ranks, want))
    # the mesh's own coordinate of this rank is the map's
    coord = mesh.get_coordinate()
    print(json.dumps([rank, list(mesh.mesh_dim_names), coord, bad]),
          flush=True)
    dist.destroy_process_group()


def main():
    name, path = sys.argv[1:3]
    m = Map.load(path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # Processes of their own, not multiprocessing: the root's private
    # /dev has no /dev/shm for its semaphores.
    # stderr to files: a pipe nobody reads yet could stall a worker the
    # others wait for
    errf = [tempfile.TemporaryFile(mode="w+") for _ in range(m.world_size)]
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", str(r),
                               str(m.world_size), str(port), path],
                              stdout=subprocess.PIPE, stderr=errf[r],
                              text=True)
             for r in range(m.world_size)]
    got, codes, errs = [], [], []
    # RM_MESH_TIMEOUT: t_torch2.sh's own check of the hung-worker path
    limit = float(os.environ.get("RM_MESH_TIMEOUT", "400"))
    for p, f in zip(procs, errf):
        try:
            out, _ = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            # a hung worker: none may outlive the suite (the others
            # would wait on it in the root for ever)
            for q in procs:
                q.kill()
            for q in procs:
                q.wait()
            print("FAIL: %s: torch %s: a worker hung past %g s" %
                  (name, torch.__version__, limit))
            return 1
        codes.append(p.returncode)
        if p.returncode:
            # a failing worker's own last words, not only its status
            f.seek(0)
            errs.append(f.read().strip().splitlines()[-1:] or [""])
        f.close()
        for line in out.splitlines():
            if line.startswith("["):
                r, n, c, bad = json.loads(line)
                got.append((r, tuple(n), c, bad))
    shape, names = mesh_shape(m)
    fails = [b for _, _, _, bad in got for b in bad]
    fails += ["rank %d: dims %s, want %s" % (r, n, names)
              for r, n, _, _ in got if n != names]
    fails += ["worker exit %s (%s)" % (c, e[0])
              for c, e in zip([c for c in codes if c], errs)]
    if len(got) != m.world_size:
        fails.append("%d of %d workers reported" % (len(got), m.world_size))
    if fails:
        print("FAIL: %s: torch %s: %s" % (name, torch.__version__,
                                         "; ".join(fails[:4])))
        return 1
    print("PASS: %s (torch %s, mesh %s over %d ranks)" % (
        name, torch.__version__, dict(zip(names, shape)), m.world_size))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
               sys.argv[5])
    else:
        sys.exit(main())
