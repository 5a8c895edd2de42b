#!/usr/bin/env python3
"""Makes kingless_legal_moves.jsonl: positions in which one side has no king, with their legal
moves and perft counts from cshogi (1.1.0), each confirmed by rsshogi (1.7.0), a second,
independent implementation. Both accept SFENs without a king and treat a side without one
as never in check.

Run from this folder: `python3 make_kingless_legal_moves.py > kingless_legal_moves.jsonl`.
It reads kingless_mates_public.jsonl and random_positions_public.jsonl (the corpora copied
here) and is deterministic (fixed seed).

Positions (see the `source` field):
- `tsume`: every 8th problem of kingless_mates_public.jsonl (the attacker, without a king, to
  move);
- `tsume_reply`: the same problems after a random check (the defender to move, in check);
- `walk`: random legal moves (2 to 16 plies) from a tsume problem or a position of the other
  sources, so that either side may be to move, captures and promotions happen and the
  kingless side's pieces stand on lines through the other king;
- `stm_king_removed` / `other_king_removed`: positions of random_positions_public.jsonl
  without the king of the side to move / of the other side (kept only if the side not to
  move is then not in check);
- `constructed`: hand-made cases named in `note` (pawn-drop mate against the defender in a
  kingless problem, nifu, a kingless side without legal moves, both colours).

Fields: `id`, `sfen`, `source`, `note` (constructed only), `kingless` (`black` or `white`),
`in_check`, `legal_moves` (sorted USI), `perft2`, and `perft3` where perft2 <= 20000.
"""

import json
import random
import sys

import cshogi
from rsshogi.core import Board as RsBoard

random.seed(20240607)


def load(name):
    with open(name) as f:
        return [json.loads(line) for line in f if line.strip()]


def legal(board):
    return sorted(cshogi.move_to_usi(m) for m in board.legal_moves)


def perft(board, depth):
    if depth == 1:
        return len(board.legal_moves)
    n = 0
    for m in list(board.legal_moves):
        board.push(m)
        n += perft(board, depth - 1)
        board.pop()
    return n


def rs_perft(board, depth):
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    n = 0
    for m in moves:
        board.push_move(m)
        n += rs_perft(board, depth - 1)
        board.undo_move(m)
    return n


def kings(sfen):
    board = sfen.split()[0]
    return board.count("K"), board.count("k")


def kingless_colour(sfen):
    b, w = kings(sfen)
    assert (b, w) in ((0, 1), (1, 0)), sfen
    return "black" if b == 0 else "white"


def side_not_to_move_in_check(sfen):
    fields = sfen.split()
    fields[1] = "w" if fields[1] == "b" else "b"
    return cshogi.Board(" ".join(fields)).is_check()


def remove_king(sfen, upper):
    fields = sfen.split()
    fields[0] = fields[0].replace("K" if upper else "k", "1")
    # Merge the digit runs the removal may have split ("21" -> "3").
    ranks = []
    for rank in fields[0].split("/"):
        out, run = "", 0
        for ch in rank:
            if ch.isdigit():
                run += int(ch)
            else:
                if run:
                    out += str(run)
                    run = 0
                out += ch
        if run:
            out += str(run)
        ranks.append(out)
    fields[0] = "/".join(ranks)
    return " ".join(fields)


def record(sfen, source, note=None):
    board = cshogi.Board(sfen)
    assert board.sfen().split()[:3] == sfen.split()[:3], (sfen, board.sfen())
    assert not side_not_to_move_in_check(sfen), sfen
    moves = legal(board)
    rs = RsBoard(sfen)
    rs_moves = sorted(m.to_usi() for m in rs.legal_moves())
    if rs_moves != moves:
        sys.exit(f"cshogi and rsshogi disagree on {sfen}: {set(moves) ^ set(rs_moves)}")
    r = {"sfen": sfen, "source": source}
    if note:
        r["note"] = note
    r["kingless"] = kingless_colour(sfen)
    r["in_check"] = board.is_check()
    r["legal_moves"] = moves
    r["perft2"] = perft(board, 2)
    if r["perft2"] != rs_perft(rs, 2):
        sys.exit(f"perft2 differs on {sfen}")
    if r["perft2"] <= 20000:
        r["perft3"] = perft(board, 3)
        if r["perft3"] != rs_perft(rs, 3):
            sys.exit(f"perft3 differs on {sfen}")
    return r


def walk(sfen, plies):
    board = cshogi.Board(sfen)
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(random.choice(moves))
    out = board.sfen().split()
    return " ".join(out[:3] + ["1"])


out = []
tsume = load("kingless_mates_public.jsonl")
for p in tsume[::8]:
    sfen = p["sfen"]
    out.append(record(sfen, "tsume"))
    board = cshogi.Board(sfen)
    checks = []
    for m in board.legal_moves:
        board.push(m)
        if board.is_check():
            checks.append(m)
        board.pop()
    if checks:
        board.push(random.choice(checks))
        reply = " ".join(board.sfen().split()[:3] + ["1"])
        out.append(record(reply, "tsume_reply"))
    out.append(record(walk(sfen, random.randint(2, 16)), "walk"))

positions = load("random_positions_public.jsonl")
for i, p in enumerate(positions[::40]):
    sfen = p["sfen"]
    stm_black = sfen.split()[1] == "b"
    remove_stm = i % 2 == 0
    upper = stm_black if remove_stm else not stm_black
    cut = remove_king(sfen, upper)
    if side_not_to_move_in_check(cut):
        continue
    out.append(record(cut, "stm_king_removed" if remove_stm else "other_king_removed"))
    if i % 3 == 0:
        w = walk(cut, random.randint(2, 16))
        if kings(w) in ((0, 1), (1, 0)):
            out.append(record(w, "walk"))

constructed = [
    ("4R2sk/9/7G1/9/9/9/9/9/9 b P 1", "pawn-drop mate against the defender with its capturer pinned: P*1b illegal"),
    ("9/9/9/9/9/9/1g7/9/KS2r4 w p 1", "the same, colours swapped: P*9h illegal"),
    ("7sk/9/7G1/9/9/9/9/9/9 b P 1", "a pawn-drop check that is not mate (the silver takes): P*1b legal"),
    ("4k4/9/4P4/9/9/9/9/9/9 b P 1", "nifu: no pawn drop on file 5"),
    ("8k/9/9/9/9/9/9/9/9 b P 1", "a kingless side with only a pawn in hand"),
    ("4k4/9/9/9/9/9/9/9/9 b - 1", "a kingless side with nothing: no legal move"),
    ("9/9/9/9/9/9/9/9/4K4 w - 1", "the same for white"),
    ("4k4/4P4/9/9/9/9/9/9/9 w - 1", "the defender in check by a pawn, the attacker without a king"),
    ("4r4/9/9/9/9/9/9/1p7/K8 w Pp 1", "white kingless: a pawn drop on 9h checks and is not mate"),
    ("R8/4S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", "the 593-move position without black's king"),
    ("8k/9/9/9/4r4/9/4B4/9/4L4 b - 1", "kingless black's bishop and lance on a rook's file: nothing is pinned"),
    ("4r4/9/9/9/4R4/9/9/9/4K4 w - 1", "white kingless: its rook against black's pinned rook"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSG1GSNL b - 1", "start position without black's king"),
    ("lnsg1gsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1", "start position without white's king"),
]
for sfen, note in constructed:
    out.append(record(sfen, "constructed", note))

for i, r in enumerate(out):
    r = {"id": f"kl{i:03d}", **r}
    print(json.dumps(r, separators=(", ", ": ")))
