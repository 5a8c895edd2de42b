#!/usr/bin/env python3
"""How a USI engine's search scales with threads: for each `Threads` value, every position is
searched for --movetime ms from a fresh `usinewgame`, and the script prints the depth the
engine reported last (its main thread's completed iterations), its nodes/s, and both relative
to the first `Threads` value. Nodes/s says whether the threads run; the depth reached in the
same time says whether they help the search.

    python3 usi-scripts/threads.py --engine target/release/hayate --threads 1,2 --movetime 3000
    python3 usi-scripts/threads.py --engine YaneuraOu-by-gcc --option BookFile=no_book --threads 1,2

Every run sets `Threads` and `USI_Hash` (--hash MiB, default 64). Positions: the 8 of hayate's
bench (read from src/search/bench.rs) unless --positions FILE (one SFEN per line) is given; a
position that some run answers without searching counts for none.
"""

import argparse
import statistics

from nps import Engine, positions_from


def search(engine, sfen, movetime):
    """Last reported depth, nodes and milliseconds of a search (None when none was reported)."""
    engine.send("usinewgame")
    engine.send(f"position sfen {sfen}")
    engine.send(f"go movetime {movetime}")
    last = None
    for line in engine.until("bestmove"):
        words = line.split()
        if words[:1] == ["info"] and "depth" in words and "nodes" in words and "time" in words:
            get = lambda key: int(words[words.index(key) + 1])  # noqa: E731
            if get("nodes") > 0:
                last = (get("depth"), get("nodes"), get("time"))
    return last


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE")
    ap.add_argument("--threads", default="1,2", help="comma-separated Threads values")
    ap.add_argument("--hash", type=int, default=64, help="USI_Hash (MiB)")
    ap.add_argument("--movetime", type=int, default=3000)
    ap.add_argument("--positions", help="file of SFENs, one per line (default: hayate's bench positions)")
    args = ap.parse_args()
    positions = positions_from(args.positions)
    counts = [int(t) for t in args.threads.split(",")]
    print(f"{len(positions)} positions, movetime {args.movetime} ms, USI_Hash {args.hash} MiB", flush=True)
    runs = {}
    for threads in counts:
        engine = Engine(args.engine, [f"Threads={threads}", f"USI_Hash={args.hash}"] + args.option)
        runs[threads] = [search(engine, sfen, args.movetime) for sfen in positions]
        engine.close()
    # Only positions every run searched (a mate found at once is answered without a search).
    common = [i for i in range(len(positions)) if all(runs[t][i] for t in counts)]
    base = None
    for threads in counts:
        results = [runs[threads][i] for i in common]
        depth = statistics.mean(r[0] for r in results) if results else 0.0
        nps = sum(r[1] for r in results) * 1000 / max(1, sum(r[2] for r in results))
        base = base or (depth, nps)
        print(f"threads {threads}: depth {depth:.2f} ({depth - base[0]:+.2f}), nodes/s {nps:.0f} "
              f"({nps / max(base[1], 1):.2f}x), positions {len(results)}", flush=True)

if __name__ == "__main__":
    main()
