#!/usr/bin/env python3
"""Two runs of `match.py` on the same lines, compared game by game.

A base build and a candidate each play the same opponent with the same `--openings`, `--seed`
and `--part` (the k-th game of both runs then starts from the same line with the same colours).
With node limits the engines are deterministic, so a game the change does not touch is played
move for move again: such games cancel, and the difference of the two runs has a smaller error
than their two errors together. Prints each run's score and Elo, how many games were the same
to the last move, and the paired difference with its 95% error:

    python3 usi-scripts/paired.py --base base.1.csa base.2.csa --candidate cand.1.csa cand.2.csa

(the files `match.py --csa` writes, one per part, in the same order for both). Of each part,
games beyond the shorter run's are left out.

The same games also show what a re-run is worth: a deterministic build replayed on the lines
that chose it scores what it scored before, whatever its real strength, and the best of several
candidates on one set of lines is favoured by the draw of those lines. To know a build's level,
let a change that should not matter (an aspiration window a point wider) re-roll its games, or
play it on another seed.
"""

import argparse
import math
import sys

try:
    from cshogi import CSA
except ImportError:
    sys.exit("needs cshogi: pip install cshogi")


def games(path, name):
    """(score for the engine whose name starts with `name`, the game's moves) for every game
    of one file."""
    out = []
    for g in CSA.Parser.parse_file(path):
        if g.names[0].startswith(name):
            side = 1
        elif g.names[1].startswith(name):
            side = 2
        else:
            sys.exit(f"{path}: no player named {name!r} in {g.names}")
        score = 0.5 if g.win == 0 else (1.0 if g.win == side else 0.0)
        out.append((score, tuple(g.moves)))
    return out


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", nargs="+", required=True, help="CSA files of the base run, parts in order")
    ap.add_argument("--candidate", nargs="+", required=True, help="CSA files of the candidate run, same order")
    ap.add_argument("--name", default="hayate", help="the compared engine's name as the records give it")
    args = ap.parse_args()
    if len(args.base) != len(args.candidate):
        sys.exit("give as many candidate files as base files (one per part)")
    base, cand = [], []
    for bp, cp in zip(args.base, args.candidate):
        b, c = games(bp, args.name), games(cp, args.name)
        k = min(len(b), len(c))
        base += b[:k]
        cand += c[:k]
    n = len(base)
    if n == 0:
        sys.exit("no games to compare")
    same = sum(1 for (_, a), (_, b) in zip(base, cand) if a == b)
    diffs = [c - b for (b, _), (c, _) in zip(base, cand)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / max(n - 1, 1)
    err = 1.96 * math.sqrt(var / n)
    sb = sum(s for s, _ in base) / n
    sc = sum(s for s, _ in cand) / n
    print(f"games {n}, the same to the last move {same}")
    print(f"base {sb * 100:.1f}% ({elo(sb):+.1f} Elo), candidate {sc * 100:.1f}% ({elo(sc):+.1f} Elo)")
    # Elo per point of score near the two runs' mean score, for the error in Elo.
    mid = min(max((sb + sc) / 2, 0.01), 0.99)
    per_point = 400 / (math.log(10) * mid * (1 - mid))
    print(
        f"candidate - base: {mean * 100:+.1f} +- {err * 100:.1f} points a game (95%), "
        f"{elo(sc) - elo(sb):+.1f} +- {err * per_point:.1f} Elo"
    )


if __name__ == "__main__":
    main()
