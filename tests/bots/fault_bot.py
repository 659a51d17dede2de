#!/usr/bin/env python3
"""A bot that misbehaves on purpose: ``fault_bot.py FAULT``. Standard library only.

Until its fault strikes it plays the first option, so a game gets going first.
Faults: crash-start, crash-mid, timeout, slow, garbage, invalid-utf8, flood, long-line,
close-stdout, close-stdin, deaf, ignore-quit, illegal, unasked (a bid before any go),
double (two answers to one go, in one write), stale (the same answer again 5 ms later),
early (a move on newgame, before any go), stderr-nul (a NUL and an ESC in its last stderr
line, then exit). Not faults: none, and chatty
(info and blank lines, CRLF line ends, extra fields in hello).
"""

import os
import signal
import subprocess
import sys
import time

FAULT = sys.argv[1] if len(sys.argv) > 1 else "none"
MID = 3  # the fault strikes at this go, so it is mid-game
CARDS = [f"{a}{b}{c}{d}" for a in "123" for b in "123" for c in "123" for d in "123"]
PLAYED: set[str] = set()  # options it answered with (cards, and bids: harmless)


def say(text: str) -> None:
    if FAULT == "chatty":
        sys.stdout.write(f"info about to say {text}\r\n\r\n")
        text += "\r"
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> None:
    if FAULT == "crash-start":
        sys.stderr.write("fault bot: crashing at start-up\n")
        sys.exit(3)
    if FAULT == "ignore-quit":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    goes = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "hello":
            say("hello 1 name=fault-" + FAULT + " author=tests")
        elif words[0] == "isready":
            say("readyok")
            if FAULT == "deaf":  # never reads its input again
                time.sleep(3600)
            if FAULT == "unasked":
                say("bid 1")
        elif words[0] == "quit":
            if FAULT == "ignore-quit":
                time.sleep(3600)
            return
        elif words[0] == "newgame" and FAULT == "early":
            say("bid 1")  # a move nobody asked for yet
        elif words[0] == "go":
            goes += 1
            options = dict(w.partition("=")[::2] for w in words[2:])["options"].split(",")
            first = options[0]
            if goes == MID:
                strike(words[1], options)
            answer = ("bid " if words[1] == "bid" else "play ") + first.replace(":", " ")
            if FAULT == "double" and goes == MID:
                answer += "\n" + answer  # one write: the second is there before any event
            say(answer)
            PLAYED.add(first.split(":")[0])
            if FAULT == "stale" and goes == MID:
                time.sleep(0.005)  # the same answer again, a little later: a stale one
                say(answer)


def strike(kind: str, options: list) -> None:
    if FAULT == "stderr-nul":
        sys.stderr.write("fault bot: dying with a NUL \x00 and an ESC \x1b[2J here\n")
        sys.exit(5)
    if FAULT == "crash-mid":
        sys.stderr.write("fault bot: crashing mid-game\n")
        sys.exit(4)
    if FAULT == "timeout":  # hang, with a child in the same process group
        subprocess.Popen(["sleep", "300"])
        time.sleep(3600)
    if FAULT == "slow":
        time.sleep(0.5)
    if FAULT == "garbage":
        say("I think I will play the blue one")
    if FAULT == "invalid-utf8":
        sys.stdout.buffer.write(b"play \xff\xfe\n")
        sys.stdout.flush()
    if FAULT == "flood":
        while True:
            say("info thinking very hard")
    if FAULT == "long-line":
        sys.stdout.write("info " + "x" * 1_000_000)
        sys.stdout.flush()
        time.sleep(3600)
    if FAULT == "close-stdin":
        os.close(0)
        say(("bid " if kind == "bid" else "play ") + options[0].replace(":", " "))
        time.sleep(3600)
    if FAULT == "close-stdout":
        sys.stdout.close()
        os.close(1)
        time.sleep(3600)
    if FAULT == "illegal":
        if kind == "bid":
            say("bid 99")
        else:
            cards = {o.split(":")[0] for o in options} | PLAYED
            say("play " + next(c for c in CARDS if c not in cards))  # not even a repeat
        time.sleep(3600)


if __name__ == "__main__":
    main()
