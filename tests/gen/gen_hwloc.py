#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write hwloc v2 XML fixtures for rankmap's node tests.

usage: gen_hwloc.py OUTDIR

Machines (all from public facts, see /work/shared/reference/hwloc-nccl.md):
  dgx-h100.xml   2x Xeon 8480C (56 cores, HT), 8 H100 SXM at buses
                 1b,43,52,61 | 9d,c3,d1,df; compute CX-7 mlx5_0,3,4,5,6,9,10,11
                 at 18,40,4f,5e | 9a,c0,ce,dc, each behind the same PCIe switch
                 as its GPU (a second switch in front of the GPU, so PXB);
                 dual-port storage CX-7 mlx5_1/2 (29:00.x) and mlx5_7/8
                 (aa:00.x) ACTIVE on host bridges of their own; 4 NVSwitch.
  p5en.xml       2x 48 cores, 8 GPUs, 16 EFA: per switch 2 GPUs and 4 EFA
                 (two per GPU), plus ENA Ethernet NICs that are not RDMA.
  half-nic.xml   8 GPUs, 4 CX-6: one NIC per switch shared by two GPUs.
  mixed.xml      4 GPUs; names not in bus order (mlx5_1 at 11, mlx5_0 at 21),
                 mlx5_0 port DOWN, a dual-port mlx5_2, an SR-IOV VF, storage
                 NICs alone on their host bridges, an irdma management NIC, a
                 Mellanox Ethernet NIC without RDMA device.
  cpu-only.xml   2 sockets, no GPU, one ACTIVE mlx5_0.
  dgx-h100-cgroup.xml  dgx-h100 where only cores 0-27 (+ siblings) are
                 allowed, as under a Slurm job's cgroup.
  dgx-h100-v3.xml  dgx-h100 claiming hwloc XML version 3.0.
  truncated.xml    first half of dgx-h100.xml.
  garbage.xml      not XML at all.
