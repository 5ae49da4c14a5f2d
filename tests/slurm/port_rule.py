#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""MASTER_PORT without ports reserved by Slurm, written the slow way from
docs/plugin.md (not from the C code), for the suites that check the plugin's
and the CLI's value.

usage: port_rule.py JOBID STEPID  (prints the port for this machine's
       /proc/sys/net/ipv4/ip_local_port_range, as the plugin reads it)
"""
import socket
import sys

RANGE_FILE = "/proc/sys/net/ipv4/ip_local_port_range"


def ephemeral():
    try:
        lo, hi = (int(v) for v in open(RANGE_FILE).read().split())
        if 1 <= lo <= hi <= 65535:
            return lo, hi
    except (OSError, ValueError):
        pass
    return 32768, 60999


def pool(floor, lo, hi):
    # P and P + 1 outside the ephemeral range and off Slurm's 6817-6819
    return [p for p in range(floor, 65535)
            if not (lo <= p <= hi or lo <= p + 1 <= hi)
            and not (p + 1 >= 6817 and p <= 6819)]


def mix_job(h):
    # MurmurHash3's 32-bit finaliser, as docs/plugin.md states it
    M = 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M
    h ^= h >> 16
    return h


def master_port(jobid, stepid, rng=None):
    lo, hi = rng or ephemeral()
    mix = mix_job(jobid) + stepid
    ports = pool(20000, lo, hi)
    if len(ports) < 1000:
        ports = pool(1024, lo, hi)
    if not ports:
        return 20000 + mix % 20000
    return ports[mix % len(ports)]


def bindable(port):
    """Nobody listens on port here now."""
    s = socket.socket()
    try:
        s.bind(("", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


if __name__ == "__main__":
    print(master_port(int(sys.argv[1]), int(sys.argv[2])))
