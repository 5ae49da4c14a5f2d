# SPDX-License-Identifier: Apache-2.0
"""What a rankmap-map/1 document must be before the package uses it: the
rules of librankmap's reader (mapper/src/map/map_read.c), so that Python
and C accept and refuse the same files (tests/python/map_corpus.py holds
them to that). A map may have been edited by hand or by a script: every
key must be known, every number a whole number in range, every rank on a
listed node and a GPU of its own, its coordinates those its order gives,
and listed groups exactly those the coordinates imply."""

import re

TOP_KEYS = {"schema", "generator", "layout", "axes", "nesting", "order",
            "world_size", "gpus_per_node", "nodes", "spares", "ranks",
            "groups", "expert_groups", "validation", "inputs_sha256"}
NODE_KEYS = {"host", "leaf", "unit"}
ORDER_KEYS = {"name", "permutation"}
COORDS = ("tp", "cp", "ep", "etp", "edp", "pp", "dp", "dp_replicate",
          "dp_shard")
RANK_KEYS = {"rank", "host", "node", "local_gpu", "leaf", "unit"} | \
    set(COORDS)
LAYOUT_AXES = ("tp", "cp", "ep", "etp", "pp", "dp", "dp_replicate", "dp_shard")
MAX_GPUS_PER_NODE = 1024
MAX_WORLD = 1 << 24
MAX_NAME = 255


class Bad(ValueError):
    pass


def _num(v, what, lo, hi):
    # bool is an int in Python; a quoted number is a string: both refused
    if isinstance(v, bool) or not isinstance(v, int):
        raise Bad("%s must be a whole number, got %r" % (what, v))
    if not lo <= v <= hi:
        raise Bad("%s must be between %d and %d, got %d" % (what, lo, hi, v))
    return v


def _name(v, what):
    if not isinstance(v, str) or not 0 < len(v.encode()) <= MAX_NAME or \
            "\0" in v:
        raise Bad("%s must be 1 to %d bytes without NUL" % (what, MAX_NAME))
    return v


def _keys(d, known, what):
    if not isinstance(d, dict):
        raise Bad("%s must be a mapping" % what)
    extra = sorted(set(d) - known)
    if extra:
        raise Bad("unknown key %r in %s (known: %s)" %
                  (extra[0], what, ", ".join(sorted(known))))


def _layout(s):
    """{axis: size} and the nesting (innermost first) of a layout."""
    if not isinstance(s, str) or not s:
        raise Bad("layout must be a string")
    m = re.fullmatch(r"(\d+)x(\d+)x(\d+)", s)
    parts = (list(zip(("tp", "pp", "dp"), m.groups())) if m else
             [p.split("=", 1) if "=" in p else (p, "")
              for p in s.split(",")])
    size, nest = {}, []
    for k, v in parts:
        k = k.strip().lower()
        if k not in LAYOUT_AXES or k in size:
            raise Bad("layout %r: %r is not an axis, or given twice" % (s, k))
        if v.strip() == "auto":
            raise Bad("layout %r: a map needs a resolved dp size" % s)
        if not re.fullmatch(r"[1-9]\d{0,7}", v.strip()):
            raise Bad("layout %r: %s size %r is not a number" % (s, k, v))
        size[k] = int(v)
        n = "dp" if k.startswith("dp") else k
        # etp sizes the expert numbering; it does not nest the ranks
        if n != "etp" and n not in nest:
            nest.append(n)
    if "dp_shard" in size or "dp_replicate" in size:
        size["dp"] = size.get("dp_shard", 1) * size.get("dp_replicate", 1)
    return size, nest


def _dense_coords(rank, perm, size):
    """The dense coordinates the order gives a rank: its permutation,
    fastest axis first, ep skipped (expert parallelism is carved out of
    dp and has a numbering of its own)."""
    out = {}
    for a in [a for a in perm if a != "ep"]:
        n = size.get(a, 1)
        out[a] = rank % n
        rank //= n
    return out


