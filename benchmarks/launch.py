"""Start one measured command from a SMALL process and write its wall, CPU and peak RSS.

    python -I -S launch.py RESULT.json COMMAND [ARG ...]

Why a launcher: on Linux a child's ``ru_maxrss`` also counts the address space it had
*before* ``exec`` (``exec_mmap`` records the old mm's high-water mark), which for a child of
the harness is the harness's own memory (it may hold a parsed corpus). Started from this
few-MB process, the command's ``ru_maxrss`` is its own peak (floor: this launcher's ~10 MB).

Measured here, around ``posix_spawn`` .. ``wait4``: wall (``perf_counter``), CPU
(``ru_utime + ru_stime`` of the command and every descendant it waited for) and
``ru_maxrss`` (KiB; the max over the command and its waited-for descendants). The environment
and working directory are this launcher's; stdin/stdout/stderr are inherited. Exit status:
the command's.
"""

import json
import os
import sys
import time


def main() -> int:
    result, argv = sys.argv[1], sys.argv[2:]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    with open(result, "w") as out:
        json.dump({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                   "maxrss_kib": usage.ru_maxrss, "exit": code}, out)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
