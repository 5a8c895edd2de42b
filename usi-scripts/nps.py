#!/usr/bin/env python3
"""Search speed of two USI engines on the same positions: nodes per second of each, and the
ratio of the first to the second. Each round searches every position for --movetime ms with
each engine in turn (alternating which goes first, so that machine drift hits both alike),
from a fresh `usinewgame`; an engine's nodes/s is the total of its last `info ... nodes`
counts over the total of their `time`s.

    python3 usi-scripts/nps.py --engine target/release/hayate --option EvalDir=/tmp/nn \\
        --reference /tmp/yo/YaneuraOu-by-gcc --reference-option EvalDir=/tmp/nn \\
        --reference-option BookFile=no_book --movetime 3000 --rounds 3

Positions: the 8 of hayate's bench (`src/search/bench.rs`) unless --positions FILE (one SFEN
per line) is given; a position that either engine answers without searching (a mate found at
once) counts for neither. Prints one line per round and the summary: `nps A B ratio R`.
"""

import argparse
import re
import statistics
import subprocess

BENCH = [
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "ln1g1gsnl/1r1s2k2/p1pppp1pp/6p2/1p7/2P4P1/PPSPPPP1P/2G2S1R1/LN2KG1NL b Bb 15",
    "lnsgk1snl/6gb1/p1pppp2p/6pR1/9/1rP6/P2PPPP1P/1BG6/LNS1KGSNL w 3P2p 16",
    "ln1gk2nl/1r1s1sgb1/p1pppp1pp/6p2/1p7/2PP5/PPBSPPPPP/2G1R4/LN2KGSNL b - 21",
    "l2g3nl/2s2kg2/p1npp1sp1/2p2pp1p/1p7/2PBP1P1P/PPS2PN2/2GK1S3/LN1G4L b RBr2p 55",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
]


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
    ap.add_argument("--movetime", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--verbose", action="store_true", help="nodes/s of each engine on each position")
    ap.add_argument("--positions", help="file of SFENs, one per line (default: hayate's bench positions)")
    args = ap.parse_args()
    positions = BENCH
    if args.positions:
        with open(args.positions) as f:
            positions = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    engines = [Engine(args.engine, args.option), Engine(args.reference, args.reference_option)]
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
