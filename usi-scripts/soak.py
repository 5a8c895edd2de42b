#!/usr/bin/env python3
"""Soak test: long series of games with a referee that counts what must never happen.

Plays series of games (hayate against itself, and against Fairy-Stockfish) and counts, per
engine: illegal moves (including a bad `bestmove win`), time losses, crashes (the process
exits or closes its output) and hangs (no `bestmove` long after the clock ran out). The
referee is this script: it keeps the clocks itself, checks every move with cshogi, and
judges repetition (fourfold; perpetual check loses), checkmate (no legal move: the side to
move must resign), entering-king declarations (CSA 27-point rule) and the ply limit.

    python3 usi-scripts/soak.py --games 10                      # every series, 10 games each
    python3 usi-scripts/soak.py --series self-byoyomi --games 500 --json soak.json
    python3 usi-scripts/soak.py --series fsf-fischer --games 250 --ponder

Series (`--series`, comma-separated, default all four):
    self-byoyomi   hayate vs hayate, byoyomi 100 ms
    self-fischer   hayate vs hayate, 1 s + 0.1 s Fischer
    fsf-byoyomi    hayate vs Fairy-Stockfish, byoyomi 100 ms
    fsf-fischer    hayate vs Fairy-Stockfish, 1 s + 0.1 s Fischer

Clocks: with byoyomi the main time is 0 and a move may take the byoyomi; with Fischer the
increment is credited when the turn starts (as shogi GUIs do, so `btime`/`wtime` include
it) and the move may take what is on the clock. Time runs from writing `go` (or `ponderhit`)
to reading `bestmove`, so pipe and scheduling delays count against the engine, as they do
in a real GUI. `--grace-ms` adds a tolerance (default 0).

Engines stay up for the whole series, as in a tournament (`usinewgame` ... `gameover`);
one that crashes or hangs is counted, killed and restarted. Openings come from
tests/data/openings_public.txt, each played with both colours. With `--ponder` hayate
ponders (`go ponder`, then `ponderhit` or `stop`), which exercises those paths too.

The exit status is 1 when hayate had any illegal move, time loss, crash or hang.
"""

import argparse
import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
from collections import Counter

import cshogi

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SERIES = {
    "self-byoyomi": {"opponent": "hayate", "byoyomi": 100, "time": 0, "inc": 0},
    "self-fischer": {"opponent": "hayate", "byoyomi": 0, "time": 1000, "inc": 100},
    "fsf-byoyomi": {"opponent": "fsf", "byoyomi": 100, "time": 0, "inc": 0},
    "fsf-fischer": {"opponent": "fsf", "byoyomi": 0, "time": 1000, "inc": 100},
}


class EngineDied(Exception):
    """The engine process exited or closed its output."""


class EngineHung(Exception):
    """No expected answer within the time allowed."""


class Engine:
    """A USI engine over pipes; lines are read by a thread and time-stamped on arrival."""

    def __init__(self, label, cmd, options, log):
        self.label = label
        self.cmd = cmd
        self.options = options
        self.log = log
        self.proc = None
        self.start()

    def start(self):
        # Buffered pipes: a raw pipe's readline reads one byte per system call, which on a
        # loaded machine delays the `bestmove` behind the info lines before it (and that
        # delay would count as the engine's thinking time). Every write is flushed.
        self.proc = subprocess.Popen(
            self.cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.send("usi")
        self.expect("usiok", 10)
        for k, v in self.options.items():
            self.send(f"setoption name {k} value {v}")
        self.ready()

    @staticmethod
    def _read(proc, lines):
        for raw in proc.stdout:
            lines.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\r\n")))
        lines.put((time.monotonic(), None))

    def send(self, line):
        if self.log:
            self.log.write(f"{self.label} < {line}\n")
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise EngineDied(f"write failed: {e}")

    def read(self, timeout):
        """The next line and its arrival time; EngineHung after `timeout` seconds."""
        try:
            t, line = self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise EngineHung(f"nothing for {timeout:.1f} s")
        if line is None:
            raise EngineDied(f"exit status {self.proc.poll()}")
        if self.log:
            self.log.write(f"{self.label} > {line}\n")
        return t, line

    def expect(self, prefix, timeout):
        deadline = time.monotonic() + timeout
        while True:
            t, line = self.read(deadline - time.monotonic())
            if line.startswith(prefix):
                return t, line

    def ready(self):
        self.send("isready")
        self.expect("readyok", 60)

    def kill(self):
        try:
            self.proc.kill()
            self.proc.wait(5)
        except Exception:
            pass

    def restart(self):
        self.kill()
        self.start()

    def quit(self):
        try:
            self.send("quit")
            self.proc.wait(2)
        except Exception:
            self.kill()


def load_openings(path):
    out = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0] == "startpos" and parts[1] == "moves":
                out.append(parts[2:])
    return out or [[]]


