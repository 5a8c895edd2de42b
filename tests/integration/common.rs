//! A scripted USI session against the real binary.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Timing-sensitive tests run alone: they take this lock exclusively, every other test takes it
/// shared, so nothing else runs while a clock is measured.
static CPU: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// For tests that measure time.
pub fn exclusive() -> std::sync::RwLockWriteGuard<'static, ()> {
    CPU.write().unwrap_or_else(|e| e.into_inner())
}

/// For tests that merely use the engine.
pub fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    CPU.read().unwrap_or_else(|e| e.into_inner())
}

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    pub transcript: Vec<String>,
}

impl Engine {
    pub fn start() -> Engine {
        Self::start_with_args(&[])
    }

    pub fn start_with_args(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hayate"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start hayate");
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(l) = line else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Engine { child, stdin, lines: rx, transcript: Vec::new() }
    }

    pub fn send(&mut self, cmd: &str) {
        self.transcript.push(format!("> {cmd}"));
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{cmd}").unwrap();
        stdin.flush().unwrap();
    }

    /// Closes the engine's input (end of file).
    pub fn close_input(&mut self) {
        self.stdin.take();
    }

    /// Next line within `timeout`, or None.
    pub fn line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => {
                self.transcript.push(format!("< {l}"));
                Some(l)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Lines up to and including the first that starts with `prefix`. Panics with the
    /// transcript on timeout.
    pub fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.line(left) {
                Some(l) => {
                    let done = l.starts_with(prefix);
                    out.push(l);
                    if done {
                        return out;
                    }
                }
                None => panic!("no '{prefix}' within {timeout:?}; transcript:\n{}", self.transcript.join("\n")),
            }
        }
    }

    /// Waits for the process to exit; returns whether it did within `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    }

    pub fn handshake(&mut self) {
        self.send("usi");
        self.until("usiok", Duration::from_secs(5));
        self.send("isready");
        self.until("readyok", Duration::from_secs(10));
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The lines less the report of a network read at `isready` (`info string NNUE ...`): the
/// built-in network, on by default, is read and reported at an engine's first `isready`.
pub fn without_network_report(lines: Vec<String>) -> Vec<String> {
    lines.into_iter().filter(|l| !l.starts_with("info string NNUE ")).collect()
}

/// The move of a `bestmove` line (None for resign/win).
pub fn bestmove_of(line: &str) -> Option<String> {
    let mut it = line.split_whitespace();
    assert_eq!(it.next(), Some("bestmove"), "{line}");
    match it.next() {
        Some("resign") | Some("win") | None => None,
        Some(m) => Some(m.to_string()),
    }
}

impl Engine {
    /// Writes raw bytes (no newline added): for input that is not text.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.transcript.push(format!("> {} raw bytes", bytes.len()));
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends `cmd` and then `isready`; returns the reply lines before the `readyok` that
    /// answers the sentinel (`own_readyoks` earlier ones belong to `cmd` and are included).
    pub fn reply_to(&mut self, cmd: &str, own_readyoks: usize) -> Vec<String> {
        self.send(cmd);
        self.send("isready");
        let mut out = Vec::new();
        for _ in 0..own_readyoks {
            out.extend(self.until("readyok", Duration::from_secs(20)));
        }
        let mut rest = self.until("readyok", Duration::from_secs(20));
        rest.pop();
        out.extend(rest);
        out
    }

    /// Whether the process is still running.
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

/// Checks that `mv` (a `bestmove` line) names a legal move of `pos`, and its ponder move a
/// legal reply.
pub fn assert_legal_bestmove(pos: &hayate::shogi::Position, line: &str) {
    let parts: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(parts.first(), Some(&"bestmove"), "{line}");
    let best = parts.get(1).copied().unwrap_or("");
    if best == "resign" || best == "win" {
        return;
    }
    let mv = pos.parse_usi_move(best).unwrap_or_else(|e| panic!("illegal bestmove in {line}: {e} ({})", pos.to_sfen()));
    if parts.len() >= 4 {
        assert_eq!(parts[2], "ponder", "{line}");
        let mut after = pos.clone();
        after.do_move(mv);
        assert!(after.parse_usi_move(parts[3]).is_ok(), "illegal ponder move in {line} ({})", pos.to_sfen());
    }
}

/// The JSON lines of `tests/data/NAME`.
pub fn load_jsonl(name: &str) -> Vec<serde_json::Value> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

/// Runs `f` over `items` on all cores; returns what each call gave, in order.
pub fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    out.lock().unwrap().push((i, r));
                }
            });
        }
    });
    let mut v = out.into_inner().unwrap();
    v.sort_by_key(|(i, _)| *i);
    v.into_iter().map(|(_, r)| r).collect()
}

/// Runs the release binary with `args`, `stdin` as its input, and waits for it.
pub fn run_hayate(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_hayate"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hayate");
    let mut input = child.stdin.take().expect("stdin");
    // The process may stop before reading (bad options): a closed pipe is fine then.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("hayate runs")
}
