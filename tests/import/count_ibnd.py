#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An independent count over an ibnetdiscover topology file, to check
`rankmap site import` against: per switch section, the hosts whose HCA
("HOST mlx5_N" / "HOST HCA-N", HOST matching the fnmatch pattern) is
cabled to it; leaves are those switches; leaves sharing a host form a
rail unit. Prints "leaves N", "spines N" and one "unit RAILS HOSTS" line
per unit, sorted."""
import fnmatch
import re
import sys

path, pattern = sys.argv[1], sys.argv[2]
sw = None
hosts_of = {}
switches = set()
for line in open(path, errors="replace"):
    m = re.match(r'Switch\s+\d+\s+"S-([0-9a-f]+)"', line)
    if m:
        sw = m.group(1)
        switches.add(sw)
        continue
    if line.startswith(("Ca", "Rt")):
        sw = None
        continue
    m = re.match(r'\[\d+\]\s+"H-[0-9a-f]+"\[\d+\].*# "([^ "]+) (mlx5_\d+|HCA-\d+)" lid', line)
    if m and sw and fnmatch.fnmatch(m.group(1), pattern):
        hosts_of.setdefault(sw, set()).add(m.group(1))
parent = {l: l for l in hosts_of}


def find(x):
    while parent[x] != x:
        x = parent[x]
    return x


by_host = {}
for l, hs in hosts_of.items():
    for h in hs:
        by_host.setdefault(h, []).append(l)
for h, ls in by_host.items():
    for l in ls[1:]:
        parent[find(l)] = find(ls[0])
groups = {}
for l in hosts_of:
    groups.setdefault(find(l), []).append(l)
print("leaves", len(hosts_of))
print("spines", len(switches - set(hosts_of)))
units = []
for g in groups.values():
    if len(g) > 1:
        units.append((len(g), len(set().union(*(hosts_of[l] for l in g)))))
for r, n in sorted(units):
    print("unit", r, n)
