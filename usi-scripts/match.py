#!/usr/bin/env python3
"""Gauntlet between hayate and another USI engine with cshogi's match runner.

Plays every opening line of the file with both colours (pairs of games), then prints
W/L/D, the Elo difference with its 95% error, and what went wrong on the way: illegal moves,
moves slower than the byoyomi (time losses), crashes.

    python3 usi-scripts/match.py --games 200 --byoyomi 200 --hash 64 \
        --opponent /usr/games/fairy-stockfish --openings tests/data/openings_public.txt

On a machine with cores to spare, `--part 1/2` and `--part 2/2` (side by side) play the two
halves of the same run; add up their W/L/D.

It drives `cshogi.cli.main` (the same code as `python3 -m cshogi.cli`) and times every `go`
itself, since cshogi does not judge time in byoyomi games. `--time T --inc I` plays a Fischer
clock instead (cshogi keeps it: the increment comes after each move, and a player more than
1 s over its clock loses on time, `%TIME_UP` in the endings).
"""

import argparse
import math
import os
import random
import sys
import tempfile
import time
from collections import defaultdict

import cshogi.cli
from cshogi.usi import Engine as UsiEngine


def elo_and_error(w, l, d):
    n = w + l + d
    if n == 0:
        return 0.0, float("nan")
    score = (w + d / 2) / n
    if score <= 0 or score >= 1:
        return (float("inf") if score >= 1 else float("-inf")), float("nan")
    elo = -400 * math.log10(1 / score - 1)
    var = (w * (1 - score) ** 2 + l * (0 - score) ** 2 + d * (0.5 - score) ** 2) / n
    se = math.sqrt(var / n)
    lo, hi = score - 1.96 * se, score + 1.96 * se
    lo, hi = max(lo, 1e-6), min(hi, 1 - 1e-6)
    err = (-400 * math.log10(1 / hi - 1) + 400 * math.log10(1 / lo - 1)) / 2
    return elo, err


def seeded_shuffle(items, seed):
    """`items` in the order cshogi plays them: `random.seed(seed)`, then `random.shuffle`."""
    items = list(items)
    random.seed(seed)
    random.shuffle(items)
    return items


