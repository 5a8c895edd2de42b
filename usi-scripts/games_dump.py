#!/usr/bin/env python3
"""Prints the games of hayate's games files (`hayate gensfen --out FILE.games`, the self-play
kept under data/selfplay), decoded and replayed by cshogi, independently of hayate: one line
per searched position, `GAME<TAB>SFEN<TAB>MOVE<TAB>SCORE<TAB>RANDOM<TAB>RESULT<TAB>LEGAL`
(SFEN without the move number, MOVE in USI, SCORE the side to move's, RANDOM 1 for the random
opening moves, RESULT 1/-1/0 for the side to move, LEGAL 1 when cshogi finds the move legal).
The first line is the file's settings; the last counts games, searched positions and
illegal moves.

    python3 usi-scripts/games_dump.py FILE [FILE ...] [--summary]

Layout (src/learn/game_store.rs): the line "hayate games 1", a settings line, then gzip
members; each holds games: u32 number, u8 length + SFEN of the start (empty: the start
position), u16 opening moves, u16 searched moves, u8 random ones, u8 result (0 draw, 1 Black
won, 2 White won), the moves (u16, PackedSfenValue's code), the searched moves' scores (i16).
"""

import argparse
import struct
import zlib

import cshogi


def members(data):
    while data:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        yield d.decompress(data)
        if not d.eof:
            raise ValueError("a batch is cut short")
        data = d.unused_data


def games(path):
    raw = open(path, "rb").read()
    magic = b"hayate games 1\n"
    if not raw.startswith(magic):
        raise ValueError(f"{path}: not a games file")
    end = raw.index(b"\n", len(magic))
    settings = raw[len(magic):end].decode()
    out = []
    for payload in members(raw[end + 1:]):
        k = 0
        while k < len(payload):
            (index,) = struct.unpack_from("<I", payload, k)
            k += 4
            n = payload[k]
            start = payload[k + 1:k + 1 + n].decode()
            k += 1 + n
            opening, searched, random, result = struct.unpack_from("<HHBB", payload, k)
            k += 6
            moves = struct.unpack_from(f"<{opening + searched}H", payload, k)
            k += 2 * (opening + searched)
            scores = struct.unpack_from(f"<{searched}h", payload, k)
            k += 2 * searched
            out.append((index, start, moves[:opening], list(zip(moves[opening:], scores)), random, result))
    return settings, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--summary", action="store_true", help="print only the settings and the counts")
    args = ap.parse_args()
    n_games = positions = illegal = 0
    for path in args.files:
        settings, gs = games(path)
        print(settings)
        for index, start, opening, searched, random, result in gs:
            n_games += 1
            board = cshogi.Board(start) if start else cshogi.Board()
            for code in opening:
                move = board.move_from_psv(code)
                illegal += not board.is_legal(move)
                board.push(move)
            for i, (code, score) in enumerate(searched):
                move = board.move_from_psv(code)
                legal = board.is_legal(move)
                positions += 1
                illegal += not legal
                side = 1 if board.turn == cshogi.BLACK else 2
                res = 0 if result == 0 else (1 if result == side else -1)
                if not args.summary:
                    sfen = " ".join(board.sfen().split()[:3])
                    print(f"{index}\t{sfen}\t{cshogi.move_to_usi(move)}\t{score}\t{int(i < random)}\t{res}\t{int(legal)}")
                board.push(move)
    print(f"games: {n_games}, searched positions: {positions}, illegal moves: {illegal}")


if __name__ == "__main__":
    main()
