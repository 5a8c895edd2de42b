//! Every `usi-scripts/*.usi` runs to completion as `hayate < SCRIPT`: the engine reads the
//! commands, finishes the last search at end of input, prints its answer and exits.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The expected start of each script's last output line. A new script needs an entry.
const EXPECTED_LAST_LINE: [(&str, &str); 5] = [
    ("analyse_depth.usi", "bestmove "),
    ("multipv3.usi", "bestmove "),
    // `go mate` answers `checkmate <moves>`, `checkmate nomate`, ... (or `timeout`).
    ("mate_search.usi", "checkmate "),
    ("bench.usi", "info string bench depth "),
    ("game_replay.usi", "bestmove "),
];

fn run_script(path: &Path) -> (Vec<String>, Duration) {
    let start = Instant::now();
    let script = std::fs::File::open(path).expect("open script");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hayate"))
        .stdin(Stdio::from(script))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start hayate");
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let deadline = start + Duration::from_secs(60);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            assert!(status.success(), "{}: exit {status}", path.display());
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{} did not finish within 60 s", path.display());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = reader.join().expect("reader thread");
    (out.lines().filter(|l| !l.trim().is_empty()).map(String::from).collect(), start.elapsed())
}

#[test]
fn every_script_runs_to_its_expected_last_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("usi-scripts");
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .expect("usi-scripts/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "usi"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= EXPECTED_LAST_LINE.len(), "{scripts:?}");
    for path in scripts {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let Some((_, want)) = EXPECTED_LAST_LINE.iter().find(|(n, _)| *n == name) else {
            panic!("no expected last line for {name}: add it to EXPECTED_LAST_LINE");
        };
        let (lines, took) = run_script(&path);
        let last = lines.last().map(String::as_str).unwrap_or_default();
        assert!(last.starts_with(want), "{name}: last line '{last}', want '{want}...'\n{}", lines.join("\n"));
        // Every script starts with the handshake.
        assert!(lines.iter().any(|l| l == "usiok"), "{name}");
        assert!(lines.iter().all(|l| !l.starts_with("info string error")), "{name}:\n{}", lines.join("\n"));
        eprintln!("{name}: {} lines in {:.1} s", lines.len(), took.as_secs_f64());
    }
}

#[test]
fn scripts_searching_positions_end_with_a_legal_move() {
    use hayate::shogi::Position;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("usi-scripts");
    for name in ["analyse_depth.usi", "multipv3.usi", "game_replay.usi"] {
        let text = std::fs::read_to_string(dir.join(name)).expect("script");
        let last_position = text.lines().rfind(|l| l.starts_with("position ")).expect("a position");
        let tokens: Vec<&str> = last_position.split_whitespace().collect();
        assert_eq!(tokens[1], "startpos", "{name}");
        let mut pos = Position::startpos();
        for m in tokens.iter().skip(3) {
            let mv = pos.parse_usi_move(m).expect("script moves are legal");
            pos.do_move(mv);
        }
        let (lines, _) = run_script(&dir.join(name));
        let best = lines.last().and_then(|l| l.split_whitespace().nth(1)).expect("bestmove MOVE");
        assert!(pos.parse_usi_move(best).is_ok(), "{name}: {best} is not legal");
        if name == "multipv3.usi" {
            let last_depth: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth 12 ")).collect();
            assert!(last_depth.iter().any(|l| l.contains(" multipv 3 ")), "{name}: no third line");
        }
    }
}