def part_of_openings(args):
    """The openings file and game count for `--part I/N` and `--skip K`.

    cshogi shuffles the opening lines with `random.seed(seed)` and plays line n // 2 in game n,
    so a run of G games uses the first G / 2 lines of that shuffle, each with both colours.
    Part I of N writes the I-th contiguous share of those lines to a file of its own, so the N
    parts together play exactly the games of one whole run. cshogi shuffles that file again
    with the same seed; `--skip K` drops the first K games of that order and writes the rest so
    that cshogi's shuffle puts them back in it: a stopped run goes on where it stopped."""
    try:
        i, n = (int(x) for x in args.part.split("/"))
    except ValueError:
        sys.exit(f"error: --part wants I/N, got {args.part!r}")
    if not 1 <= i <= n:
        sys.exit(f"error: --part {args.part}: I must be between 1 and N")
    if args.skip < 0 or args.skip % 2:
        sys.exit(f"error: --skip {args.skip}: games come in pairs, give an even number >= 0")
    if n == 1 and args.skip == 0:
        return args.openings, args.games
    with open(args.openings) as f:
        lines = [line.rstrip("\n") for line in f]
    shuffled = seeded_shuffle(lines, args.seed)
    used = shuffled[: (args.games + 1) // 2]
    if len(used) < (args.games + 1) // 2:
        print(f"warning: {args.openings} has {len(lines)} lines: the {n} parts play {2 * len(used)} games, "
              f"not {args.games} (use more lines, e.g. from usi-scripts/openings_from_records.py)", file=sys.stderr)
    share = used[(i - 1) * len(used) // n : i * len(used) // n]
    # The order this part plays its lines in: the whole run's for one part, else the share's
    # own shuffle (what cshogi does with the share's file).
    played = share if n == 1 else seeded_shuffle(share, args.seed)
    remaining = played[args.skip // 2 :]
    if not remaining:
        sys.exit(f"error: --skip {args.skip}: this part has only {2 * len(played)} games")
    # Write line j of the wanted order where cshogi's shuffle will take it from.
    order = seeded_shuffle(range(len(remaining)), args.seed)
    file_lines = [""] * len(remaining)
    for j, source in enumerate(order):
        file_lines[source] = remaining[j]
    path = os.path.join(tempfile.mkdtemp(prefix="hayate-part-"), "openings.txt")
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in file_lines))
    return path, 2 * len(remaining)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=os.path.join(root, "target", "release", "hayate"))
    ap.add_argument("--opponent", default="/usr/games/fairy-stockfish")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--byoyomi", type=int, default=200, help="ms per move")
    ap.add_argument("--time", type=int, help="Fischer clock instead of byoyomi: main time (ms) per engine")
    ap.add_argument("--inc", type=int, default=0, help="with --time: increment (ms) added after each move")
    ap.add_argument("--hash", type=int, default=64, help="MiB for each engine (USI_Hash, or Hash)")
    ap.add_argument("--threads", type=int, default=1, help="Threads of each engine")
    ap.add_argument("--openings", default=os.path.join(root, "tests", "data", "openings_public.txt"))
    ap.add_argument("--seed", type=int, default=1, help="opening shuffle seed")
    ap.add_argument("--draw", type=int, default=320, help="ply count adjudicated as a draw")
    ap.add_argument("--engine-option", action="append", default=[], help="NAME=VALUE for hayate")
    ap.add_argument("--opponent-option", action="append", default=[], help="NAME=VALUE for the opponent")
    ap.add_argument("--csa", help="file for the CSA game records (default: a temporary file)")
    ap.add_argument(
        "--part",
        default="1/1",
        help="I/N: play only the I-th of N equal shares of the openings that --games would use "
        "(run the N parts side by side on N cores, then add up their W/L/D)",
    )
    ap.add_argument(
        "--skip",
        type=int,
        default=0,
        help="K: leave out the first K games of this part (those a stopped run has played; even)",
    )
    args = ap.parse_args()
    if args.time is not None:
        args.byoyomi = 0
    # cshogi starts each engine in the engine's own folder, where a relative path is wrong.
    args.engine, args.opponent = (p if os.path.isabs(p) or not os.path.exists(p) else os.path.abspath(p)
                                  for p in (args.engine, args.opponent))
    openings, games = part_of_openings(args)

    # Time every go: cshogi's Engine.go returns (bestmove, pondermove).
    slow = defaultdict(int)
    worst = defaultdict(float)
    total = defaultdict(float)
    moves = defaultdict(int)
    original_go = UsiEngine.go

    def timed_go(self, *a, **kw):
        t = time.perf_counter()
        result = original_go(self, *a, **kw)
        ms = (time.perf_counter() - t) * 1000
        name = self.name or self.cmd
        moves[name] += 1
        total[name] += ms
        worst[name] = max(worst[name], ms)
        if kw.get("byoyomi") and not kw.get("ponder") and ms > kw["byoyomi"]:
            slow[name] += 1
        return result

    UsiEngine.go = timed_go

    opts1 = {"USI_Hash": args.hash, "Threads": args.threads}
    opts2 = {"USI_Hash": args.hash, "Threads": args.threads}
    if "fairy" in os.path.basename(args.opponent):
        # Make Fairy-Stockfish use its whole byoyomi like hayate does.
        opts2.update({"Minimum Thinking Time": args.byoyomi or 20, "Move Overhead": 0, "Hash": args.hash})
        del opts2["USI_Hash"]
    for kv in args.engine_option:
        k, v = kv.split("=", 1)
        opts1[k] = v
    for kv in args.opponent_option:
        k, v = kv.split("=", 1)
        opts2[k] = v

    progress = {}

    def callback(r):
        progress.update(r)
        print(f"[{r['total']}/{games}] {r['engine1_won']}-{r['engine2_won']}-{r['draw']}", file=sys.stderr, flush=True)
        return True

    csa_path = args.csa or os.path.join(tempfile.mkdtemp(prefix="hayate-match-"), "games.csa")
    crashed = None
    try:
        result = cshogi.cli.main(
            args.engine,
            args.opponent,
            options1=opts1,
            options2=opts2,
            games=games,
            byoyomi=args.byoyomi or None,
            time=args.time,
            inc=args.inc if args.time is not None else None,
            draw=args.draw,
            opening=openings,
            opening_seed=args.seed,
            csa=csa_path,
            multi_csa=True,
            print_summary=False,
            callback=callback,
        )
    except Exception as e:  # an engine died or spoke nonsense
        crashed = repr(e)
        result = progress
    w, l, d = result.get("engine1_won", 0), result.get("engine2_won", 0), result.get("draw", 0)
    elo, err = elo_and_error(w, l, d)
    if openings != args.openings:
        skipped = f", after its first {args.skip} games" if args.skip else ""
        print(f"part {args.part} of a {args.games}-game run{skipped} (openings: {openings})")
    clock = f"{args.time} ms + {args.inc} ms a move" if args.time is not None else f"byoyomi {args.byoyomi} ms"
    print(f"hayate vs {os.path.basename(args.opponent)}: {clock}, {w + l + d} games")
    hash_of = lambda o: o.get("USI_Hash", o.get("Hash"))  # Fairy-Stockfish names it Hash
    print(f"threads and hash: hayate {opts1['Threads']}, {hash_of(opts1)} MiB; "
          f"{os.path.basename(args.opponent)} {opts2['Threads']}, {hash_of(opts2)} MiB")
    print(f"W/L/D: {w}/{l}/{d}  score {100 * (w + d / 2) / max(1, w + l + d):.1f}%")
    print(f"Elo: {elo:+.1f} +/- {err:.1f} (95%)")
    for name in moves:
        # The mean shows whether both sides spent the same time (a fair byoyomi comparison).
        print(f"{name}: {moves[name]} moves, mean {total[name] / moves[name]:.1f} ms, "
              f"slowest {worst[name]:.0f} ms, over byoyomi {slow[name]}")
    endings = defaultdict(int)
    if os.path.exists(csa_path):
        with open(csa_path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("%"):
                    endings[line.strip()] += 1
    print("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items())))
    print(f"illegal moves: {endings.get('%ILLEGAL_MOVE', 0)}")
    print(f"crash: {crashed or 'none'}")
    print(f"records: {csa_path}")


if __name__ == "__main__":
    main()