class Game:
    """One game: referee state, and the reason it ended."""

    def __init__(self, opening, max_plies):
        self.board = cshogi.Board()
        self.moves = []
        for m in opening:
            self.board.push_usi(m)
            self.moves.append(m)
        self.max_plies = max_plies
        # Keys of the positions so far, and whether the side that just moved gave check.
        self.seen = Counter([self.board.zobrist_hash()])
        self.checks = [False] * len(self.moves)

    def position(self):
        return "position startpos moves " + " ".join(self.moves) if self.moves else "position startpos"

    def play(self, usi):
        self.board.push_usi(usi)
        self.moves.append(usi)
        self.checks.append(self.board.is_check())
        key = self.board.zobrist_hash()
        self.seen[key] += 1
        return self.seen[key]

    def perpetual_checker(self):
        """After a fourfold repetition: the side (0 black, 1 white) that checked throughout the
        last cycle, or None for a plain draw."""
        n = len(self.moves)
        key = self.board.zobrist_hash()
        # Walk back to the previous occurrence of this position.
        b = cshogi.Board()
        hashes = [b.zobrist_hash()]
        for m in self.moves:
            b.push_usi(m)
            hashes.append(b.zobrist_hash())
        prev = max(i for i in range(n) if hashes[i] == key)
        cycle = range(prev, n)  # moves[prev:n] lead back here
        for side in (0, 1):
            # Move i was played by black when i is even.
            mine = [i for i in cycle if i % 2 == side]
            if mine and all(self.checks[i] for i in mine):
                return side
        return None


