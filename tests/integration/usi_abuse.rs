//! Protocol abuse: garbage, binary junk, bytes that are not UTF-8, endless lines, commands
//! with missing or extra arguments, odd interleavings, floods and absurd numbers. The engine
//! must answer every one with at most an `info string` (plus the answer a GUI waits for),
//! keep going, and stay responsive (`stop` within 20 ms, `quit` within 100 ms).

use crate::common;

use common::{Engine, assert_legal_bestmove, bestmove_of};
use hayate::shogi::Position;
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(20);

/// The tests of this file run one at a time: several assert timings (20 ms, 100 ms), which
/// the load of the others would distort on a small machine.
fn one_at_a_time() -> std::sync::RwLockWriteGuard<'static, ()> {
    common::exclusive()
}

/// Deterministic pseudo-random numbers (xorshift64*), so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Checks the engine still works: a search from a fresh position gives a legal move.
fn still_works(e: &mut Engine) {
    for cmd in ["setoption name USI_Hash value 16", "setoption name Threads value 1", "setoption name MultiPV value 1"]
    {
        e.send(cmd);
    }
    e.send("position startpos moves 7g7f");
    e.send("go depth 3");
    let lines = e.until("bestmove", T);
    let mut pos = Position::startpos();
    pos.do_move(pos.parse_usi_move("7g7f").unwrap());
    assert_legal_bestmove(&pos, lines.last().unwrap());
    let r = e.reply_to("isready", 1);
    assert_eq!(r.last().map(String::as_str), Some("readyok"), "{r:?}");
    assert!(e.is_alive());
}

/// Commands whose mutations cannot start a long search or end the session.
const SEEDS: &[&str] = &[
    "usi",
    "isready",
    "usinewgame",
    "stop",
    "ponderhit",
    "ponderhit btime 100 wtime 100 byoyomi 100",
    "gameover win",
    "d",
    "moves",
    "setoption name USI_Hash value 16",
    "setoption name MultiPV value 2",
    "setoption name EnteringKingRule value TryRule",
    "setoption name USI_Ponder value true",
    "position startpos",
    "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e",
    "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f",
    "position sfen 8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
];

/// A mutation of `seed`: bytes flipped, inserted, deleted or duplicated, tokens swapped.
fn mutate(rng: &mut Rng, seed: &str) -> Vec<u8> {
    let mut b = seed.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let i = rng.below(b.len() + 1);
        match rng.below(6) {
            0 if i < b.len() => b[i] = rng.next() as u8,
            1 => {
                const ALPHABET: &[u8] = b" +*/-0123456789abcdefghiPLNSGBRK\t\0\x1b\xff";
                b.insert(i, ALPHABET[rng.below(ALPHABET.len())]);
            }
            2 if i < b.len() => {
                b.remove(i);
            }
            3 => {
                let j = rng.below(b.len() + 1);
                let (lo, hi) = (i.min(j), i.max(j));
                let piece = b[lo..hi].to_vec();
                b.splice(lo..lo, piece);
            }
            4 => b.truncate(i),
            _ => {
                let tokens: Vec<&[u8]> = b.split(|&c| c == b' ').collect();
                let mut t: Vec<Vec<u8>> = tokens.iter().map(|t| t.to_vec()).collect();
                if t.len() > 2 {
                    let (x, y) = (1 + rng.below(t.len() - 1), 1 + rng.below(t.len() - 1));
                    t.swap(x, y);
                }
                b = t.join(&b' ');
            }
        }
    }
    // One line: a newline would make two (both still safe, but then `quit` could appear).
    b.retain(|&c| c != b'\n');
    b
}

fn random_junk(rng: &mut Rng) -> Vec<u8> {
    let n = rng.below(200);
    let binary = rng.below(2) == 0;
    (0..n).map(|_| if binary { rng.next() as u8 } else { b' ' + rng.below(95) as u8 }).filter(|&c| c != b'\n').collect()
}

/// Whether a line may start a search, a diagnostic or end the session (kept out of the junk).
fn dangerous(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let head = text.split_whitespace().next().unwrap_or("");
    matches!(head, "go" | "quit" | "bench")
}

