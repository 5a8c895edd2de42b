#!/usr/bin/env python3
"""Search speed of two USI engines on the same positions: nodes per second of each, and the
ratio of the first to the second. Each round searches every position for --movetime ms with
each engine in turn (alternating which goes first, so that machine drift hits both alike),
from a fresh `usinewgame`; an engine's nodes/s is the total of its last `info ... nodes`
counts over the total of their `time`s.

    python3 usi-scripts/nps.py --engine target/release/hayate --option EvalDir=/tmp/nn \\
        --reference /tmp/yo/YaneuraOu-by-gcc --reference-option EvalDir=/tmp/nn \\
        --reference-option BookFile=no_book --threads 1 --hash 64 --movetime 3000 --rounds 3

Both engines get the same `Threads` (--threads, default 1) and `USI_Hash` (--hash MiB,
default 64), set before any --option or --reference-option (which may override them; the
output's first line says what each engine was given). YaneuraOu's own default is 4 threads,
so leaving `Threads` unset compares one of hayate's threads with all of YaneuraOu's.

Positions: the 8 of hayate's bench (read from `src/search/bench.rs` next to this script)
unless --positions FILE (one SFEN per line) is given; a position that either engine answers
without searching (a mate found at once) counts for neither. Prints one line per round and the
summary: `nps A B ratio R`.
"""

import argparse
import os
import re
import statistics
import subprocess


def positions_from(path):
    """The SFENs of `path` (one per line, `#` starts a comment line), or hayate's bench
    positions when `path` is None."""
    if not path:
        return bench_positions()
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def bench_positions():
    """The SFENs of `BENCH_POSITIONS` in src/search/bench.rs (one list, kept by the engine)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "search", "bench.rs")
    with open(path) as f:
        text = f.read()
    block = re.search(r"BENCH_POSITIONS[^=]*=\s*\[(.*?)\];", text, re.S)
    if not block:
        raise SystemExit(f"error: no BENCH_POSITIONS in {path}")
    return re.findall(r'"([^"]+)"', block.group(1))


class Engine:
    def __init__(self, path, options):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                                  cwd=None)
        self.send("usi")
        self.until("usiok")
        for o in options:
            name, _, value = o.partition("=")
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.until("readyok")

    def send(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError(f"engine closed before '{prefix}'")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def search(self, sfen, movetime):
        """Nodes and milliseconds of the last info line that has both (0, 0 when the engine
        answered without searching: a book move, a mate found by a probe)."""
        self.send("usinewgame")
        self.send(f"position sfen {sfen}")
        self.send(f"go movetime {movetime}")
        nodes = ms = None
        for line in self.until("bestmove"):
            n = re.search(r"\bnodes (\d+)", line)
            t = re.search(r"\btime (\d+)", line)
            if n and t and int(n.group(1)) > 0:
                nodes, ms = int(n.group(1)), int(t.group(1))
        return nodes or 0, ms or 0

    def close(self):
        self.send("quit")
        self.p.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE for --engine")
    ap.add_argument("--reference", required=True)
    ap.add_argument("--reference-option", action="append", default=[], help="NAME=VALUE for --reference")
    ap.add_argument("--threads", type=int, default=1, help="Threads of both engines")
    ap.add_argument("--hash", type=int, default=64, help="USI_Hash (MiB) of both engines")
    ap.add_argument("--movetime", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--verbose", action="store_true", help="nodes/s of each engine on each position")
    ap.add_argument("--positions", help="file of SFENs, one per line (default: hayate's bench positions)")
    args = ap.parse_args()
    positions = positions_from(args.positions)
    common = [f"Threads={args.threads}", f"USI_Hash={args.hash}"]
    options = [common + args.option, common + args.reference_option]
    given = []
    for opts in options:
        last = dict(o.partition("=")[::2] for o in opts)
        given.append(f"Threads {last['Threads']}, USI_Hash {last['USI_Hash']} MiB")
    print(f"engine: {given[0]}; reference: {given[1]}; {len(positions)} positions, movetime {args.movetime} ms",
          flush=True)
    engines = [Engine(args.engine, options[0]), Engine(args.reference, options[1])]
    totals = [[0, 0], [0, 0]]
    per_round = []
    for r in range(args.rounds):
        got = [[0, 0], [0, 0]]
        order = [0, 1] if r % 2 == 0 else [1, 0]
        for sfen in positions:
            result = [None, None]
            for i in order:
                result[i] = engines[i].search(sfen, args.movetime)
            if args.verbose:
                rates = " ".join(f"{n * 1000 / max(ms, 1):.0f}" for n, ms in result)
                print(f"  {sfen}: {rates}", flush=True)
            # A position one engine answered without a search counts for neither.
            if all(n > 0 and ms > 0 for n, ms in result):
                for i in range(2):
                    got[i][0] += result[i][0]
                    got[i][1] += result[i][1]
        nps = [g[0] * 1000 / max(g[1], 1) for g in got]
        per_round.append(nps[0] / nps[1])
        print(f"round {r + 1}: nps {nps[0]:.0f} {nps[1]:.0f} ratio {nps[0] / nps[1]:.3f}", flush=True)
        for i in range(2):
            totals[i][0] += got[i][0]
            totals[i][1] += got[i][1]
    for e in engines:
        e.close()
    nps = [t[0] * 1000 / max(t[1], 1) for t in totals]
    print(f"nps {nps[0]:.0f} {nps[1]:.0f} ratio {nps[0] / nps[1]:.3f} "
          f"(rounds {min(per_round):.3f}..{max(per_round):.3f}, median {statistics.median(per_round):.3f})")


if __name__ == "__main__":
    main()
