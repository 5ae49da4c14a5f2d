# SPDX-License-Identifier: Apache-2.0
"""Test-side reimplementation of the group rules rankmap must match.

Written from Megatron-Core's parallel_state.py (RankGenerator,
generate_masked_orthogonal_rank_groups, initialize_model_parallel's dense
and expert generators and its assertions) and torch's DeviceMesh
(row-major mesh, groups along one dimension). Independent of rankmap's C
code and of the rankmap Python package on purpose.
"""


def _prefix(sizes):
    out, acc = [], 1
    for s in sizes:
        out.append(acc)
        acc *= s
    return out


def _digits(index, sizes):
    out = []
    for s in sizes:
        out.append(index % s)
        index //= s
    return out


def orthogonal_groups(sizes, mask):
    stride = _prefix(sizes)
    m_sz = [s for s, m in zip(sizes, mask) if m]
    m_st = [d for d, m in zip(stride, mask) if m]
    u_sz = [s for s, m in zip(sizes, mask) if not m]
    u_st = [d for d, m in zip(stride, mask) if not m]
    world = 1
    for s in sizes:
        world *= s
    gsize = 1
    for s in m_sz:
        gsize *= s
    groups = []
    for g in range(world // gsize):
        base = sum(i * d for i, d in zip(_digits(g, u_sz), u_st))
        groups.append([base + sum(i * d for i, d in zip(_digits(k, m_sz), m_st))
                       for k in range(gsize)])
    return groups


class Generator:
    def __init__(self, tp, ep, dp, pp, cp, order):
        assert ep == 1 or cp == 1
        size = {"tp": tp, "pp": pp, "dp": dp, "ep": ep, "cp": cp}
        names = order.lower().split("-")
        for n, s in size.items():
            if n not in names:
                if s != 1:
                    raise ValueError("%s=%d not in order %s" % (n, s, order))
                names.append(n)
        self.names = names
        self.sizes = [size[n] for n in names]

    def get(self, token):
        want = token.split("-")
        return orthogonal_groups(self.sizes, [n in want for n in self.names])


def megatron(world, tp, pp, cp, ep, etp, order):
    """The groups initialize_model_parallel builds, or ValueError where
    it refuses the configuration."""
    if world % (tp * pp * cp):
        raise ValueError("world not divisible")
    dp = world // (tp * pp * cp)
    dense = Generator(tp, 1, dp, pp, cp, order)
    etp = tp if etp is None else etp
    if world % (etp * ep * pp):
        raise ValueError("world not divisible by etp*ep*pp")
    edp = world // (etp * ep * pp)
    expert = Generator(etp, ep, edp, pp, 1, order)
    if not (order.endswith("pp") or pp == 1 or edp == dp):
        raise ValueError("dp of attention and moe must agree")
    if dense.get("pp") != expert.get("pp"):
        raise ValueError("pipeline groups differ")
    out = {k: dense.get(k) for k in
           ("tp", "cp", "dp", "pp", "dp-cp", "tp-pp", "tp-cp", "tp-dp",
            "tp-dp-cp")}
    out.update({"ep": expert.get("ep"), "etp": expert.get("tp"),
                "edp": expert.get("dp"), "etp-ep": expert.get("tp-ep"),
                "etp-ep-pp": expert.get("tp-ep-pp")})
    out["embedding"] = [[g[0], g[-1]] if len(g) > 1 else [g[0]]
                        for g in out["pp"]]
    return out


def device_mesh(shape, names):
    """Groups along each named dimension of a row-major mesh over
    range(world), as DeviceMesh builds them (sorted, member order kept)."""
    world = 1
    for s in shape:
        world *= s
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    out = {}
    for d, name in enumerate(names):
        groups = set()
        for r in range(world):
            c = (r // strides[d]) % shape[d]
            base = r - c * strides[d]
            groups.add(tuple(base + k * strides[d] for k in range(shape[d])))
        out[name] = sorted(list(g) for g in groups)
    return out
