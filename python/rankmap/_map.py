# SPDX-License-Identifier: Apache-2.0
"""A rankmap-map/1 file as plain Python objects, and the framework's
process groups derived from it.

Every group the map implies - single axes and combined ones such as
Megatron's model-parallel (tp-pp) group - is the set of ranks that agree
with each other on all the *other* axes of one numbering: the dense one
(tp, cp, dp, pp; dp split into dp_shard and dp_replicate with HSDP) or
Megatron-Core's expert one (etp, ep, edp, pp). Both frameworks list the
members of a group, and the groups, in increasing rank order.
"""

import json
import os

from ._check import Bad, validate

SCHEMA = "rankmap-map/1"

# The two numberings, as the coordinates the map file writes per rank.
DENSE = ("tp", "cp", "dp_shard", "dp_replicate", "pp")
EXPERT = ("etp", "ep", "edp", "pp")

# Group kinds: (numbering, axes the group spans).
KINDS = {
    "tp": (DENSE, ("tp",)),
    "cp": (DENSE, ("cp",)),
    "dp": (DENSE, ("dp_shard", "dp_replicate")),
    "pp": (DENSE, ("pp",)),
    "dp_shard": (DENSE, ("dp_shard",)),
    "dp_replicate": (DENSE, ("dp_replicate",)),
    "dp-cp": (DENSE, ("dp_shard", "dp_replicate", "cp")),
    "tp-pp": (DENSE, ("tp", "pp")),
    "tp-cp": (DENSE, ("tp", "cp")),
    "tp-dp": (DENSE, ("tp", "dp_shard", "dp_replicate")),
    "tp-dp-cp": (DENSE, ("tp", "dp_shard", "dp_replicate", "cp")),
    "dp_shard-cp": (DENSE, ("dp_shard", "cp")),
    "ep": (EXPERT, ("ep",)),
    "etp": (EXPERT, ("etp",)),
    "edp": (EXPERT, ("edp",)),
    "etp-ep": (EXPERT, ("etp", "ep")),
    "etp-ep-pp": (EXPERT, ("etp", "ep", "pp")),
}
ALIASES = {"mp": "tp-pp", "model": "tp-pp"}
EMBEDDING = ("embedding", "position-embedding")


class MapError(ValueError):
    """The file is not a usable rankmap-map/1 document."""


class Rank:
    """One rank: where it runs and its coordinate on every axis."""

    __slots__ = ("rank", "host", "node", "local_gpu", "coord", "leaf")

    def __init__(self, rank, host, node, local_gpu, coord, leaf=None):
        self.rank, self.host, self.node = rank, host, node
        self.local_gpu, self.coord, self.leaf = local_gpu, coord, leaf

    def __repr__(self):
        return "Rank(%d, %s:%d, %s)" % (self.rank, self.host, self.local_gpu,
                                        self.coord)


def _load_text(text, name):
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import yaml
    except ImportError:
        raise MapError("%s: not JSON, and reading YAML needs PyYAML "
                       "(python3-yaml)" % name) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise MapError("%s: %s" % (name, e)) from None


