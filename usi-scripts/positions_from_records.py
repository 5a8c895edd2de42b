#!/usr/bin/env python3
"""Positions for `iterations.py`, `nps.py` or `move_quality.py`, taken from CSA game records.

Walks the games of the records given in order and takes one position from each game long
enough (at least --to + 10 plies): the position before the ply `--from + (k * 7) % (--to -
--from)`, k the number of positions taken so far, so that the plies spread over the range.
Stops after --count positions and writes one SFEN per line (cshogi replays the moves, so the
positions are independent of the engines that played them).

    python3 usi-scripts/positions_from_records.py --from 100 --to 140 --count 40 \\
        --out endgame.txt base.1.csa base.2.csa
"""

import argparse
import sys

try:
    import cshogi
    import cshogi.CSA
except ImportError:
    sys.exit("needs cshogi: pip install cshogi")


def positions(paths, lo, hi, count):
    found = []
    for path in paths:
        for record in cshogi.CSA.Parser.parse_file(path):
            if len(found) >= count:
                return found
            if len(record.moves) < hi + 10:
                continue
            target = lo + (len(found) * 7) % (hi - lo)
            board = cshogi.Board(record.sfen)
            for move in record.moves[:target]:
                board.push(move)
            found.append(board.sfen())
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", nargs="+", help="CSA files (match.py --csa)")
    ap.add_argument("--from", dest="lo", type=int, default=40, help="first ply of the range")
    ap.add_argument("--to", dest="hi", type=int, default=80, help="end of the range (exclusive)")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not 0 <= args.lo < args.hi:
        sys.exit("--from must be at least 0 and below --to")
    found = positions(args.records, args.lo, args.hi, args.count)
    with open(args.out, "w") as f:
        f.write("".join(s + "\n" for s in found))
    print(f"{len(found)} position{'' if len(found) == 1 else 's'} -> {args.out}")


if __name__ == "__main__":
    main()
