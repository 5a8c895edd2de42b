#!/usr/bin/env python3
"""SPSA tuning of hayate's search constants by self-play, the way fishtest tunes Stockfish.

Each iteration perturbs every constant by +c or -c at random, plays a pair of games (one
opening, both colours) between the engine with theta + c*delta and the engine with
theta - c*delta, and moves theta towards the side that scored better. The engine is a build
with `--features tune` (`cargo build --release --features tune`), which reads its constants
from the environment variable HAYATE_TUNE (src/search/params.rs); games are node-limited, so
that the machine's load does not decide them.

    cargo build --release --features tune && cp target/release/hayate /tmp/hayate-tune
    python3 usi-scripts/spsa.py --engine /tmp/hayate-tune --param rfp_margin:110:10 \\
        --param lmr_base:40:10 --iterations 2000 --nodes 20000 --workers 2 \\
        --engine-option EvalDir=/tmp/nn --openings /tmp/openings_big.txt --log spsa.log

A parameter is NAME:START:C[:R], C the perturbation at the end of the run and R the learning
rate at the end (default 0.002, fishtest's); the step of an iteration is a_k * score * C_k with
score in -2..2. The log gets one line per iteration (JSON: iteration, result, theta); a run
with the same --log continues from its last line. The last line printed is `theta NAME=V,...`,
ready for HAYATE_TUNE.

With `--opponent ENGINE`, each iteration plays both perturbed engines against that engine
instead of against each other (a pair of games each, on the same opening), and theta moves
towards the one that scored more against it: a tuning for the opponent that matters (self-play
and matches against YaneuraOu have disagreed), at twice the games an iteration.

    python3 usi-scripts/spsa.py --engine /tmp/hayate-tune --param lmr_base:140:15 \\
        --opponent YaneuraOu --opponent-nodes 20000 --opponent-option EvalDir=/tmp/nn \\
        --opponent-option BookFile=no_book --nodes 22000 --engine-option EvalDir=/tmp/nn \\
        --engine-option USI_OwnBook=false --openings /tmp/openings_big.txt --log spsa.log
"""

import argparse
import json
import os
import random
import stat
import sys
import tempfile
import threading

import cshogi.cli

# fishtest's SPSA schedule.
ALPHA, GAMMA = 0.602, 0.101


def parse_param(spec):
    parts = spec.split(":")
    if len(parts) not in (3, 4):
        sys.exit(f"error: --param wants NAME:START:C[:R], got {spec!r}")
    name, start, c = parts[0], float(parts[1]), float(parts[2])
    r = float(parts[3]) if len(parts) == 4 else 0.002
    if c <= 0:
        sys.exit(f"error: --param {spec}: C must be positive")
    return {"name": name, "start": start, "c_end": c, "r_end": r}