def run_series(name, spec, args, stats, log):
    hayate_opts = {"USI_Hash": args.hash, "Threads": args.threads, "USI_Ponder": "true" if args.ponder else "false"}
    if args.network_delay is not None:
        hayate_opts["NetworkDelay"] = args.network_delay
    engines = [Engine("hayate", [args.engine], hayate_opts, log)]
    if spec["opponent"] == "hayate":
        engines.append(Engine("hayate2", [args.engine], dict(hayate_opts), log))
    else:
        fsf_opts = {"Hash": args.hash, "Threads": args.threads, "Move Overhead": 40}
        engines.append(Engine("fsf", [args.opponent], fsf_opts, log))
    openings = load_openings(args.openings)
    rng = random.Random(args.seed)
    rng.shuffle(openings)
    byo, inc = spec["byoyomi"], spec["inc"]
    results = Counter()
    for g in range(args.games):
        opening = openings[(g // 2) % len(openings)]
        # Engine 0 (hayate) has black in even games.
        black = 0 if g % 2 == 0 else 1
        seat = [black, 1 - black]  # seat[color] = engine index
        game = Game(opening, args.max_plies)
        clock = [spec["time"], spec["time"]]
        for e in engines:
            try:
                e.ready()
                e.send("usinewgame")
            except (EngineDied, EngineHung) as ex:
                stats[e.label]["crash" if isinstance(ex, EngineDied) else "hang"] += 1
                e.restart()
                e.send("usinewgame")
        result, reason = None, None
        pondering = {}  # engine index -> the move it ponders on
        while result is None:
            color = len(game.moves) % 2
            idx = seat[color]
            e = engines[idx]
            if inc:
                clock[color] += inc
            allowed = clock[color] + byo  # ms this move may take
            go = f"btime {clock[0]} wtime {clock[1]}" + (f" binc {inc} winc {inc}" if inc else f" byoyomi {byo}")
            try:
                ponder_move = pondering.pop(idx, None)
                if ponder_move is not None and ponder_move == game.moves[-1]:
                    t0 = time.monotonic()
                    e.send("ponderhit")
                else:
                    if ponder_move is not None:
                        # Ponder miss: stop, and its answer (not timed) must come.
                        e.send("stop")
                        e.expect("bestmove", args.hang_s)
                    e.send(game.position())
                    t0 = time.monotonic()
                    e.send("go " + go)
                t1, line = e.expect("bestmove", allowed / 1000 + args.hang_s)
            except EngineHung:
                stats[e.label]["hang"] += 1
                result, reason = 1 - color, f"hang of {e.label}"
                e.restart()
                break
            except EngineDied as ex:
                stats[e.label]["crash"] += 1
                result, reason = 1 - color, f"crash of {e.label} ({ex})"
                e.restart()
                break
            used = (t1 - t0) * 1000
            st = stats[e.label]
            st["moves"] += 1
            st["max_ms_over_allowance"] = max(st["max_ms_over_allowance"], round(used - allowed, 1))
            parts = line.split()
            mv = parts[1] if len(parts) > 1 else ""
            if used > allowed + args.grace_ms:
                st["time_loss"] += 1
                result, reason = 1 - color, f"time loss of {e.label} ({used:.0f} ms of {allowed} ms)"
                break
            clock[color] = max(0, clock[color] - int(used)) if (inc or spec["time"]) else 0
            if mv == "resign":
                if game.board.is_game_over():
                    result, reason = 1 - color, "checkmate"
                else:
                    result, reason = 1 - color, f"resignation by {e.label}"
                break
            if mv == "win":
                if game.board.is_nyugyoku():
                    result, reason = color, f"entering-king declaration by {e.label}"
                else:
                    st["illegal"] += 1
                    result, reason = 1 - color, f"false declaration by {e.label}"
                break
            m = game.board.move_from_usi(mv) if mv else 0
            if not m or not game.board.is_legal(m):
                st["illegal"] += 1
                result, reason = 1 - color, f"illegal move {mv!r} by {e.label} after {game.position()}"
                break
            count = game.play(mv)
            if args.ponder and e.label.startswith("hayate") and len(parts) >= 4 and parts[2] == "ponder":
                pm = game.board.move_from_usi(parts[3])
                if pm and game.board.is_legal(pm):
                    # Ponder on the expected reply with the clocks of the next turn.
                    e.send(game.position() + " " + parts[3])
                    ponder_clock = list(clock)
                    ponder_clock[color] += inc
                    e.send(f"go ponder btime {ponder_clock[0]} wtime {ponder_clock[1]}"
                           + (f" binc {inc} winc {inc}" if inc else f" byoyomi {byo}"))
                    pondering[idx] = parts[3]
            if count >= 4:
                side = game.perpetual_checker()
                if side is None:
                    result, reason = -1, "repetition"
                else:
                    result, reason = 1 - side, "perpetual check"
            elif len(game.moves) >= args.max_plies:
                result, reason = -1, "ply limit"
            # With no legal move the loop goes on: the side to move must answer `resign`.
        # Stop any pondering and tell both the result.
        for i, e in enumerate(engines):
            try:
                if i in pondering:
                    e.send("stop")
                    e.expect("bestmove", args.hang_s)
                outcome = "draw" if result == -1 else ("win" if seat[result] == i else "lose")
                e.send(f"gameover {outcome}")
            except (EngineDied, EngineHung) as ex:
                stats[e.label]["crash" if isinstance(ex, EngineDied) else "hang"] += 1
                e.restart()
        pondering.clear()
        if result == -1:
            results["draw"] += 1
        elif seat[result] == 0:
            results["hayate"] += 1
        else:
            results[engines[1].label] += 1
        # The kind of ending, without the details (which go to stderr).
        results["ending: " + reason.split(" (")[0].split(" after ")[0].split(" by ")[0].split(" of ")[0]] += 1
        print(f"[{name} {g + 1}/{args.games}] plies {len(game.moves)}: {reason}", file=sys.stderr, flush=True)
    for e in engines:
        e.quit()
    return dict(results)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "hayate"))
    ap.add_argument("--opponent", default="/usr/games/fairy-stockfish")
    ap.add_argument("--series", default=",".join(SERIES), help="comma-separated: " + ", ".join(SERIES))
    ap.add_argument("--games", type=int, default=10, help="games per series")
    ap.add_argument("--hash", type=int, default=64, help="MiB for each engine")
    ap.add_argument("--threads", type=int, default=1, help="Threads of every engine")
    ap.add_argument("--network-delay", type=int, help="hayate's NetworkDelay (default: its own)")
    ap.add_argument("--ponder", action="store_true", help="hayate ponders")
    ap.add_argument("--openings", default=os.path.join(ROOT, "tests", "data", "openings_public.txt"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-plies", type=int, default=320, help="plies after which the game is a draw")
    ap.add_argument("--grace-ms", type=float, default=0, help="tolerance before a slow move loses on time")
    ap.add_argument("--hang-s", type=float, default=10, help="seconds past the allowance that count as a hang")
    ap.add_argument("--log", help="file for the whole USI traffic")
    ap.add_argument("--json", help="file for the results as JSON")
    args = ap.parse_args()

    log = open(args.log, "w") if args.log else None
    stats = {}
    totals = {}
    started = time.time()
    for name in args.series.split(","):
        name = name.strip()
        spec = SERIES[name]
        per = {}
        for label in ("hayate", "hayate2", "fsf"):
            per[label] = Counter(moves=0, illegal=0, time_loss=0, crash=0, hang=0)
            per[label]["max_ms_over_allowance"] = -1e9
        results = run_series(name, spec, args, per, log)
        stats[name] = {k: dict(v) for k, v in per.items() if v["moves"] or v["crash"] or v["hang"]}
        totals[name] = results
    if log:
        log.close()

    print(f"soak: {args.games} games per series, {time.time() - started:.0f} s; every engine: "
          f"{args.threads} threads, {args.hash} MiB")
    bad = 0
    summary = {"games_per_series": args.games, "series": {}}
    for name in stats:
        print(f"{name}: results {totals[name]}")
        for label, st in stats[name].items():
            print(f"  {label}: {st['moves']} moves, illegal {st['illegal']}, time losses {st['time_loss']}, "
                  f"crashes {st['crash']}, hangs {st['hang']}, worst margin {-st['max_ms_over_allowance']:.1f} ms")
            if label.startswith("hayate"):
                bad += st["illegal"] + st["time_loss"] + st["crash"] + st["hang"]
        summary["series"][name] = {"results": totals[name], "engines": stats[name]}
    games = args.games * len(stats)
    print(f"total: {games} games; hayate: {bad} illegal moves, time losses, crashes and hangs")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
