#!/usr/bin/env python3
"""How fast a USI engine's tree grows with depth: every position is searched with `go nodes N`
from a fresh `usinewgame`, and for each depth the script prints the nodes the engine had
searched when it reported that iteration complete (geometric mean over the positions that
completed it) and the growth from the depth before (geometric mean, over the positions that
completed both, of each one's ratio): the effective branching factor. The last
line is the mean depth of the last completed iteration at N nodes. Two engines (or two
settings of one) compared this way show where one tree grows faster, independently of nodes/s.

    python3 usi-scripts/iterations.py --engine target/release/hayate --option EvalDir=nn \\
        --positions positions.txt --nodes 400000
    python3 usi-scripts/iterations.py --engine YaneuraOu --option EvalDir=nn \\
        --option BookFile=no_book --option PvInterval=0 --positions positions.txt --nodes 400000

An iteration counts as complete at its first `info ... depth D ... pv` line without
`lowerbound`/`upperbound` (YaneuraOu prints its lines only after PvInterval ms unless it is 0).
Every run sets `Threads` 1 (or --threads) and `USI_Hash` (--hash MiB, default 64) before the
--option values. Positions: the 8 of hayate's bench unless --positions FILE (one SFEN per line).
"""

import argparse
import math

from nps import Engine, positions_from


def iterations(engine, sfen, nodes):
    """{depth: nodes when that iteration completed} and the last completed depth."""
    engine.send("usinewgame")
    engine.send(f"position sfen {sfen}")
    engine.send(f"go nodes {nodes}")
    done = {}
    for line in engine.until("bestmove"):
        words = line.split()
        if words[:1] != ["info"] or "pv" not in words or "depth" not in words or "nodes" not in words:
            continue
        if "lowerbound" in words or "upperbound" in words:
            continue
        depth = int(words[words.index("depth") + 1])
        done.setdefault(depth, int(words[words.index("nodes") + 1]))
    return done, max(done, default=None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE")
    ap.add_argument("--positions", help="file of SFENs, one per line (default: hayate's bench positions)")
    ap.add_argument("--nodes", type=int, default=400_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hash", type=int, default=64)
    args = ap.parse_args()
    if args.nodes < 1:
        raise SystemExit("error: --nodes must be at least 1")
    engine = Engine(args.engine, [f"Threads={args.threads}", f"USI_Hash={args.hash}"] + args.option)
    by_depth, growths, last = {}, {}, []
    for sfen in positions_from(args.positions):
        done, deepest = iterations(engine, sfen, args.nodes)
        for depth, n in done.items():
            by_depth.setdefault(depth, []).append(math.log(max(n, 1)))
            if depth - 1 in done:
                growths.setdefault(depth, []).append(math.log(max(n, 1) / max(done[depth - 1], 1)))
        if deepest is not None:
            last.append(deepest)
    engine.close()
    print("depth positions nodes(geomean) growth")
    for depth in sorted(by_depth):
        logs = by_depth[depth]
        mean = math.exp(sum(logs) / len(logs))
        ratios = growths.get(depth)
        growth = f"{math.exp(sum(ratios) / len(ratios)):.2f}" if ratios else "-"
        print(f"{depth:5} {len(logs):9} {mean:15.0f} {growth:>6}")
    if last:
        print(f"mean completed depth at {args.nodes} nodes: {sum(last) / len(last):.2f} over {len(last)} positions")


if __name__ == "__main__":
    main()
