#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""subreaper.py LOG CMD...: run CMD (a daemon such as slurmd) under a child
subreaper that outlives it and logs the CPU time of every process of the
daemon's tree it reaps, one line per process:

    PID CPU_MS COMM

CPU_MS is user + system time from wait4's rusage, which includes the
children the process itself reaped (a slurmstepd's tasks). COMM is
/proc/PID/comm ("slurmstepd"). Used by bench/bench_stepd.sh to price the SPANK
plugin inside real slurmstepds: slurmd double-forks each slurmstepd, which
then belongs to the nearest subreaper, this process, instead of init.

Returns at once (the subreaper goes to the background) once CMD has
started; the subreaper exits when it has no children left.
"""
import ctypes
import os
import sys

PR_SET_CHILD_SUBREAPER = 36


def name(pid):
    # a zombie's cmdline is empty; its comm stays until it is reaped
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip() or "?"
    except OSError:
        return "?"


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: subreaper.py LOG CMD...\n")
        return 2
    log, cmd = sys.argv[1], sys.argv[2:]
    if os.fork() > 0:
        return 0
    os.setsid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write("subreaper.py: prctl: %s\n" % os.strerror(ctypes.get_errno()))
        os._exit(1)
    pid = os.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    out = open(log, "a", buffering=1)
    while True:
        try:
            # peek first: the title is gone once the process is reaped
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT)
        except ChildProcessError:
            break
        if info is None:
            continue
        comm = name(info.si_pid)
        _, _, ru = os.wait4(info.si_pid, 0)
        ms = (ru.ru_utime + ru.ru_stime) * 1e3
        out.write("%d %.3f %s %.3f %.3f\n" % (info.si_pid, ms, comm, ru.ru_utime * 1e3, ru.ru_stime * 1e3))
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
