#!/usr/bin/env python3
"""How long a USI engine thinks per move under a clock: the engine plays a game against
itself from the start position, each `go` timed from the command to its `bestmove`.

    python3 usi-scripts/thinktime.py --engine target/release/hayate --byoyomi 200 \
        --option NetworkDelay=0
    python3 usi-scripts/thinktime.py --engine YaneuraOu --byoyomi 200 --option NetworkDelay=0 \
        --option NetworkDelay2=0 --option BookFile=no_book --option Threads=1
    python3 usi-scripts/thinktime.py --time 10000 --inc 100 --moves 120

With `--time`, the clock is kept as cshogi keeps it (the increment comes after each move), and
the time used at each tenth of the game is printed too: where in the game the engine spends
its clock.
"""

import argparse
import os
import statistics
import subprocess
import time

from latency import read_until, send


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=os.path.join(root, "target", "release", "hayate"))
    ap.add_argument("--byoyomi", type=int, default=200, help="ms per move")
    ap.add_argument("--time", type=int, help="Fischer clock instead: main time (ms) of each side")
    ap.add_argument("--inc", type=int, default=0, help="with --time: increment (ms) after each move")
    ap.add_argument("--moves", type=int, default=30, help="at most this many moves (both sides)")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE sent before isready")
    args = ap.parse_args()

    p = subprocess.Popen([args.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                         cwd=os.path.dirname(os.path.abspath(args.engine)) or None)
    send(p, "usi")
    read_until(p, "usiok")
    for kv in args.option:
        name, value = kv.split("=", 1)
        send(p, f"setoption name {name} value {value}")
    send(p, "isready")
    read_until(p, "readyok")
    send(p, "usinewgame")
    moves, used = [], []
    clock = [args.time, args.time]
    while len(moves) < args.moves:
        send(p, "position startpos" + (" moves " + " ".join(moves) if moves else ""))
        if args.time is None:
            go = f"go btime 0 wtime 0 byoyomi {args.byoyomi}"
        else:
            go = f"go btime {clock[0]} wtime {clock[1]} binc {args.inc} winc {args.inc}"
        t = time.perf_counter()
        send(p, go)
        best = read_until(p, "bestmove").split()[1]
        ms = (time.perf_counter() - t) * 1000
        used.append(ms)
        if args.time is not None:
            side = len(moves) % 2
            clock[side] = max(0, clock[side] - round(ms)) + args.inc
        if best in ("resign", "win"):
            break
        moves.append(best)
    send(p, "quit")
    p.wait(timeout=10)
    if args.time is not None:
        tenth = max(1, len(used) // 10)
        shares = [sum(used[i:i + tenth]) for i in range(0, len(used), tenth)]
        print("ms per tenth of the game: " + " ".join(f"{s:.0f}" for s in shares))
        print(f"clock left: black {clock[0]} ms, white {clock[1]} ms")
    print(f"think time over {len(used)} moves: min {min(used):.1f} ms  median {statistics.median(used):.1f} ms  "
          f"max {max(used):.1f} ms")


if __name__ == "__main__":
    main()
