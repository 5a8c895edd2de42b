#!/usr/bin/env python3
"""How good the moves of a USI engine are at a fixed node count, judged by a deeper search.

Every position is searched by the engine with `go nodes N` from a fresh `usinewgame`; the
oracle (a strong engine given many more nodes) then scores the position after the engine's
move and after its own best move, each with the same `go nodes M`. A move's loss is the
difference of the two, in expected score (a win probability from the centipawns,
`1 / (1 + exp(-cp / 600))`, so that lost and won positions do not dominate). Prints the
agreement with the oracle's move and the mean loss. With --baseline (a second engine, or
the same with other options, run on the same positions) it prints the paired difference of the
two engines' losses with its standard error: a cheap stand-in for a match between them, which
sees nothing of time handling but is independent of both engines' own opinions.

The oracle's answers are kept in --cache (JSON, keyed by position and move), so that each
position and move is searched by the oracle once, across runs and engines.

    python3 usi-scripts/move_quality.py --positions middlegame.txt --nodes 200000 \\
        --engine target/release/hayate --option EvalDir=nn \\
        --baseline ./base.sh --baseline-option EvalDir=nn \\
        --oracle YaneuraOu --oracle-option EvalDir=nn --oracle-option BookFile=no_book \\
        --oracle-nodes 2000000 --cache oracle.json

Every engine gets `Threads` 1 and `USI_Hash` (--hash MiB, default 64) before its options.
"""

import argparse
import json
import math
import os
import sys

from nps import Engine, positions_from


def score_of(line):
    """The score of an `info` line in centipawns (mates as +-30000 less their distance)."""
    words = line.split()
    if "score" not in words:
        return None
    i = words.index("score")
    kind, value = words[i + 1], words[i + 2]
    try:
        if kind == "cp":
            return int(value)
        if kind == "mate":
            # "mate 5", "mate -4", "mate +" or "mate -": the sign says who mates.
            n = 1 if value in ("+", "-") else abs(int(value))
            return -30000 + n if value.startswith("-") else 30000 - n
    except ValueError:
        return None
    return None


def search(engine, position, nodes):
    """(bestmove, the score of the last info line with one) for `position` (a `position` command
    argument: `sfen ... [moves ...]`)."""
    engine.send("usinewgame")
    engine.send(f"position {position}")
    engine.send(f"go nodes {nodes}")
    score = None
    for line in engine.until("bestmove"):
        if line.startswith("info") and " pv " in line and "bound" not in line:
            s = score_of(line)
            if s is not None:
                score = s
        if line.startswith("bestmove"):
            return line.split()[1], score
    return None, score


def win_probability(cp):
    return 1.0 / (1.0 + math.exp(-max(-6000, min(6000, cp)) / 600.0))


class Oracle:
    def __init__(self, args):
        self.args = args
        self.engine = None
        self.cache = {}
        if args.cache and os.path.exists(args.cache):
            with open(args.cache) as f:
                self.cache = json.load(f)
        self.dirty = 0

    def _engine(self):
        if self.engine is None:
            a = self.args
            self.engine = Engine(a.oracle, [f"Threads=1", f"USI_Hash={a.oracle_hash}"] + a.oracle_option)
        return self.engine

    def entry(self, sfen):
        e = self.cache.setdefault(sfen, {})
        if "best" not in e:
            best, _ = search(self._engine(), f"sfen {sfen}", self.args.oracle_nodes)
            e["best"] = best
            self._saved()
        return e

    def value(self, sfen, move):
        """The oracle's value (centipawns, for the side to move at `sfen`) of playing `move`."""
        e = self.entry(sfen)
        values = e.setdefault("values", {})
        if move not in values:
            reply, s = search(self._engine(), f"sfen {sfen} moves {move}", self.args.oracle_nodes)
            if reply in ("resign", None) and s is None:
                s = 30000  # the opponent has no move: a win for the side that played `move`
                values[move] = s
            else:
                values[move] = -(s if s is not None else 0)
            self._saved()
        return values[move]

    def _saved(self, force=False):
        self.dirty += 1
        if self.args.cache and (force or self.dirty % 10 == 0):
            tmp = self.args.cache + ".tmp"
            with open(tmp, "w") as f:
                json.dump(self.cache, f)
            os.replace(tmp, self.args.cache)

    def close(self):
        self._saved(force=True)
        if self.engine:
            self.engine.close()


def losses(path, options, sfens, args, oracle, label):
    """Per position: (engine's move, loss in expected score, loss in centipawns clamped)."""
    engine = Engine(path, ["Threads=1", f"USI_Hash={args.hash}"] + options)
    out = []
    for i, sfen in enumerate(sfens):
        move, _ = search(engine, f"sfen {sfen}", args.nodes)
        if move in (None, "resign", "win"):
            out.append(None)
            continue
        best = oracle.entry(sfen)["best"]
        if best in (None, "resign", "win"):
            out.append(None)  # the oracle resigns or declares: no move to compare with
            continue
        vb = oracle.value(sfen, best)
        vm = vb if move == best else oracle.value(sfen, move)
        out.append((move == best, max(0.0, win_probability(vb) - win_probability(vm)),
                    max(0, min(1000, vb) - max(-1000, min(1000, vm)))))
        if (i + 1) % 25 == 0:
            print(f"  {label}: {i + 1}/{len(sfens)}", file=sys.stderr, flush=True)
    engine.close()
    return out


def summary(name, rows):
    rows = [r for r in rows if r is not None]
    n = len(rows)
    if n == 0:
        print(f"{name}: no position with a move to judge")
        return
    agree = sum(r[0] for r in rows) / n
    loss = sum(r[1] for r in rows) / n
    cp = sum(r[2] for r in rows) / n
    print(f"{name}: {n} positions, agrees with the oracle {100 * agree:.1f}%, "
          f"mean loss {100 * loss:.2f}% expected score ({cp:.1f} cp, clamped at 1000)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE for --engine")
    ap.add_argument("--baseline", help="a second engine, run on the same positions")
    ap.add_argument("--baseline-option", action="append", default=[])
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--oracle-option", action="append", default=[])
    ap.add_argument("--oracle-nodes", type=int, default=2_000_000)
    ap.add_argument("--oracle-hash", type=int, default=256)
    ap.add_argument("--positions", required=True, help="file of SFENs, one per line")
    ap.add_argument("--nodes", type=int, default=200_000)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--cache", help="JSON file keeping the oracle's answers between runs")
    args = ap.parse_args()
    if args.nodes < 1 or args.oracle_nodes < 1:
        raise SystemExit("error: --nodes and --oracle-nodes must be at least 1")
    sfens = positions_from(args.positions)
    oracle = Oracle(args)
    try:
        a = losses(args.engine, args.option, sfens, args, oracle, "engine")
        summary("engine", a)
        if args.baseline:
            b = losses(args.baseline, args.baseline_option, sfens, args, oracle, "baseline")
            summary("baseline", b)
            d = [x[1] - y[1] for x, y in zip(a, b) if x is not None and y is not None]
            if not d:
                raise SystemExit("error: no position both engines and the oracle answered with a move")
            mean = sum(d) / len(d)
            var = sum((x - mean) ** 2 for x in d) / max(1, len(d) - 1)
            se = math.sqrt(var / len(d))
            print(f"engine - baseline: {100 * mean:+.2f}% expected score lost per move "
                  f"(standard error {100 * se:.2f}; negative: the engine's moves are better)")
    finally:
        oracle.close()


if __name__ == "__main__":
    main()
