#!/usr/bin/env python3
"""A complete player-protocol bot (spec/PLAYER.md): it plays a random legal option.

Standard library only. Run it under a host, e.g. a match, or try it by hand:
    printf 'hello 1\\nisready\\ngo bid options=0,1,2\\nquit\\n' | python3 random_bot.py
"""

import random
import sys


def main() -> None:
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else None)
    for line in sys.stdin:
        words = line.split()  # also drops the \r of a CRLF line end
        if not words:
            continue
        if words[0] == "hello":
            say("hello 1 name=python-random")
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "go":  # go <bid|lead|play> options=a,b,c [time=<ms>]
            fields = dict(word.partition("=")[::2] for word in words[2:])
            choice = rng.choice(fields["options"].split(","))
            if words[1] == "bid":
                say(f"bid {choice}")
            else:  # a lead option in a game with calls is card:call
                say("play " + choice.replace(":", " "))
        elif words[0] == "quit":
            break
        # newgame and event lines need no answer: this bot ignores them


def say(line: str) -> None:
    print(line, flush=True)  # flush, or the host waits for an answer forever


if __name__ == "__main__":
    main()