def validate(doc):
    """Raise Bad(reason) where librankmap's reader would refuse `doc`."""
    _keys(doc, TOP_KEYS, "map file")
    if "generator" in doc and not isinstance(doc["generator"], str):
        raise Bad("generator must be a string")
    size, nest = _layout(doc.get("layout"))
    world = 1
    for a in ("tp", "cp", "pp", "dp"):
        world *= size.get(a, 1)
    w = _num(doc.get("world_size"), "world_size", 0, MAX_WORLD)
    if w != world:
        raise Bad("world_size %d differs from the layout's %d" % (w, world))
    axes = doc.get("axes", {})
    _keys(axes, set(COORDS), "axes")
    for a, v in axes.items():
        _num(v, "axis size", 0, MAX_WORLD)
        if a in ("tp", "cp", "ep", "pp", "dp") and v != size.get(a, 1):
            raise Bad("axes: %s is %d, the layout says %d" %
                      (a, v, size.get(a, 1)))
    if "nesting" in doc and doc["nesting"] != nest:
        raise Bad("nesting does not match the layout (innermost first)")
    order = doc.get("order")
    _keys(order, ORDER_KEYS, "order")
    if not re.fullmatch(r"[a-z0-9_-]{1,32}", str(order.get("name", ""))):
        raise Bad("order name %r" % order.get("name"))
    perm = order.get("permutation")
    if not isinstance(perm, str) or not perm:
        raise Bad("order permutation must be a string")
    perm = perm.split("-")
    if len(set(perm)) != len(perm) or any(a not in size and a not in
                                         ("tp", "cp", "ep", "pp", "dp")
                                         for a in perm):
        raise Bad("order permutation %r" % order["permutation"])
    gpn = _num(doc.get("gpus_per_node"), "gpus_per_node", 0,
               MAX_GPUS_PER_NODE)
    if not gpn:
        raise Bad("gpus_per_node is 0")
    nodes = doc.get("nodes")
    if not isinstance(nodes, list):
        raise Bad("nodes must be a list")
    spares = doc.get("spares", [])
    if not isinstance(spares, list):
        raise Bad("spares must be a list")
    hosts = []
    for n in nodes:
        _keys(n, NODE_KEYS, "node")
        hosts.append(_name(n.get("host"), "node host"))
        for k in ("leaf", "unit"):
            if k in n:
                _name(n[k], k)
    for s in spares:
        hosts.append(_name(s, "spare"))
    if len(set(hosts)) != len(hosts):
        raise Bad("a host is listed twice")
    ranks = doc.get("ranks")
    if not isinstance(ranks, list):
        raise Bad("ranks must be a list")
    if len(ranks) != world:
        raise Bad("%d rank records for a world of %d" % (len(ranks), world))
    seen, gpus = set(), set()
    hsdp = "dp_shard" in axes or "dp_replicate" in axes
    for x in ranks:
        _keys(x, RANK_KEYS, "rank record")
        r = _num(x.get("rank"), "rank", 0, world - 1)
        if r in seen:
            raise Bad("rank %d appears twice" % r)
        seen.add(r)
        if not nodes:
            raise Bad("rank %d: the map lists no nodes" % r)
        i = _num(x.get("node"), "node", 0, len(nodes) - 1)
        if x.get("host") != nodes[i]["host"]:
            raise Bad("rank %d: host %r is not node %d (%s)" %
                      (r, x.get("host"), i, nodes[i]["host"]))
        g = _num(x.get("local_gpu"), "local_gpu", 0, gpn - 1)
        if (i, g) in gpus:
            raise Bad("two ranks share GPU %d of %s" % (g, nodes[i]["host"]))
        gpus.add((i, g))
        for k in ("leaf", "unit"):
            if k in x and x[k] != nodes[i].get(k, x[k]):
                raise Bad("rank %d: %s %r differs from node %s's" %
                          (r, k, x[k], nodes[i]["host"]))
        for a in axes:
            if a not in x:
                raise Bad("rank %d: %s is missing" % (r, a))
            _num(x[a], a, 0, max(axes[a], 1) - 1)
        if not hsdp:
            for a, v in _dense_coords(r, perm, size).items():
                if a in axes and x[a] != v:
                    raise Bad("rank %d: %s is %d, but order %s gives %d" %
                              (r, a, x[a], order["name"], v))
    sha = doc.get("inputs_sha256")
    if sha is not None and not re.fullmatch(r"[0-9a-f]{64}", str(sha)):
        raise Bad("inputs_sha256 must be 64 lowercase hex digits")
    for key in ("groups", "expert_groups"):
        if key in doc and not isinstance(doc[key], dict):
            raise Bad("%s must be a mapping" % key)