#[test]
fn random_and_mutated_lines_never_stop_the_engine() {
    let _serial = one_at_a_time();
    let mut e = Engine::start();
    e.handshake();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut sent = 0;
    while sent < 600 {
        let line = if rng.below(3) == 0 {
            random_junk(&mut rng)
        } else {
            let seed = SEEDS[rng.below(SEEDS.len())];
            mutate(&mut rng, seed)
        };
        if dangerous(&line) {
            continue;
        }
        let mut bytes = line;
        bytes.push(b'\n');
        e.send_bytes(&bytes);
        sent += 1;
        if sent % 100 == 0 {
            // Every reply so far is an answer to one of the commands, never a move.
            let r = e.reply_to("isready", 0);
            assert!(r.iter().all(|l| !l.starts_with("bestmove")), "{r:?}");
            assert!(e.is_alive(), "engine died; transcript:\n{}", e.transcript.join("\n"));
        }
    }
    still_works(&mut e);
}

#[test]
fn bytes_that_are_not_utf8_do_not_end_the_session() {
    let _serial = one_at_a_time();
    // Regression: the reader used to treat a line that is not UTF-8 as the end of input.
    let mut e = Engine::start();
    e.handshake();
    e.send_bytes(b"is\xffready\n\x00\x01\x02\n\xc3\x28 go\n");
    let r = e.reply_to("isready", 0);
    assert!(r.iter().any(|l| l == "info string error: input line 3 is not valid UTF-8"), "{r:?}");
    assert!(r.iter().all(|l| l.starts_with("info string error: ")), "{r:?}");
    // A damaged `position` is refused like any bad one, not silently ignored.
    e.send("position startpos moves 7g7f");
    e.send_bytes(b"position startpos moves 7g7f 3c\xff3d\n");
    e.send("go depth 2");
    let lines = e.until("bestmove", T);
    assert_eq!(lines.last().unwrap(), "bestmove resign", "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("position cleared")), "{lines:?}");
    still_works(&mut e);
}

#[test]
fn an_endless_line_is_skipped_and_a_lost_position_refused() {
    let _serial = one_at_a_time();
    let mut e = Engine::start();
    e.handshake();
    // 2 MiB without a newline, then the rest of the line.
    let mut junk = vec![b'x'; 2 << 20];
    junk.push(b'\n');
    e.send_bytes(&junk);
    let r = e.reply_to("isready", 0);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(r[0].starts_with("info string error: input line 3 has 2097152 bytes"), "{r:?}");
    // A `position` too long to read: the old position must not be used.
    e.send("position startpos moves 7g7f");
    let mut long = b"position startpos moves".to_vec();
    while long.len() < (2 << 20) {
        long.extend_from_slice(b" 7g7f 3c3d");
    }
    long.push(b'\n');
    e.send_bytes(&long);
    e.send("go btime 1000 wtime 1000 byoyomi 100");
    let lines = e.until("bestmove", T);
    assert_eq!(lines.last().unwrap(), "bestmove resign", "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("skipped; position cleared")), "{lines:?}");
    // A long but acceptable game (3000 plies of shuffling, ~16 KiB) is fine.
    let mut game = String::from("position startpos moves");
    for _ in 0..750 {
        game.push_str(" 5i4h 5a4b 4h5i 4b5a");
    }
    e.send(&game);
    e.send("go depth 2");
    let lines = e.until("bestmove", T);
    assert!(bestmove_of(lines.last().unwrap()).is_some(), "{lines:?}");
    still_works(&mut e);
}

#[test]
fn every_command_with_missing_or_extra_arguments() {
    let _serial = one_at_a_time();
    let mut e = Engine::start();
    e.handshake();
    // (line, readyoks the line itself causes, what the reply must be)
    let cases: &[(&str, usize, &[&str])] = &[
        ("usi now", 0, &["info string error: usi: unexpected 'now'", "id name hayate"]),
        ("isready now", 1, &["info string error: isready: unexpected 'now'", "readyok"]),
        ("usinewgame 1", 0, &["info string error: usinewgame: unexpected '1'"]),
        ("stop please", 0, &["info string error: stop: unexpected 'please'"]),
        ("ponderhit junk", 0, &["info string error: ponderhit: unexpected 'junk'"]),
        ("ponderhit btime", 0, &["info string error: ponderhit: missing a number"]),
        ("gameover", 0, &[]),
        ("gameover win and more", 0, &[]),
        ("setoption", 0, &["info string error: setoption: missing 'name'"]),
        ("setoption name", 0, &["info string error: setoption: missing the option name"]),
        ("setoption name Threads value", 0, &["info string error: option Threads: missing value"]),
        ("setoption name Threads", 0, &["info string error: option Threads: missing value"]),
        ("setoption name USI_Ponder value maybe", 0, &["info string error: option USI_Ponder: 'maybe' is not"]),
        ("setoption name EnteringKingRule value Nope", 0, &["info string error: option EnteringKingRule: unknown"]),
        ("setoption name MultiPV value 1e3", 0, &["info string error: option MultiPV: '1e3' is not a number"]),
        ("setoption value 3", 0, &["info string error: setoption: missing 'name'"]),
        ("bench x", 0, &["info string error: bench: bad number 'x'"]),
        ("bench 0", 0, &["info string error: bench: bad number '0'"]),
        ("d extra", 0, &["info string error: d: unexpected 'extra'", "   9  8  7"]),
        ("moves extra", 0, &["info string error: moves: unexpected 'extra'", "info string 30 legal moves"]),
        ("go perft", 0, &["info string error: go: missing a number; go refused"]),
        ("go mate x", 0, &["info string error: go: bad number 'x'; go refused", "checkmate timeout"]),
        ("go depth", 0, &["info string error: go: missing a number; go refused", "bestmove resign"]),
        ("go btime 100 wtime", 0, &["info string error: go: missing a number; go refused", "bestmove resign"]),
        ("go nodes -1", 0, &["info string error: go: bad number '-1'; go refused", "bestmove resign"]),
        ("go sideways", 0, &["info string error: go: unexpected 'sideways'; go refused", "bestmove resign"]),
        ("position", 0, &["info string error: position: missing startpos or sfen; position cleared"]),
        ("position sfen", 0, &["info string error: position: missing the SFEN; position cleared"]),
        ("position startpos extra", 0, &["info string error: position: unexpected 'extra'; position cleared"]),
        ("position sfen 9/9/9 b - 1 moves 7g7f", 0, &["info string error: bad SFEN '9/9/9 b - 1'"]),
        ("position startpos moves 7g7f foo", 0, &["info string error: move 2 (foo): 'foo' is not a USI move"]),
    ];
    for (line, own, want) in cases {
        // Start each case from a valid position, so that refusals are the line's doing.
        e.send("position startpos");
        let r = e.reply_to(line, *own);
        assert_eq!(r.len().min(want.len()), want.len(), "'{line}': {r:?}");
        for (got, w) in r.iter().zip(want.iter()) {
            assert!(got.starts_with(w), "'{line}': got {r:?}, want {want:?}");
        }
        if want.is_empty() {
            assert!(r.is_empty(), "'{line}': {r:?}");
        }
    }
    // The position is still refused after a failed `position`, then accepted again.
    e.send("position startpos extra");
    e.send("go depth 1");
    assert_eq!(e.until("bestmove", T).last().unwrap(), "bestmove resign");
    e.send("position startpos moves");
    e.send("go depth 1");
    assert_legal_bestmove(&Position::startpos(), e.until("bestmove", T).last().unwrap());
    still_works(&mut e);
    e.send("quit now");
    assert!(e.wait_exit(Duration::from_secs(2)));
}

/// Two `go ponder` queued behind a search with a limit: when that search ends, the first
/// ponder starts and the second `go` (queued behind it) stops it at once, so it answers
/// without waiting for a `stop`; the second ponder then waits for one.
#[test]
fn queued_ponders_do_not_wait_for_each_other() {
    let _serial = one_at_a_time();
    let mut e = Engine::start();
    e.handshake();
    e.send("position startpos");
    // One write: both ponders arrive while the depth-8 search still runs.
    e.send_bytes(b"go depth 8\ngo ponder btime 0 wtime 0 byoyomi 1000\ngo ponder btime 0 wtime 0 byoyomi 1000\n");
    for _ in 0..2 {
        assert_legal_bestmove(&Position::startpos(), e.until("bestmove", Duration::from_secs(10)).last().unwrap());
    }
    // The second ponder holds its answer until told.
    assert!(e.line(Duration::from_millis(300)).is_none_or(|l| !l.starts_with("bestmove")));
    e.send("stop");
    assert_legal_bestmove(&Position::startpos(), e.until("bestmove", T).last().unwrap());
}

#[test]
fn odd_interleavings() {
    let _serial = one_at_a_time();
    let mut e = Engine::start();
    e.handshake();
    // stop, ponderhit and gameover with nothing running: no answer at all.
    for cmd in ["stop", "ponderhit", "ponderhit btime 10 wtime 10 byoyomi 10", "gameover lose"] {
        assert!(e.reply_to(cmd, 0).is_empty(), "{cmd}");
    }
    // go twice: both searches run, in order, each with its bestmove.
    e.send("position startpos");
    e.send("go depth 4");
    e.send("go depth 3");
    e.until("bestmove", T);
    e.until("bestmove", T);
    // go infinite, then go: the first search is stopped and answers, the second runs.
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(50));
    e.send("go depth 2");
    let first = e.until("bestmove", T);
    let second = e.until("bestmove", T);
    assert_legal_bestmove(&Position::startpos(), first.last().unwrap());
    assert_legal_bestmove(&Position::startpos(), second.last().unwrap());
    // go ponder twice, then stop: one bestmove each.
    e.send("go ponder btime 0 wtime 0 byoyomi 1000");
    e.send("go ponder btime 0 wtime 0 byoyomi 1000");
    e.until("bestmove", T);
    e.send("stop");
    e.send("stop");
    e.until("bestmove", T);
    // ponderhit after the search ended, usinewgame and setoption during a search.
    e.send("ponderhit");
    e.send("go depth 20");
    e.send("usinewgame");
    e.send("setoption name MultiPV value 2");
    e.send("stop");
    e.until("bestmove", T);
    // A flood of isready, while idle and during a search: one readyok each.
    let flood = "isready\n".repeat(2000);
    e.send_bytes(flood.as_bytes());
    for _ in 0..2000 {
        e.until("readyok", T);
    }
    e.send("go movetime 200");
    e.send_bytes("isready\n".repeat(500).as_bytes());
    let lines = e.until("readyok", T);
    assert!(lines.iter().any(|l| l.starts_with("bestmove")), "readyok before bestmove: {lines:?}");
    for _ in 1..500 {
        e.until("readyok", T);
    }
    // A flood of positions during an infinite search.
    e.send("go infinite");
    for _ in 0..300 {
        e.send("position startpos moves 2g2f 8c8d");
    }
    e.until("bestmove", T);
    e.send("go depth 2");
    let mut pos = Position::startpos();
    for m in ["2g2f", "8c8d"] {
        pos.do_move(pos.parse_usi_move(m).unwrap());
    }
    assert_legal_bestmove(&pos, e.until("bestmove", T).last().unwrap());
    // quit with commands still queued behind a search.
    e.send("go movetime 5000");
    e.send("position startpos");
    e.send("go depth 30");
    let t = Instant::now();
    e.send("quit");
    assert!(e.wait_exit(Duration::from_millis(500)), "quit with a queue took {:?}", t.elapsed());
}

/// From sending `stop` to reading `bestmove`, in ten cases, each under 20 ms.
///
/// The engine's output is read on this thread (not through `common::Engine`'s reader thread
/// and channel), so the measure holds one thread switch less of the test's own: on a loaded
/// machine each switch can cost milliseconds. A watchdog kills the engine if it hangs.
#[test]
fn stop_is_answered_within_20ms() {
    let _serial = one_at_a_time();
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_hayate"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start hayate");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let t = Instant::now();
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                if t.elapsed() > Duration::from_secs(60) {
                    // Unblocks the read below: the test then fails instead of hanging.
                    let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let mut send = |s: &str| {
        writeln!(stdin, "{s}").unwrap();
        stdin.flush().unwrap();
    };
    let mut read_until = |prefix: &str| -> String {
        let mut line = String::new();
        loop {
            line.clear();
            let n = stdout.read_line(&mut line).expect("read engine output");
            assert!(n > 0, "engine exited while waiting for '{prefix}'");
            if line.starts_with(prefix) {
                return line.trim_end().to_string();
            }
        }
    };
    send("usi");
    read_until("usiok");
    send("setoption name USI_Hash value 64");
    send("isready");
    read_until("readyok");
    let positions = [
        "position startpos",
        "position sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "position sfen 8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    ];
    // Each case's tries: a case is measured again (up to three times) only when it took over
    // 20 ms, so that one stall of a loaded or virtual machine (a CPU taken away for tens of
    // milliseconds) does not fail the test, while an engine that is slow to stop fails every try.
    let mut tries: Vec<Vec<Duration>> = Vec::new();
    for (i, p) in positions.iter().cycle().take(10).enumerate() {
        let mut case = Vec::new();
        while case.len() < 3 && case.last().is_none_or(|t| *t >= Duration::from_millis(20)) {
            // Alternate infinite analysis and pondering, with one and two threads.
            send(&format!("setoption name Threads value {}", 1 + i % 2));
            send(p);
            send(if i % 2 == 0 { "go infinite" } else { "go ponder btime 0 wtime 0 byoyomi 10000" });
            // Let the search get going; its info lines wait in the pipe and are skipped below.
            std::thread::sleep(Duration::from_millis(150));
            let t = Instant::now();
            send("stop");
            let best = read_until("bestmove");
            case.push(t.elapsed());
            assert!(bestmove_of(&best).is_some(), "{best}");
        }
        tries.push(case);
    }
    send("quit");
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = child.wait();
    watchdog.join().unwrap();
    eprintln!("stop answered after {tries:?}");
    for case in &tries {
        let fastest = case.iter().min().unwrap();
        assert!(*fastest < Duration::from_millis(20), "stop answered after {case:?}; all: {tries:?}");
    }
}

#[test]
fn quit_during_perft_and_bench_exits_within_100ms() {
    let _serial = one_at_a_time();
    for cmd in ["go perft 9", "bench 30"] {
        let mut e = Engine::start();
        e.handshake();
        e.send("position startpos");
        e.send(cmd);
        std::thread::sleep(Duration::from_millis(300));
        let t = Instant::now();
        e.send("quit");
        assert!(e.wait_exit(Duration::from_millis(100)), "{cmd}: quit took {:?}", t.elapsed());
    }
    // stop ends them as well, and the engine goes on.
    let mut e = Engine::start();
    e.handshake();
    e.send("go perft 9");
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    assert_eq!(e.line(Duration::from_millis(500)).as_deref(), Some("info string perft stopped"));
    e.send("bench 30");
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    assert_eq!(e.line(Duration::from_millis(500)).as_deref(), Some("info string bench stopped"));
    still_works(&mut e);
}

#[test]
fn absurd_numbers_are_clamped_or_refused() {
    let _serial = one_at_a_time();
    let mut e = Engine::start();
    e.handshake();
    let r = e.reply_to("setoption name Threads value 0", 0);
    assert_eq!(r, vec!["info string warning: option Threads value 0 clamped to 1"]);
    // A table far beyond memory: refused when the engine gets ready, a small one used, and the
    // search goes on.
    let r = e.reply_to("setoption name USI_Hash value 99999999999999999999999999", 0);
    assert_eq!(r.len(), 2, "{r:?}");
    assert_eq!(r[0], "info string warning: option USI_Hash value 99999999999999999999999999 clamped to 1048576");
    assert!(r[1].starts_with("info string error: cannot allocate a 1048576 MiB hash table"), "{r:?}");
    assert!(r[1].ends_with("using 16 MiB"), "{r:?}");
    let r = e.reply_to("setoption name MultiPV value -7", 0);
    assert_eq!(r, vec!["info string warning: option MultiPV value -7 clamped to 1"]);
    e.send("position startpos");
    e.send("go depth 3");
    let lines = e.until("bestmove", T);
    assert!(!lines.iter().any(|l| l.contains("cannot allocate")), "{lines:?}");
    assert_legal_bestmove(&Position::startpos(), lines.last().unwrap());
    // Reported once, not at every move.
    e.send("go depth 3");
    let lines = e.until("bestmove", T);
    assert!(!lines.iter().any(|l| l.contains("cannot allocate")), "{lines:?}");
    e.send("setoption name USI_Hash value 16");
    // Negative clocks are zero: answered at once, with a legal move.
    let t = Instant::now();
    e.send("go btime -5 wtime -5 byoyomi -100");
    let lines = e.until("bestmove", T);
    assert!(t.elapsed() < Duration::from_millis(1000), "{:?}", t.elapsed());
    assert_eq!(lines.iter().filter(|l| l.starts_with("info string warning: go: negative value")).count(), 3);
    assert_legal_bestmove(&Position::startpos(), lines.last().unwrap());
    // depth 10^9 is clamped; movetime keeps it short.
    e.send("go depth 1000000000 movetime 200");
    let lines = e.until("bestmove", T);
    assert!(lines[0].starts_with("info string warning: go: depth 1000000000 clamped to "), "{lines:?}");
    // A clock of centuries is clamped; stop still works.
    e.send("go movetime 999999999999999999999");
    assert!(e.line(T).unwrap().starts_with("info string warning: go: value 999999999999999999999 clamped"));
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    e.until("bestmove", T);
    // nodes 0 means at least one node.
    e.send("go nodes 0");
    assert_legal_bestmove(&Position::startpos(), e.until("bestmove", T).last().unwrap());
    // A network delay longer than the byoyomi: the engine still answers in time.
    e.send("setoption name NetworkDelay value 1000000000");
    let t = Instant::now();
    e.send("go btime 0 wtime 0 byoyomi 1000");
    e.until("bestmove", T);
    assert!(t.elapsed() < Duration::from_millis(1000), "{:?}", t.elapsed());
    e.send("setoption name NetworkDelay value 40");
    // More MultiPV lines than legal moves.
    e.send("setoption name MultiPV value 100000");
    e.send("position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1");
    e.send("go depth 2");
    let lines = e.until("bestmove", T);
    assert_legal_bestmove(&Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b - 1").unwrap(), lines.last().unwrap());
    // A move number out of range is a bad SFEN.
    let r = e.reply_to("position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 10000000000", 0);
    assert!(r[0].contains("bad move number"), "{r:?}");
    still_works(&mut e);
}

/// Threads 4 with a tiny hash over many positions: every bestmove and ponder move legal.
#[test]
fn four_threads_tiny_hash_many_positions() {
    let _serial = one_at_a_time();
    let path = format!("{}/tests/data/random_positions_public.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let sfens: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["sfen"].as_str().map(String::from))
        .step_by(50)
        .collect();
    assert!(sfens.len() >= 40);
    let mut e = Engine::start();
    e.send("setoption name Threads value 4");
    e.send("setoption name USI_Hash value 1");
    e.handshake();
    for (i, sfen) in sfens.iter().enumerate() {
        let pos = Position::from_sfen(sfen).unwrap();
        e.send(&format!("position sfen {sfen}"));
        match i % 3 {
            0 => e.send("go nodes 20000"),
            1 => e.send("go btime 0 wtime 0 byoyomi 60"),
            _ => {
                e.send("go infinite");
                std::thread::sleep(Duration::from_millis(30));
                e.send("stop");
            }
        }
        let lines = e.until("bestmove", T);
        assert_legal_bestmove(&pos, lines.last().unwrap());
    }
}

/// Regression: an infinite or pondering search that found a mate (and so stopped deepening)
/// sent its bestmove at once, before `stop`/`ponderhit`: a protocol violation that leaves a
/// GUI's later `ponderhit` without an answer.
#[test]
fn a_found_mate_waits_for_stop_or_ponderhit() {
    let _serial = one_at_a_time();
    let mut e = Engine::start();
    e.handshake();
    let pos = Position::from_sfen("4k4/9/3S5/9/9/9/9/9/4K4 b G 1").unwrap();
    e.send("position sfen 4k4/9/3S5/9/9/9/9/9/4K4 b G 1");
    for go in ["go infinite", "go ponder btime 0 wtime 0 byoyomi 1000"] {
        e.send(go);
        let early = std::iter::from_fn(|| e.line(Duration::from_millis(400))).collect::<Vec<_>>();
        assert!(early.iter().all(|l| !l.starts_with("bestmove")), "{go}: {early:?}");
        e.send(if go == "go infinite" { "stop" } else { "ponderhit" });
        let lines = e.until("bestmove", Duration::from_secs(2));
        assert_eq!(lines.last().unwrap(), "bestmove G*5b", "{go}");
    }
    assert_legal_bestmove(&pos, "bestmove G*5b");
}

/// A `go` queued behind a search that has not answered yet (a script) gets its full time
/// after it. (A `go` from a GUI is timed from its arrival: `byoyomi_uses_most_of_the_time` in
/// usi_protocol.rs.)
#[test]
fn a_queued_go_gets_its_full_time() {
    let _serial = one_at_a_time();
    let mut e = Engine::start();
    e.handshake();
    e.send("position startpos");
    let t = Instant::now();
    e.send("go movetime 300");
    e.send("go movetime 300");
    e.until("bestmove", T);
    e.until("bestmove", T);
    assert!(t.elapsed() >= Duration::from_millis(590), "{:?}", t.elapsed());
}
