#!/usr/bin/env python3
"""``pgid_wrap.py DIR CMD...``: note this process group in DIR, then become CMD.

The match tests use it to find every process group the runner started, so they can
scan the process table for survivors (exec keeps the pid, so the group is CMD's).
"""

import os
import sys

directory, argv = sys.argv[1], sys.argv[2:]
pgid = os.getpgid(0)
with open(os.path.join(directory, f"{pgid}.pgid"), "w") as fh:
    fh.write(" ".join(argv) + "\n")
os.execvp(argv[0], argv)
