# SPDX-License-Identifier: Apache-2.0
"""The map's groups as torch.distributed objects.

`device_mesh(map)` needs a torch with DeviceMesh (2.2 or later);
`mesh_shape(map)` is the same logic without torch.
"""

from ._map import Map


class Unsupported(RuntimeError):
    """The installed torch cannot do this."""


def _map(m):
    return m if isinstance(m, Map) else Map.load(m)


def mesh_shape(m):
    """(shape, names) of the device mesh whose row-major numbering is the
    map's: the order's axes, slowest first, dp split into (dp_replicate,
    dp_shard) with HSDP. torchtitan's mesh is (pp, dp_replicate,
    dp_shard, cp, tp); Megatron's default order gives (pp, dp, cp, tp)."""
    m = _map(m)
    if m.experts and m.size("ep") > 1:
        raise ValueError("a device mesh has no expert axis: Megatron "
                         "numbers experts with a second generator over the "
                         "same ranks; use map.groups('ep') or new_groups()")
    names = []
    for axis in m.permutation.split("-")[::-1]:
        if axis == "ep":
            continue
        if axis == "dp" and m.hsdp:
            names += ["dp_replicate", "dp_shard"]
        else:
            names.append(axis)
    # Axes the order leaves out have size 1: put them where torchtitan's
    # mesh (pp, dp, cp, tp) has them.
    canon = ["pp", "dp_replicate" if m.hsdp else "dp", "cp", "tp"]
    for i, axis in enumerate(canon):
        if axis in names:
            continue
        later = [names.index(a) for a in canon[i + 1:] if a in names]
        names.insert(min(later) if later else len(names), axis)
    shape = tuple(m.size(n) for n in names)
    prod = 1
    for s in shape:
        prod *= s
    if prod != m.world_size:
        raise ValueError("mesh %s does not cover %d ranks" %
                         (dict(zip(names, shape)), m.world_size))
    return shape, tuple(names)


def _torch():
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        raise Unsupported("rankmap.torch needs torch") from None
    return torch, dist


def device_mesh(m, device_type="cuda", drop_size_one=False):
    """A torch DeviceMesh over all ranks with the map's axes and names."""
    m = _map(m)
    shape, names = mesh_shape(m)
    if drop_size_one:
        keep = [i for i, s in enumerate(shape) if s > 1] or [0]
        shape = tuple(shape[i] for i in keep)
        names = tuple(names[i] for i in keep)
    torch, _ = _torch()
    try:
        from torch.distributed.device_mesh import DeviceMesh
    except ImportError:
        raise Unsupported(
            "torch %s has no torch.distributed.device_mesh.DeviceMesh "
            "(it came with torch 2.2); use rankmap.torch.new_groups(map) "
            "for plain process groups, or rankmap.torch.mesh_shape(map)" %
            torch.__version__) from None
    mesh = torch.arange(m.world_size).reshape(shape)
    return DeviceMesh(device_type, mesh, mesh_dim_names=names)


def process_group_ranks(group):
    """Global ranks of a torch ProcessGroup, in group-rank order."""
    _, dist = _torch()
    if hasattr(dist, "get_process_group_ranks"):
        return list(dist.get_process_group_ranks(group))
    # torch 1.13: the mapping global -> group rank is kept privately.
    table = dist.distributed_c10d._pg_group_ranks.get(group)
    if table is None:
        raise ValueError("not a process group of this job: %r" % (group,))
    return [g for g, _ in sorted(table.items(), key=lambda kv: kv[1])]


def mesh_groups(mesh):
    """{dim name: the calling rank's group along it} of a DeviceMesh."""
    out = {}
    names = mesh.mesh_dim_names or tuple("dim%d" % i
                                         for i in range(mesh.ndim))
    for i, name in enumerate(names):
        out[name] = process_group_ranks(mesh.get_group(i))
    return out


DEFAULT_KINDS = ("tp", "cp", "dp", "pp", "dp-cp", "tp-pp", "ep", "etp",
                 "edp", "embedding")


def new_groups(m, kinds=None, backend=None, timeout=None):
    """torch.distributed.new_group for every group of each kind (all
    ranks must call it alike); returns {kind: the calling rank's group,
    None where it is in none}. Kinds: default the dense axes, dp-cp,
    tp-pp, embedding, and the expert ones when the map has experts;
    HSDP maps add dp_shard and dp_replicate."""
    m = _map(m)
    _, dist = _torch()
    if kinds is None:
        kinds = [k for k in DEFAULT_KINDS
                 if m.experts or k not in ("ep", "etp", "edp")]
        if m.hsdp:
            kinds += ["dp_shard", "dp_replicate"]
    me = dist.get_rank()
    if dist.get_world_size() != m.world_size:
        raise ValueError("the job has %d ranks, the map %d" %
                         (dist.get_world_size(), m.world_size))
    out = {}
    kw = {"backend": backend}
    if timeout is not None:
        kw["timeout"] = timeout
    for kind in kinds:
        out[kind] = None
        for g in m.groups(kind):
            pg = dist.new_group(ranks=g, **kw)
            if me in g:
                out[kind] = pg
    return out
