//! Every `usi-scripts/*.usi` runs to completion as `hayate < SCRIPT`: the engine reads the
//! commands, finishes the last search at end of input, prints its answer and exits. Every
//! Python tool there runs to its final report.

use crate::common;

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
    let _shared = common::shared();
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
    let _shared = common::shared();
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

/// The Python tools of `usi-scripts/`, each with short arguments (`ENGINE`: the engine under
/// test) and the start of the last line it prints when it ran to the end (and, for the match
/// and soak runners, found nothing wrong). They need `python3` with `cshogi`
/// (`pip install cshogi`; `.ci/run` installs it).
const PYTHON_TOOLS: [(&str, &[&str], &str); 16] = [
    ("latency.py", &["--engine", "ENGINE", "--runs", "1"], "quit "),
    (
        "nps.py",
        &[
            "--engine",
            "ENGINE",
            "--reference",
            "ENGINE",
            "--movetime",
            "100",
            "--rounds",
            "1",
            "--positions",
            "tests/data/scripts/nps_positions.txt",
        ],
        "nps ",
    ),
    // Two records of gensfen's format, written by hand from the start position.
    ("psv_dump.py", &["tests/data/scripts/two.psv"], "records: 2, illegal moves: 0"),
    // Two self-play games (`hayate gensfen --games 2 --nodes 300 --seed 7 --out two.games`).
    ("games_dump.py", &["tests/data/scripts/two.games"], "games: 2, searched positions: 44, illegal moves: 0"),
    // The second half of a 4-game run: one opening line, both colours.
    (
        "match.py",
        &[
            "--engine",
            "ENGINE",
            "--games",
            "4",
            "--part",
            "2/2",
            "--byoyomi",
            "100",
            "--hash",
            "16",
            "--opponent",
            "ENGINE",
        ],
        "records: ",
    ),
    // 20 games from the start position: the first 24 moves of each, 19 distinct lines.
    (
        "openings_from_records.py",
        &["data/games-vs-fsf/15-earlier-c.csa", "--out", "OUT_DIR/openings.txt"],
        "19 opening lines from 1 files -> ",
    ),
    // Three recorded games of 123, 109 and 91 moves: only the first reaches ply 100 + 10.
    (
        "positions_from_records.py",
        &[
            "--from",
            "100",
            "--to",
            "110",
            "--count",
            "5",
            "--out",
            "OUT_DIR/positions.txt",
            "tests/data/scripts/paired_base.csa",
        ],
        "1 position -> ",
    ),
    // Four moves under a Fischer clock: the last line gives the think times.
    (
        "thinktime.py",
        &["--engine", "ENGINE", "--time", "2000", "--inc", "100", "--moves", "4"],
        "think time over 4 moves: ",
    ),
    // Two runs of three recorded games (hayate against YaneuraOu at node limits): the first and
    // the last the same in both, the second a loss in the base and a win in the candidate.
    (
        "paired.py",
        &["--base", "tests/data/scripts/paired_base.csa", "--candidate", "tests/data/scripts/paired_candidate.csa"],
        "candidate - base: +33.3 +- 65.3 points a game (95%), +240.8 +- 454.0 Elo",
    ),
    // One game: hayate (+100 in its own eyes) plays 2i3g, the opponent mates with G*1h.
    (
        "surprise_losses.py",
        &["--engine", "ENGINE", "tests/data/scripts/surprise_loss.csa"],
        "  of those, a checkmate for the opponent after that move (30 ms search): 1",
    ),
    // One pair of games of a normal build (which ignores the constants it is given).
    (
        "spsa.py",
        &[
            "--engine",
            "ENGINE",
            "--param",
            "rfp_margin:110:10",
            "--iterations",
            "1",
            "--nodes",
            "300",
            "--workers",
            "1",
            "--log",
            "OUT_DIR/spsa.log",
        ],
        "theta rfp_margin=",
    ),
    (
        "iterations.py",
        &["--engine", "ENGINE", "--nodes", "20000", "--positions", "tests/data/scripts/nps_positions.txt"],
        "mean completed depth at 20000 nodes: ",
    ),
    (
        "threads.py",
        &[
            "--engine",
            "ENGINE",
            "--threads",
            "1,2",
            "--movetime",
            "100",
            "--positions",
            "tests/data/scripts/nps_positions.txt",
        ],
        "threads 2: depth ",
    ),
    // The same engine as engine, baseline and oracle: the same moves, so no difference.
    (
        "move_quality.py",
        &[
            "--engine",
            "ENGINE",
            "--baseline",
            "ENGINE",
            "--oracle",
            "ENGINE",
            "--oracle-nodes",
            "20000",
            "--nodes",
            "3000",
            "--positions",
            "tests/data/scripts/nps_positions.txt",
            "--cache",
            "OUT_DIR/oracle.json",
        ],
        "engine - baseline: +0.00% expected score lost per move",
    ),
    // The same engine twice at a fixed node count: the ratio of nodes is 1.
    (
        "replay_nodes.py",
        &[
            "--engine",
            "ENGINE",
            "--reference",
            "ENGINE",
            "--records",
            "tests/data/records/sennichite.csa",
            "--skip",
            "4",
            "--go",
            "go nodes 3000",
        ],
        "all plies: nodes ratio engine/reference 1.00 over 10 positions",
    ),
    (
        "soak.py",
        &["--engine", "ENGINE", "--series", "self-byoyomi", "--games", "1", "--hash", "16"],
        "total: 1 games; hayate: 0 illegal moves, time losses, crashes and hangs",
    ),
];

#[test]
fn every_python_tool_runs_to_its_expected_last_line() {
    let _exclusive = common::exclusive();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("usi-scripts");
    let engine = env!("CARGO_BIN_EXE_hayate");
    let mut tools: Vec<String> = std::fs::read_dir(&dir)
        .expect("usi-scripts/")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".py"))
        .collect();
    tools.sort();
    for name in tools {
        let Some((_, args, want)) = PYTHON_TOOLS.iter().find(|(n, _, _)| *n == name) else {
            panic!("no expected last line for {name}: add it to PYTHON_TOOLS");
        };
        let out_dir = std::env::temp_dir().join(format!("hayate-tools-{}", std::process::id()));
        std::fs::create_dir_all(&out_dir).expect("temporary folder");
        let args: Vec<String> = args
            .iter()
            .map(|a| if *a == "ENGINE" { engine.to_string() } else { a.replace("OUT_DIR", &out_dir.to_string_lossy()) })
            .collect();
        let start = Instant::now();
        let out = Command::new("python3")
            .arg(dir.join(&name))
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run python3 for {name}: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let last = stdout.lines().rfind(|l| !l.trim().is_empty()).unwrap_or_default();
        // The match runner reports problems in lines of their own before its last line.
        let clean = name != "match.py"
            || (stdout.contains(", 2 games\n")
                && stdout.contains("\nillegal moves: 0\n")
                && stdout.contains("\ncrash: none\n"));
        assert!(
            out.status.success() && last.starts_with(want) && clean,
            "{name}: exit {}, last line '{last}', want '{want}...'\nstdout:\n{stdout}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("{name}: ok in {:.1} s", start.elapsed().as_secs_f64());
    }
}
