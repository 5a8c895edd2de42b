#!/usr/bin/env python3
"""Nodes and depth two USI engines reach under the same `go`, move by move through recorded games.

Both engines are kept running as in a game (one `usinewgame` per record, their tables kept from
move to move) and, for every position of every record after --skip plies, search it in turn
(which goes first alternates) with the same `go` command, e.g. `go byoyomi 200`. Prints, per
phase of the game (ply ranges), each engine's mean nodes of its last `info`, its nodes per second
and its mean depth, and the ratio of the two engines' nodes: what a fixed-node comparison should
give each engine to stand in for the clock.

    python3 usi-scripts/replay_nodes.py --records games.csa --games 4 --go "go byoyomi 200" \\
        --engine target/release/hayate --option EvalDir=nn --option USI_OwnBook=false \\
        --option NetworkDelay=0 --reference YaneuraOu --reference-option EvalDir=nn \\
        --reference-option BookFile=no_book --reference-option NetworkDelay=0 \\
        --reference-option NetworkDelay2=0

Both engines get `Threads` 1 and `USI_Hash` 64 before the options given (which may override them).
"""

import argparse
import statistics

import cshogi
import cshogi.CSA

from nps import Engine


def search(engine, moves, go):
    """(nodes, time ms, depth) of the engine's last `info` with a PV for `go` after `moves`
    from the start position, or None."""
    engine.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
    engine.send(go)
    last = None
    for line in engine.until("bestmove"):
        words = line.split()
        if words[:1] == ["info"] and "nodes" in words and "pv" in words and "depth" in words:
            last = words
    if last is None:
        return None
    get = lambda k: int(last[last.index(k) + 1]) if k in last else 0
    return get("nodes"), get("time"), get("depth")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, help="CSA file of games starting from the start position")
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--skip", type=int, default=24, help="opening plies not searched")
    ap.add_argument("--go", default="go byoyomi 200")
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE for --engine")
    ap.add_argument("--reference", required=True)
    ap.add_argument("--reference-option", action="append", default=[], help="NAME=VALUE for --reference")
    ap.add_argument("--phases", default="24,60,100,1000", help="ply boundaries of the phases reported")
    args = ap.parse_args()

    one_thread = ["Threads=1", "USI_Hash=64"]
    engines = {
        "engine": Engine(args.engine, one_thread + args.option),
        "reference": Engine(args.reference, one_thread + args.reference_option),
    }
    results = {name: [] for name in engines}
    records = cshogi.CSA.Parser.parse_file(args.records)
    for rec in records[: args.games]:
        if rec.sfen.split()[0] != "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL":
            continue
        for e in engines.values():
            e.send("usinewgame")
        moves = []
        for ply, m in enumerate(rec.moves):
            if ply >= args.skip:
                order = list(engines.items()) if ply % 2 == 0 else list(engines.items())[::-1]
                for name, e in order:
                    r = search(e, moves, args.go)
                    if r:
                        results[name].append((ply, *r))
            moves.append(cshogi.move_to_usi(m))
    for e in engines.values():
        e.close()

    bounds = [int(x) for x in args.phases.split(",")]
    print(f"{'plies':>10} {'engine':>10} {'moves':>6} {'mean nodes':>11} {'nodes/s':>9} {'depth':>6}")
    for lo, hi in zip(bounds, bounds[1:]):
        means = {}
        for name, rows in results.items():
            sel = [r for r in rows if lo <= r[0] < hi]
            if not sel:
                continue
            means[name] = statistics.mean(r[1] for r in sel)
            nps = sum(r[1] for r in sel) * 1000 / max(1, sum(r[2] for r in sel))
            print(f"{lo:>4}-{hi:<5} {name:>10} {len(sel):>6} {means[name]:>11.0f} {nps:>9.0f} "
                  f"{statistics.mean(r[3] for r in sel):>6.2f}")
        if len(means) == 2:
            print(f"{lo:>4}-{hi:<5} {'ratio':>10} {'':>6} {means['engine'] / means['reference']:>11.2f}")
    if all(results.values()):
        ratio = statistics.mean(r[1] for r in results["engine"]) / statistics.mean(r[1] for r in results["reference"])
        print(f"all plies: nodes ratio engine/reference {ratio:.2f} over {len(results['engine'])} positions")


if __name__ == "__main__":
    main()
