#!/usr/bin/env python3
"""Prints the records of PackedSfenValue files (YaneuraOu's training data, as
`hayate gensfen` writes them), decoded by cshogi: one line per record,
`SFEN<TAB>MOVE<TAB>SCORE<TAB>PLY<TAB>RESULT<TAB>LEGAL`, the move in USI, LEGAL 1 when
cshogi finds the move legal in the position. The last line counts the records and the
illegal moves.

    python3 usi-scripts/psv_dump.py FILE [FILE ...] [--limit N]
"""

import argparse

import cshogi
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--limit", type=int, help="print at most this many records of each file")
    args = ap.parse_args()
    board = cshogi.Board()
    total = illegal = 0
    for path in args.files:
        records = np.fromfile(path, dtype=cshogi.PackedSfenValue)
        for i, r in enumerate(records):
            board.set_psfen(r["sfen"])
            move = board.move_from_psv(r["move"])
            legal = board.is_legal(move)
            total += 1
            illegal += not legal
            if args.limit is None or i < args.limit:
                sfen = " ".join(board.sfen().split()[:3])
                print(f"{sfen}\t{cshogi.move_to_usi(move)}\t{r['score']}\t{r['gamePly']}\t{r['game_result']}\t{int(legal)}")
    print(f"records: {total}, illegal moves: {illegal}")


if __name__ == "__main__":
    main()
