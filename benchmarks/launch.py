"""Start one measured command from a SMALL process and write its wall, CPU and peak RSS.

    python -I -S launch.py RESULT.json COMMAND [ARG ...]

Why a launcher: on Linux a child's ``ru_maxrss`` also counts the address space it had
*before* ``exec`` (``exec_mmap`` records the old mm's high-water mark), which for a child of
the harness is the harness's own memory (it may hold a parsed corpus). Started from this
few-MB process, the command's ``ru_maxrss`` is its own peak (floor: this launcher's ~10 MB).

The launcher makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so a
worker the command forks and leaves behind is re-parented here and reaped too: CPU and peak
RSS then cover every process of the run. Measured: wall (``perf_counter`` from
``posix_spawn`` until the command itself exits), CPU (``ru_utime + ru_stime`` of
``RUSAGE_CHILDREN`` after every descendant is reaped) and ``ru_maxrss`` (KiB; the largest
single process of the run -- a max, not a sum). The environment and working directory are
this launcher's; stdin/stdout/stderr are inherited. Exit status: the command's.
"""

import ctypes
import json
import os
import resource
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main() -> int:
    result, argv = sys.argv[1], sys.argv[2:]
    subreaper = ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ)
    _, status, _ = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    orphans = 0
    while True:  # descendants left behind (re-parented here): reap them all
        try:
            os.wait()
            orphans += 1
        except ChildProcessError:
            break
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = os.waitstatus_to_exitcode(status)
    with open(result, "w") as out:
        json.dump({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                   "maxrss_kib": usage.ru_maxrss, "exit": code, "orphans": orphans,
                   "subreaper": subreaper}, out)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
