#!/usr/bin/env python3
"""``pgid_wrap.py DIR CMD...``: note this process group in DIR, then become CMD.

The match tests use it to find every process group the runner started, so they can
scan the process table for survivors (exec keeps the pid, so the group is CMD's). In a
sandbox DIR is not even visible: then only the environment marker XACTIKA_TEST_GROUP=DIR,
which every descendant inherits, lets the tests find the bot's processes from outside.
"""

import os
import sys

directory, argv = sys.argv[1], sys.argv[2:]
os.environ["XACTIKA_TEST_GROUP"] = directory
pgid = os.getpgid(0)
try:
    with open(os.path.join(directory, f"{pgid}.pgid"), "w") as fh:
        fh.write(" ".join(argv) + "\n")
except OSError:
    pass  # sandboxed: the folder is not there
os.execvp(argv[0], argv)