"""
import os
import sys


def bitmap(bits):
    """hwloc's bitmap text: 32-bit hex words, most significant first."""
    if not bits:
        return "0x0"
    words = [0] * (max(bits) // 32 + 1)
    for b in bits:
        words[b // 32] |= 1 << (b % 32)
    return ",".join("0x%08x" % w for w in reversed(words))


class Gen:
    def __init__(self):
        self.gp = 0
        self.out = []

    def gpi(self):
        self.gp += 1
        return self.gp

    def line(self, depth, text):
        self.out.append("  " * depth + text)


def sets(pus, numas):
    c = bitmap(pus)
    n = bitmap(numas)
    return ('cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s"'
            % (c, c, n, n))


def pcidev(g, d, bus, func, cls, ven, dev, speed, children=()):
    g.line(d, '<object type="PCIDev" gp_index="%d" pci_busid="0000:%02x:00.%d" '
              'pci_type="%s [%s:%s] [%s:0000] 00" pci_link_speed="%s"%s'
           % (g.gpi(), bus, func, cls, ven, dev, ven, speed, ">" if children else "/>"))
    if children:
        for ch in children:
            ch(g, d + 1)
        g.line(d, "</object>")


def osdev(name, kind, infos=()):
    def emit(g, d):
        g.line(d, '<object type="OSDev" gp_index="%d" name="%s" osdev_type="%d"%s'
               % (g.gpi(), name, kind, ">" if infos else "/>"))
        for k, v in infos:
            g.line(d + 1, '<info name="%s" value="%s"/>' % (k, v))
        if infos:
            g.line(d, "</object>")
    return emit


def rdma(name, states, netdev=None):
    """An OpenFabrics device; `states` gives Port<N>State for ports 1..n
    (None: the capture had no port information)."""
    infos = []
    if states:
        for i, st in enumerate(states, 1):
            infos.append(("Port%dState" % i, str(st)))
            infos.append(("Port%dLID" % i, "0x%x" % (i + 10)))
    kids = []
    if netdev:
        kids.append(osdev(netdev, 2, [("Port", "1")]))
    kids.append(osdev(name, 3, infos))
    return kids


def bridge(g, d, sec, sub, busid=None, children=()):
    """Host bridge when busid is None, else a PCI-to-PCI bridge."""
    if busid is None:
        g.line(d, '<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" '
                  'bridge_pci="0000:[%02x-%02x]">' % (g.gpi(), sec, sub))
    else:
        g.line(d, '<object type="Bridge" gp_index="%d" bridge_type="1-1" depth="%d" '
                  'bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%s" '
                  'pci_type="0604 [8086:352a] [8086:352a] 00" pci_link_speed="63.015385">'
               % (g.gpi(), d, sec, sub, busid))
    for ch in children:
        ch(g, d + 1)
    g.line(d, "</object>")


def br(sec, sub, busid, *children):
    return lambda g, d: bridge(g, d, sec, sub, busid, children)


def hostbridge(sec, sub, *children):
    return lambda g, d: bridge(g, d, sec, sub, None, children)


def dev(bus, cls, ven, did, speed="63.015385", func=0, kids=()):
    return lambda g, d: pcidev(g, d, bus, func, cls, ven, did, speed, kids)


def gpu(bus, did="2330"):
    return dev(bus, "0302", "10de", did)


def machine(sockets, cores, ht, io_per_socket, cpu_model, arch="x86_64",
            allowed=None):
    """Sockets of `cores` cores; PU k of socket s core c is numbered the
    Linux way: first threads 0..N-1 over all cores, then the siblings."""
    g = Gen()
    total = sockets * cores
    allpus = [i for i in range(total * (2 if ht else 1))]
    allowed = allpus if allowed is None else allowed
    g.line(0, '<?xml version="1.0" encoding="UTF-8"?>')
    g.line(0, '<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
    g.line(0, '<topology version="2.0">')
    g.line(1, '<object type="Machine" os_index="0" %s allowed_cpuset="%s" '
              'allowed_nodeset="%s" gp_index="%d">'
           % (sets(allpus, range(sockets)), bitmap(allowed), bitmap(range(sockets)), g.gpi()))
    g.line(2, '<info name="Architecture" value="%s"/>' % arch)
    g.line(2, '<info name="Backend" value="Linux"/>')
    for s in range(sockets):
        first = [s * cores + c for c in range(cores)]
        pus = first + ([p + total for p in first] if ht else [])
        g.line(2, '<object type="Package" os_index="%d" %s gp_index="%d">'
               % (s, sets(pus, [s]), g.gpi()))
        g.line(3, '<info name="CPUVendor" value="GenuineIntel"/>')
        g.line(3, '<info name="CPUFamilyNumber" value="6"/>')
        g.line(3, '<info name="CPUModelNumber" value="143"/>')
        g.line(3, '<info name="CPUModel" value="%s"/>' % cpu_model)
        g.line(3, '<object type="NUMANode" os_index="%d" %s gp_index="%d" '
                  'local_memory="1099511627776"/>' % (s, sets(pus, [s]), g.gpi()))
        for c in first:
            cp = [c] + ([c + total] if ht else [])
            g.line(3, '<object type="Core" os_index="%d" %s gp_index="%d">'
                   % (c, sets(cp, [s]), g.gpi()))
            for p in cp:
                g.line(4, '<object type="PU" os_index="%d" %s gp_index="%d"/>'
                       % (p, sets([p], [s]), g.gpi()))
            g.line(3, "</object>")
        for io in io_per_socket[s]:
            io(g, 3)
        g.line(2, "</object>")
    g.line(1, "</object>")
    g.line(0, "</topology>")
    return "\n".join(g.out) + "\n"


def cx7(bus, name, states, netdev, func=0, did="1021", cls="0207"):
    return dev(bus, cls, "15b3", did, func=func, kids=rdma(name, states, netdev))


def dgx_unit(nic_bus, nic_name):
    """Root port, a CX-7 internal switch with the NIC on one downstream port
    and a second switch in front of the GPU on the other (GPU = NIC + 3)."""
    r = nic_bus - 3
    return hostbridge(r, nic_bus + 3,
                      br(r + 1, nic_bus + 3, "%02x:01.0" % r,
                         br(r + 2, nic_bus + 3, "%02x:00.0" % (r + 1),
                            br(nic_bus, nic_bus, "%02x:00.0" % (r + 2),
                               cx7(nic_bus, nic_name, [4], "ibp%ds0" % nic_bus)),
                            br(nic_bus + 1, nic_bus + 3, "%02x:01.0" % (r + 2),
                               br(nic_bus + 2, nic_bus + 3, "%02x:00.0" % (nic_bus + 1),
                                  br(nic_bus + 3, nic_bus + 3, "%02x:00.0" % (nic_bus + 2),
                                     gpu(nic_bus + 3)))))))


def storage(bus, names):
    return hostbridge(bus - 2, bus,
                      br(bus - 1, bus, "%02x:01.0" % (bus - 2),
                         br(bus, bus, "%02x:00.0" % (bus - 1),
                            cx7(bus, names[0], [4], "ibp%ds0f0" % bus, func=0),
                            cx7(bus, names[1], [4], "enp%ds0f1np1" % bus, func=1,
                                cls="0200"))))


def nvswitches(first):
    kids = [br(first + i, first + i, "%02x:%02x.0" % (first - 1, i),
               dev(first + i, "0680", "10de", "22a3", speed="3.938462"))
            for i in range(4)]
    return hostbridge(first - 2, first + 3,
                      br(first - 1, first + 3, "%02x:01.0" % (first - 2), *kids))


def dgx_h100(allowed=None):
    s0 = [dgx_unit(b, n) for b, n in ((0x18, "mlx5_0"), (0x40, "mlx5_3"),
                                      (0x4f, "mlx5_4"), (0x5e, "mlx5_5"))]
    s0.append(storage(0x29, ("mlx5_1", "mlx5_2")))
    s1 = [dgx_unit(b, n) for b, n in ((0x9a, "mlx5_6"), (0xc0, "mlx5_9"),
                                      (0xce, "mlx5_10"), (0xdc, "mlx5_11"))]
    s1.append(storage(0xaa, ("mlx5_7", "mlx5_8")))
    s1.append(nvswitches(0xb3))
    return machine(2, 56, True, [s0, s1], "Intel(R) Xeon(R) Platinum 8480C",
                   allowed=allowed)


def efa(bus):
    return dev(bus, "0200", "1d0f", "efa2", speed="31.507692",
               kids=rdma("rdmap%ds0" % bus, [4]))


def ena(bus):
    return dev(bus, "0200", "1d0f", "ec20", speed="31.507692",
               kids=[osdev("enp%ds0" % bus, 2)])


def p5_group(base):
    """One switch: ENA at base+1, 4 EFA at base+2..5, 2 GPUs at base+6/7."""
    kids = [br(base + 1, base + 1, "%02x:00.0" % base, ena(base + 1))]
    for i in range(4):
        kids.append(br(base + 2 + i, base + 2 + i, "%02x:01.%d" % (base, i), efa(base + 2 + i)))
    for i in range(2):
        kids.append(br(base + 6 + i, base + 6 + i, "%02x:02.%d" % (base, i),
                       gpu(base + 6 + i, "2335")))
    return hostbridge(base - 2, base + 7,
                      br(base - 1, base + 7, "%02x:00.0" % (base - 2),
                         br(base, base + 7, "%02x:00.0" % (base - 1), *kids)))


def p5en():
    return machine(2, 48, True, [[p5_group(0x20), p5_group(0x40)],
                                 [p5_group(0xa0), p5_group(0xc0)]],
                   "Intel(R) Xeon(R) Platinum 8488C")


def half_group(base, name):
    """One switch: GPUs at base+1, base+2 and one CX-6 at base+3."""
    return hostbridge(base - 2, base + 3,
                      br(base - 1, base + 3, "%02x:01.0" % (base - 2),
                         br(base, base + 3, "%02x:00.0" % (base - 1),
                            br(base + 1, base + 1, "%02x:00.0" % base, gpu(base + 1, "20b2")),
                            br(base + 2, base + 2, "%02x:01.0" % base, gpu(base + 2, "20b2")),
                            br(base + 3, base + 3, "%02x:02.0" % base,
                               cx7(base + 3, name, [4], "ib%s" % name[-1], did="101b")))))


def half_nic():
    return machine(2, 32, True, [[half_group(0x10, "mlx5_0"), half_group(0x30, "mlx5_1")],
                                 [half_group(0x90, "mlx5_2"), half_group(0xb0, "mlx5_3")]],
                   "Intel(R) Xeon(R) Platinum 8380")


def pair_switch(base, *devs):
    kids = [br(base + 1 + i, base + 1 + i, "%02x:%02x.0" % (base, i), d)
            for i, d in enumerate(devs)]
    last = base + len(devs)
    return hostbridge(base - 2, last,
                      br(base - 1, last, "%02x:01.0" % (base - 2),
                         br(base, last, "%02x:00.0" % (base - 1), *kids)))


def mixed():
    s0 = [
        pair_switch(0x0f, gpu(0x10), cx7(0x11, "mlx5_1", [4], "ib1", did="101b")),
        pair_switch(0x1f, gpu(0x20), cx7(0x21, "mlx5_0", [1], "ib0", did="101b")),
        pair_switch(0x2f, cx7(0x30, "mlx5_5", [4], "ib5", did="101b")),       # storage
        pair_switch(0x3f, dev(0x40, "0200", "8086", "1592",
                              kids=[osdev("ens6f0", 2), osdev("irdma0", 3)])),
        pair_switch(0x4f, dev(0x50, "0200", "15b3", "1017",
                              kids=[osdev("eno1", 2)])),                    # Ethernet only
    ]
    s1 = [
        pair_switch(0x8f, gpu(0x90), cx7(0x91, "mlx5_2", [4, 4], "ib2", did="1019"),
                    cx7(0x92, "mlx5_4", [4], None, did="101e")),          # SR-IOV VF
        pair_switch(0x9f, gpu(0xa0), cx7(0xa1, "mlx5_3", [4], "ib3", did="101b")),
        pair_switch(0xaf, cx7(0xb0, "mlx5_6", [4], "ib6", did="101b")),       # storage
    ]
    return machine(2, 16, False, [s0, s1], "Intel(R) Xeon(R) Gold 6338")


def cpu_only():
    return machine(2, 24, True, [[pair_switch(0x3f, cx7(0x40, "mlx5_0", [4], "ib0", did="101b"))],
                                 []], "AMD-free plain CPU node")


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith('-'):
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    files = {
        "dgx-h100.xml": dgx_h100(),
        "p5en.xml": p5en(),
        "half-nic.xml": half_nic(),
        "mixed.xml": mixed(),
        "cpu-only.xml": cpu_only(),
        # A Slurm job given cores 0-27 (and their siblings 112-139) only.
        "dgx-h100-cgroup.xml": dgx_h100(allowed=list(range(28)) + list(range(112, 140))),
    }
    dgx = files["dgx-h100.xml"]
    files["dgx-h100-v3.xml"] = dgx.replace('<topology version="2.0">',
                                           '<topology version="3.0">', 1)
    files["truncated.xml"] = dgx[: len(dgx) // 2]
    files["garbage.xml"] = "\x00\x01 this is { not xml ]]> at all\n" * 8
    for name, text in files.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
