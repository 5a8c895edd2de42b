#!/usr/bin/env python3
"""Lost games that hayate thought it was not losing, from match records.

Reads the CSA files that `match.py --csa` writes (with their comment lines: cshogi puts each
engine's score, from Black's point of view, after its move). For every game hayate lost, it
takes hayate's score at its last move; where that was 0 or better, it asks `hayate mate` whether
the opponent had a checkmate in the position after that move. Prints the counts:

    python3 usi-scripts/surprise_losses.py --engine target/release/hayate part1.csa part2.csa
"""

import argparse
import re
import subprocess
import sys

try:
    import cshogi
    from cshogi import CSA
except ImportError:
    sys.exit("needs cshogi: pip install cshogi")

MOVE = re.compile(r"^[+-]\d{4}[A-Z]{2}")


def games(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for text in f.read().split("\n/\n"):
            if text.strip():
                yield text


def hayate_last_move(text):
    """(hayate lost, index of hayate's last move, its score for hayate) of one game record."""
    lines = text.splitlines()
    black = next((x[2:] for x in lines if x.startswith("N+")), "")
    side = "+" if black.startswith("hayate") else "-"
    moves = 0
    mover = None
    last = None
    ending = None
    for x in lines:
        if MOVE.match(x):
            moves += 1
            mover = x[0]
        elif x.startswith("'**") and mover == side:
            parts = x.split()
            if len(parts) > 1 and re.fullmatch(r"-?\d+", parts[1]):
                score = int(parts[1])
                last = (moves - 1, score if side == "+" else -score)
        elif x.startswith("%"):
            ending = x
    if ending != "%TORYO" or last is None:
        return None
    resigned = "+" if moves % 2 == 0 else "-"
    return resigned == side, last[0], last[1]


def has_mate(engine, sfen, ms):
    out = subprocess.run(
        [engine, "mate", "--sfen", sfen, "--time-ms", str(ms), "--hash", "16"],
        capture_output=True,
        text=True,
    ).stdout
    first = out.splitlines()[0] if out else ""
    return first.startswith("checkmate") and first not in ("checkmate nomate", "checkmate timeout")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="target/release/hayate")
    ap.add_argument("--time-ms", type=int, default=30, help="time for each mate search")
    ap.add_argument("records", nargs="+")
    args = ap.parse_args()
    lost = surprised = mated = 0
    for path in args.records:
        for text in games(path):
            info = hayate_last_move(text)
            if info is None or not info[0]:
                continue
            lost += 1
            _, index, score = info
            if score < 0:
                continue
            surprised += 1
            record = CSA.Parser.parse_str(text + "\n")[0]
            board = cshogi.Board(record.sfen)
            for m in record.moves[: index + 1]:
                board.push(m)
            if has_mate(args.engine, board.sfen(), args.time_ms):
                mated += 1
    print(f"games lost by resignation: {lost}")
    print(f"  hayate's score >= 0 at its last move: {surprised}")
    print(f"  of those, a checkmate for the opponent after that move ({args.time_ms} ms search): {mated}")


if __name__ == "__main__":
    main()
