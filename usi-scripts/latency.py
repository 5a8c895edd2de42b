#!/usr/bin/env python3
"""Protocol latencies of a USI engine, measured over several fresh starts:

- usiok: from process start to `usiok`
- readyok: from `isready` (default hash) to `readyok`
- stop: from `stop` during `go infinite` to `bestmove`
- quit: from `quit` during `go infinite` to process exit

    python3 usi-scripts/latency.py [--engine target/release/hayate] [--runs 10]
"""

import argparse
import os
import statistics
import subprocess
import time


def read_until(proc, prefix):
    while True:
        line = proc.stdout.readline()
        if not line:
            raise EOFError(f"engine closed before '{prefix}'")
        if line.startswith(prefix):
            return line


def send(proc, cmd):
    proc.stdin.write(cmd + "\n")
    proc.stdin.flush()


def one_run(engine, options):
    t0 = time.perf_counter()
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    send(p, "usi")
    read_until(p, "usiok")
    usiok = time.perf_counter() - t0
    for name, value in options:
        send(p, f"setoption name {name} value {value}")
    t1 = time.perf_counter()
    send(p, "isready")
    read_until(p, "readyok")
    readyok = time.perf_counter() - t1
    send(p, "position startpos")
    send(p, "go infinite")
    time.sleep(0.3)
    t2 = time.perf_counter()
    send(p, "stop")
    read_until(p, "bestmove")
    stop = time.perf_counter() - t2
    send(p, "go infinite")
    time.sleep(0.3)
    t3 = time.perf_counter()
    send(p, "quit")
    p.wait(timeout=5)
    quit_ = time.perf_counter() - t3
    return usiok, readyok, stop, quit_


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=os.path.join(root, "target", "release", "hayate"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE sent before isready")
    args = ap.parse_args()
    options = [kv.split("=", 1) for kv in args.option]
    rows = [one_run(args.engine, options) for _ in range(args.runs)]
    for i, name in enumerate(["usiok", "readyok", "stop", "quit"]):
        v = [r[i] * 1000 for r in rows]
        print(f"{name:8s} min {min(v):7.1f} ms  median {statistics.median(v):7.1f} ms  max {max(v):7.1f} ms")


if __name__ == "__main__":
    main()
