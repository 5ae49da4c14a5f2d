# SPDX-License-Identifier: Apache-2.0
"""rankmap.verify: compare the groups a framework built with the map."""

import os

from ._map import ALIASES, EMBEDDING, KINDS, Map


def _kind(key):
    """A keyword as a group kind: dp_cp -> dp-cp, mp -> tp-pp."""
    if key in KINDS or key in EMBEDDING or key in ALIASES:
        return ALIASES.get(key, key)
    k = key.replace("_", "-").replace("dp-shard", "dp_shard").replace(
        "dp-replicate", "dp_replicate")
    return ALIASES.get(k, k)


class GroupMismatch(RuntimeError):
    """The framework's numbering disagrees with the map: the first group
    that differs, as the map and as the framework have it."""

    def __init__(self, kind, rank, expected, got, m):
        self.kind, self.rank, self.expected, self.got = kind, rank, \
            expected, got
        super().__init__(
            "rankmap: %s group of rank %s is %s, but the map (%s, order %s "
            "= %s) has %s - the framework numbers ranks differently from "
            "the plan; fix its order flags or re-plan with the right "
            "--order" % (kind, rank, got, m.layout, m.order, m.permutation,
                         expected))


class PlacementMismatch(RuntimeError):
    """The rank runs somewhere other than where the map puts it: on
    another host (a map of another allocation) or another GPU."""

    def __init__(self, what, rank, expected, got):
        self.kind, self.rank, self.expected, self.got = what, rank, \
            expected, got
        super().__init__(
            "rankmap: rank %s runs on %s %s, but the map puts it on %s - "
            "the map is not this job's (another allocation, or another "
            "step's) or the job was started without the plugin"
            % (rank, what, got, expected))


def _this_host():
    """The Slurm node this task runs on; None outside a Slurm task (no
    guess from gethostname(): a node's name in Slurm need not be it)."""
    return os.environ.get("SLURMD_NODENAME") or None


def _check_place(m, rank, host, gpu):
    """Kinds of place checked ("host", "gpu")."""
    if not 0 <= rank < len(m.ranks):
        raise ValueError("rankmap.verify: rank %d is not in the map "
                         "(world %d)" % (rank, len(m.ranks)))
    r = m.ranks[rank]
    done = []
    if host is not None:
        if host != r.host:
            raise PlacementMismatch("host", rank, r.host, host)
        done.append("host")
    if gpu is not None:
        if int(gpu) != r.local_gpu:
            raise PlacementMismatch("GPU", rank, r.local_gpu, int(gpu))
        done.append("gpu")
    return done


def _this_rank():
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except ImportError:
        pass
    if "RANK" in os.environ:
        return int(os.environ["RANK"])
    return None


def ranks_of(group):
    """Global ranks of a group given as a list, a torch ProcessGroup or
    Megatron's lists; None for None."""
    if group is None:
        return None
    if isinstance(group, (list, tuple, range)):
        return [int(x) for x in group]
    from . import torch as rt
    return rt.process_group_ranks(group)


def verify(m, rank=None, host=None, gpu=None, **groups):
    """Check the framework's groups against the map; raise GroupMismatch
    with the first that differs.

    First the rank's place: `host` (default: Slurm's SLURMD_NODENAME,
    inside a Slurm task) must be the map's host of `rank`, and `gpu`, when
    given, its local GPU index; PlacementMismatch otherwise.

    Each keyword is a group kind (tp, cp, dp, pp, ep, etp, edp, dp_shard,
    dp_replicate, dp-cp as dp_cp, tp-pp as mp, tp_cp, tp_dp, tp_dp_cp,
    etp_ep, etp_ep_pp, embedding, position_embedding) and its value the
    calling rank's group (a list of global ranks or a ProcessGroup), or
    every group of that kind (a list of lists). `mesh=` takes a torch
    DeviceMesh and checks each of its named dimensions. Returns the kinds
    checked.
    """
    if not isinstance(m, Map):
        m = Map.load(m)
    if rank is None:
        rank = _this_rank()
    mesh = groups.pop("mesh", None)
    checked = []
    if rank is not None:
        checked += _check_place(m, rank,
                                host if host is not None else _this_host(),
                                gpu)
    elif host is not None or gpu is not None:
        raise ValueError("rankmap.verify: which rank is this? pass rank= "
                         "or initialise torch.distributed")
    if mesh is not None:
        from . import torch as rt
        for name, ranks in rt.mesh_groups(mesh).items():
            # torchtitan adds flattened dims ("batch", "loss") that are no
            # group kind of the map: those are not the map's to judge.
            k = _kind(name)
            if k in KINDS or k in EMBEDDING:
                groups.setdefault(k, ranks)
    for key, value in groups.items():
        kind = _kind(key)
        if value is None:
            continue
        if (isinstance(value, (list, tuple)) and value and
                isinstance(value[0], (list, tuple))):
            got_all = sorted(sorted(int(x) for x in g) for g in value)
            want_all = m.groups(kind)
            for want, got in zip(want_all, got_all):
                if want != got:
                    raise GroupMismatch(kind, want[0], want, got, m)
            if len(want_all) != len(got_all):
                raise GroupMismatch(kind, None, "%d groups" % len(want_all),
                                    "%d groups" % len(got_all), m)
        else:
            got = ranks_of(value)
            if rank is None:
                raise ValueError("rankmap.verify: which rank is this? pass "
                                 "rank= or initialise torch.distributed")
            want = m.group(kind, rank)
            if sorted(got) != (want or []) or got != sorted(got):
                raise GroupMismatch(kind, rank, want, got, m)
        checked.append(kind)
    return checked


def megatron_groups(parallel_state=None):
    """The calling rank's groups as Megatron-Core's parallel_state holds
    them (global rank lists where it keeps them, else the groups)."""
    if parallel_state is None:
        from megatron.core import parallel_state  # noqa: F811
    ps = parallel_state
    out = {}

    def take(kind, names, getter=None):
        for n in names:
            v = getattr(ps, n, None)
            if v:
                out[kind] = v
                return
        if getter and hasattr(ps, getter):
            try:
                out[kind] = getattr(ps, getter)()
            except (AssertionError, RuntimeError, TypeError):
                pass

    take("tp", ["_TENSOR_MODEL_PARALLEL_GLOBAL_RANKS"],
         "get_tensor_model_parallel_group")
    take("pp", ["_PIPELINE_GLOBAL_RANKS"], "get_pipeline_model_parallel_group")
    take("dp", ["_DATA_PARALLEL_GLOBAL_RANKS"], "get_data_parallel_group")
    take("dp-cp", ["_DATA_PARALLEL_GLOBAL_RANKS_WITH_CP"])
    take("cp", ["_CONTEXT_PARALLEL_GLOBAL_RANKS"],
         "get_context_parallel_group")
    take("tp-pp", ["_MODEL_PARALLEL_GLOBAL_RANKS"], "get_model_parallel_group")
    take("embedding", ["_EMBEDDING_GLOBAL_RANKS"])
    take("ep", ["_EXPERT_MODEL_PARALLEL_RANKS"],
         "get_expert_model_parallel_group")
    take("etp", [], "get_expert_tensor_parallel_group")
    take("edp", [], "get_expert_data_parallel_group")
    # With virtual pipelines Megatron may keep a list of pipeline groups.
    if out.get("pp") and isinstance(out["pp"][0], (list, tuple)):
        out.pop("pp")
    return out


def verify_megatron(m, parallel_state=None, rank=None):
    """verify() with every group Megatron-Core's parallel_state has."""
    return verify(m, rank=rank, **megatron_groups(parallel_state))
