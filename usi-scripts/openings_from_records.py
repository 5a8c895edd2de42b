#!/usr/bin/env python3
"""Opening lines for self-play A/B matches, taken from recorded games.

The agreed opening set (tests/data/openings_public.txt) has 160 lines, so a fixed-node match
between two builds (deterministic: the same line and colours give the same game) has at most
320 different games. This script takes the first PLIES moves of every game in the CSA records
given (by default the games against Fairy-Stockfish in data/games-vs-fsf/, which start from the
agreed lines and then part ways), keeps each distinct line once, shuffles them with a fixed
seed and writes them in cshogi's opening format (`startpos moves ...`, one per line).

    python3 usi-scripts/openings_from_records.py --out /tmp/openings_big.txt
    python3 usi-scripts/match.py --engine NEW --opponent BASE --games 400 --byoyomi 4000 \\
        --hash 16 --engine-option NodesLimit=20000 --opponent-option NodesLimit=20000 \\
        --openings /tmp/openings_big.txt --seed 3
"""

import argparse
import glob
import os
import random
import sys

import cshogi
from cshogi import CSA


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", nargs="*", help="CSA files (default: data/games-vs-fsf/*.csa)")
    ap.add_argument("--plies", type=int, default=24, help="moves per line (cshogi plays at most 24)")
    ap.add_argument("--min-length", type=int, default=40, help="skip games shorter than this")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", required=True)
    ap.add_argument(
        "--held-out-from",
        metavar="SEEDS",
        help="leave out every line a match.py run of --held-out-games games with one of these "
        "comma-separated --seed values played from the full list (lines no tuning has seen)",
    )
    ap.add_argument("--held-out-games", type=int, default=400)
    args = ap.parse_args()
    paths = args.records or sorted(glob.glob(os.path.join(root, "data", "games-vs-fsf", "*.csa")))
    if not paths:
        sys.exit("error: no CSA records")
    seen = set()
    lines = []
    for path in paths:
        for kifu in CSA.Parser.parse_file(path):
            # Lines are played from the start position.
            if kifu.sfen != cshogi.STARTING_SFEN or len(kifu.moves) < max(args.min_length, args.plies):
                continue
            line = " ".join(cshogi.move_to_usi(m) for m in kifu.moves[: args.plies])
            if line not in seen:
                seen.add(line)
                lines.append("startpos moves " + line)
    random.seed(args.seed)
    random.shuffle(lines)
    if args.held_out_from:
        # match.py (and cshogi) shuffle the file's lines with random.seed(seed) and play the
        # first games / 2 of them.
        played = set()
        for seed in (int(x) for x in args.held_out_from.split(",") if x.strip()):
            shuffled = lines[:]
            random.seed(seed)
            random.shuffle(shuffled)
            played.update(shuffled[: (args.held_out_games + 1) // 2])
        lines = [line for line in lines if line not in played]
    with open(args.out, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    print(f"{len(lines)} opening lines from {len(paths)} files -> {args.out}")


if __name__ == "__main__":
    main()
