#!/usr/bin/env python3
"""A bot that remembers through the kernel's keyrings, which no folder wipe reaches.

At ``hello`` it looks up a key named on its command line in the user keyring (shared by
every process of the user unless the sandbox gives the bot its own user namespace) and
reports ``REMEMBERED <payload>`` on stderr when an earlier process left one; then it
stores its own note there. ``keyring: tried`` says it ran.
"""

from __future__ import annotations

import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import play

ADD_KEY, KEYCTL = 248, 250  # x86_64 system call numbers
SEARCH, READ = 10, 11
USER_KEYRING = -4


def remember() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    name = sys.argv[1].encode()
    found = libc.syscall(KEYCTL, SEARCH, ctypes.c_long(USER_KEYRING), b"user", name, 0)
    if found > 0:
        buf = ctypes.create_string_buffer(256)
        n = libc.syscall(KEYCTL, READ, ctypes.c_long(found), buf, 256)
        sys.stderr.write(f"REMEMBERED {buf.raw[:max(n, 0)].decode(errors='replace')}\n")
    note = f"hands seen by process {os.getpid()}".encode()
    libc.syscall(ADD_KEY, b"user", name, note, len(note), ctypes.c_long(USER_KEYRING))
    sys.stderr.write("keyring: tried\n")
    sys.stderr.flush()


if __name__ == "__main__":
    play("keyring", {"hello": remember})
