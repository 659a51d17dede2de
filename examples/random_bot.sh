#!/bin/sh
# A complete player-protocol bot (spec/PLAYER.md) in POSIX shell + awk:
# it plays a random legal option. Usage: random_bot.sh [SEED]
set -f                        # split lines into words without globbing
cr=$(printf '\r')             # hosts may end lines with CRLF
seed=${1:-$$}
while IFS= read -r line; do
  IFS=" $cr"; set -- $line; IFS=' '
  case $1 in
    hello) echo "hello 1 name=shell-random" ;;
    isready) echo readyok ;;
    quit) exit 0 ;;
    go) # go <bid|lead|play> options=a,b,c [time=<ms>]
      kind=$2; shift 2
      for field; do
        case $field in options=*) options=${field#options=} ;; esac
      done
      seed=$((seed + 1))
      pick=$(echo "$options" | awk -F, -v seed="$seed" \
        '{ srand(seed); print $(1 + int(rand() * NF)) }')
      case $kind:$pick in
        bid:*) echo "bid $pick" ;;
        *:*:*) echo "play ${pick%%:*} ${pick#*:}" ;;   # lead option card:call
        *) echo "play $pick" ;;
      esac ;;
  esac                        # newgame and event lines need no answer
done