class Map:
    """A rank map. `Map.load(path)` or `rankmap.load(path)`."""

    def __init__(self, doc, name="<map>"):
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            raise MapError("%s: not a %s document" % (name, SCHEMA))
        try:
            validate(doc)
        except Bad as e:
            raise MapError("%s: %s" % (name, e)) from None
        try:
            self.name = name
            self.layout = doc["layout"]
            self.axes = dict(doc["axes"])
            self.order = doc["order"]["name"]
            self.permutation = doc["order"]["permutation"]
            self.world_size = int(doc["world_size"])
            self.gpus_per_node = int(doc["gpus_per_node"])
            self.nodes = [n["host"] for n in doc["nodes"]]
            self.spares = list(doc.get("spares", []))
            self.ranks = [Rank(r["rank"], r["host"], r["node"],
                               r["local_gpu"],
                               {a: int(r[a]) for a in self.axes},
                               r.get("leaf")) for r in doc["ranks"]]
        except (KeyError, TypeError, ValueError) as e:
            raise MapError("%s: missing or malformed field %s" % (name, e)) \
                from None
        # any order in the file, as librankmap reads it
        self.ranks.sort(key=lambda r: r.rank)
        self._listed = dict(doc.get("groups", {}))
        self._listed.update(doc.get("expert_groups", {}))
        self._cache = {}
        # listed groups: exactly those the coordinates give, in order
        for kind, lists in self._listed.items():
            if kind not in KINDS and kind not in EMBEDDING:
                raise MapError("%s: groups: %r is not a group kind of this "
                               "layout" % (name, kind))
            if lists != self.groups(kind):
                raise MapError("%s: the %s groups it lists differ from its "
                               "rank coordinates" % (name, kind))

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls(_load_text(f.read(), path), path)

    @classmethod
    def loads(cls, text, name="<map>"):
        return cls(_load_text(text, name), name)

    def size(self, axis):
        """The framework's degree of an axis (1 when the map has none)."""
        return int(self.axes.get(axis, 1))

    @property
    def experts(self):
        return "ep" in self.axes

    @property
    def hsdp(self):
        return "dp_shard" in self.axes

    def _coords(self, r):
        """All coordinates of rank r in both numberings."""
        c = self.ranks[r].coord
        out = {"tp": c["tp"], "cp": c.get("cp", 0), "pp": c["pp"]}
        if self.hsdp:
            out["dp_shard"], out["dp_replicate"] = c["dp_shard"], \
                c["dp_replicate"]
        else:
            out["dp_shard"], out["dp_replicate"] = c["dp"], 0
        if self.experts:
            out.update(etp=c["etp"], ep=c["ep"], edp=c["edp"])
        else:
            etp, edp = self._dense_expert(r, c)
            out.update(etp=etp, ep=0, edp=edp)
        return out

    def _dense_expert(self, r, c):
        """Megatron-Core builds expert groups for dense models too: a
        second numbering in the same order with etp = tp, ep = 1, cp = 1
        and edp = world / (tp x pp). Ranks are decoded in that numbering,
        fastest axis first, as its RankGenerator does; the same
        definition as librankmap's (layout/groups.c)."""
        names = self.permutation.split("-")
        tp, pp = self.size("tp"), self.size("pp")
        size = {"tp": tp, "cp": 1, "ep": 1, "pp": pp,
                "dp": self.world_size // (tp * pp)}
        if self.hsdp or any(n not in size for n in names):
            # HSDP maps (torchtitan's mesh) have no Megatron expert
            # numbering: edp spans dp and cp as the dense one does.
            return c["tp"], c.get("cp", 0) + self.size("cp") * c["dp"]
        names += [n for n in size if n not in names]
        at = {}
        for n in names:
            at[n] = r % size[n]
            r //= size[n]
        return at["tp"], at["dp"]

    def groups(self, kind):
        """Every group of a kind, each a sorted list of ranks, in the
        framework's order (by first member)."""
        kind = ALIASES.get(kind, kind)
        if kind in self._cache:
            return self._cache[kind]
        if kind in EMBEDDING:
            out = [[g[0], g[-1]] if len(g) > 1 and kind == "embedding"
                   else [g[0]] for g in self.groups("pp")]
        elif kind in KINDS:
            numbering, spans = KINDS[kind]
            keep = [a for a in numbering if a not in spans]
            by_key = {}
            for r in range(self.world_size):
                c = self._coords(r)
                by_key.setdefault(tuple(c[a] for a in keep), []).append(r)
            out = sorted(by_key.values())
        else:
            raise KeyError("unknown group kind %r (known: %s)" % (
                kind, ", ".join(sorted(set(KINDS) | set(ALIASES) |
                                       set(EMBEDDING)))))
        listed = self._listed.get(kind)
        if listed is not None and sorted(listed) != out:
            raise MapError("%s: the %s groups it lists differ from its rank "
                           "coordinates" % (self.name, kind))
        self._cache[kind] = out
        return out

    def group(self, kind, rank):
        """The group of `rank`, or None (position-embedding, a rank on a
        middle stage)."""
        for g in self.groups(kind):
            if rank in g:
                return g
        return None

    def rank_at(self, host, local_gpu):
        for r in self.ranks:
            if r.host == host and r.local_gpu == local_gpu:
                return r.rank
        return None

    def __repr__(self):
        return "Map(%s, order %s (%s), %d ranks on %d nodes)" % (
            self.layout, self.order, self.permutation, self.world_size,
            len(self.nodes))


def load(path=None):
    """Read a rankmap-map/1 file, JSON or YAML: `path`, or the job's map
    ($RANKMAP_MAP, which the SPANK plugin sets in every task)."""
    if path is None:
        path = os.environ.get("RANKMAP_MAP")
        if not path:
            raise MapError("no map given and RANKMAP_MAP is not set (it is "
                           "set in tasks started by srun --parallel-layout)")
    return Map.load(path)