def wrapper(folder, engine, tune):
    """An executable that starts `engine` with HAYATE_TUNE=`tune` (cshogi takes a path)."""
    fd, path = tempfile.mkstemp(prefix="hayate-", suffix=".sh", dir=folder)
    with os.fdopen(fd, "w") as f:
        f.write(f"#!/bin/sh\nHAYATE_TUNE='{tune}' exec '{engine}' \"$@\"\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, help="a build with --features tune")
    ap.add_argument("--param", action="append", required=True, help="NAME:START:C[:R]")
    ap.add_argument("--iterations", type=int, default=1000, help="pairs of games in all")
    ap.add_argument("--nodes", type=int, default=20000, help="NodesLimit of both engines")
    ap.add_argument("--threads", type=int, default=1, help="Threads of both engines")
    ap.add_argument("--hash", type=int, default=16, help="USI_Hash (MiB) of both engines")
    ap.add_argument("--workers", type=int, default=2, help="pairs played at once")
    ap.add_argument("--engine-option", action="append", default=[], help="NAME=VALUE for both engines")
    ap.add_argument("--opponent", help="play both perturbed engines against this engine instead")
    ap.add_argument("--opponent-nodes", type=int, help="the opponent's NodesLimit (default: --nodes)")
    ap.add_argument("--opponent-option", action="append", default=[], help="NAME=VALUE for the opponent")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--openings", default=os.path.join(here, "..", "tests", "data", "openings_public.txt"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", required=True, help="JSON lines, one per iteration; continued if present")
    args = ap.parse_args()
    engine = os.path.abspath(args.engine)
    params = [parse_param(p) for p in args.param]
    theta = {p["name"]: p["start"] for p in params}
    done = 0
    if os.path.exists(args.log):
        with open(args.log) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        if lines:
            done, theta = lines[-1]["iteration"], lines[-1]["theta"]
    with open(args.openings) as f:
        openings = sum(1 for line in f if line.strip())
    options = {"USI_Hash": args.hash, "Threads": args.threads, "NodesLimit": args.nodes}
    for kv in args.engine_option:
        k, v = kv.split("=", 1)
        options[k] = v
    opponent_options = {"USI_Hash": args.hash, "Threads": args.threads,
                        "NodesLimit": args.opponent_nodes or args.nodes}
    for kv in args.opponent_option:
        k, v = kv.split("=", 1)
        opponent_options[k] = v
    opponent = None
    if args.opponent:
        opponent = args.opponent if not os.path.exists(args.opponent) else os.path.abspath(args.opponent)
    n = args.iterations
    big_a = 0.1 * n
    lock = threading.Lock()
    folder = tempfile.mkdtemp(prefix="hayate-spsa-")
    state = {"next": done, "theta": theta}
    against = f", against {args.opponent} at {opponent_options['NodesLimit']} nodes" if opponent else ""
    print(f"spsa: {len(params)} parameters, iterations {done + 1}..{n}, {args.nodes} nodes a move, "
          f"Threads {args.threads}, USI_Hash {args.hash} MiB for both{against}", flush=True)

    def worker(wid):
        rng = random.Random(args.seed * 1000 + wid)
        while True:
            with lock:
                k = state["next"] + 1
                if k > n:
                    return
                state["next"] = k
                th = dict(state["theta"])
            plus, minus, step = {}, {}, {}
            for p in params:
                c_k = p["c_end"] * n**GAMMA / k**GAMMA
                a_k = p["r_end"] * p["c_end"] ** 2 * (big_a + n) ** ALPHA / (big_a + k) ** ALPHA
                d = rng.choice((-1, 1))
                plus[p["name"]] = round(th[p["name"]] + c_k * d)
                minus[p["name"]] = round(th[p["name"]] - c_k * d)
                step[p["name"]] = (a_k / c_k * d, p)
            spec = lambda t: ",".join(f"{name}={v}" for name, v in t.items())  # noqa: E731
            e1, e2 = wrapper(folder, engine, spec(plus)), wrapper(folder, engine, spec(minus))
            line_index = rng.randrange(openings)
            play = lambda a, b, opts_b: cshogi.cli.main(  # noqa: E731
                a, b, options1=options, options2=opts_b, games=2, byoyomi=60000, draw=320,
                opening=args.openings, opening_index=line_index, print_summary=False)
            try:
                if opponent is None:
                    r = play(e1, e2, options)
                    score = r.get("engine1_won", 0) - r.get("engine2_won", 0)
                else:
                    # Each side's net wins against the opponent; their difference (-4..4) is
                    # halved to the self-play score's range.
                    r1, r2 = play(e1, opponent, opponent_options), play(e2, opponent, opponent_options)
                    net = lambda r: r.get("engine1_won", 0) - r.get("engine2_won", 0)  # noqa: E731
                    score = (net(r1) - net(r2)) / 2
            finally:
                os.remove(e1)
                os.remove(e2)
            with lock:
                for name, (s, _) in step.items():
                    state["theta"][name] += s * score
                line = {"iteration": k, "result": score, "theta": state["theta"]}
                with open(args.log, "a") as f:
                    f.write(json.dumps(line) + "\n")
                if k % 10 == 0:
                    shown = ", ".join(f"{name} {v:.1f}" for name, v in state["theta"].items())
                    print(f"[{k}/{n}] {shown}", flush=True)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(max(1, args.workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("theta " + ",".join(f"{name}={round(v)}" for name, v in state["theta"].items()))


if __name__ == "__main__":
    main()
