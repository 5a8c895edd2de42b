//! The NNUE network in the engine, through the protocol and the command line: `EvalDir` and
//! `FV_SCALE` as YaneuraOu names them, read at `isready`; the `eval` command and `hayate eval`
//! print YaneuraOu's evaluations of the public reference set; bad files are errors at
//! `isready` and the engine keeps its evaluation; the search plays with the network, and
//! positions it cannot evaluate (a tsume problem) still search. The built-in network
//! (`BuiltInNetwork`) equals the file `hayate eval --export-net` writes, and that file is the
//! one compiled in.

use crate::common;

use common::{Engine, bestmove_of};
use hayate::shogi::Position;
use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// A folder holding the public random network as `nn.bin`, made once per test run.
fn network_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("hayate-nnue-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gz =
            std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nnue/random_sparse_nn.bin.gz")).unwrap();
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut raw).unwrap();
        std::fs::write(dir.join("nn.bin"), &raw).unwrap();
        // A damaged copy: the same file cut short.
        let bad = dir.join("truncated");
        std::fs::create_dir_all(&bad).unwrap();
        std::fs::write(bad.join("nn.bin"), &raw[..raw.len() / 2]).unwrap();
        dir
    })
}

fn reference(n: usize) -> Vec<(String, i64)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nnue/reference_evals_public.jsonl"))
            .unwrap();
    text.lines()
        .take(n)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["sfen"].as_str().unwrap().to_string(), v["eval"].as_i64().unwrap())
        })
        .collect()
}

/// Sends `isready`; the lines before `readyok`.
pub(crate) fn ready(e: &mut Engine) -> Vec<String> {
    e.send("isready");
    let mut lines = e.until("readyok", T);
    lines.pop();
    lines
}

/// The `eval` command's evaluation of `sfen`.
pub(crate) fn eval_of(e: &mut Engine, sfen: &str) -> i64 {
    e.send(&format!("position sfen {sfen}"));
    e.send("eval");
    let line = e.until("info string eval ", T).pop().unwrap();
    line.trim_start_matches("info string eval ").parse().unwrap()
}

#[test]
fn the_eval_command_prints_the_reference_evaluations() {
    let _cpu = common::shared();
    let dir = network_dir();
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.until("usiok", T);
    assert!(lines.contains(&"option name EvalDir type string default <empty>".to_string()), "{lines:?}");
    assert!(lines.contains(&"option name FV_SCALE type spin default 16 min 1 max 128".to_string()), "{lines:?}");
    let built_in_network =
        format!("option name BuiltInNetwork type check default {}", hayate::engine::options::BUILT_IN_NETWORK_DEFAULT);
    assert!(lines.contains(&built_in_network), "{lines:?}");
    e.send("setoption name BuiltInNetwork value true");
    e.send(&format!("setoption name EvalDir value {}", dir.display()));
    let msgs = ready(&mut e);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(
        msgs[0].starts_with(&format!(
            "info string NNUE {}: halfkp_256x2-32-32, 64217077 bytes",
            dir.join("nn.bin").display()
        )),
        "{msgs:?}"
    );
    assert!(msgs[0].contains("Features=HalfKP(Friend)[125388->256x2]"), "{msgs:?}");
    let kernels = format!(", kernels {}", hayate::nnue::Backend::detect().name());
    assert!(msgs[0].ends_with(&kernels), "{msgs:?}");
    for (sfen, want) in reference(40) {
        assert_eq!(eval_of(&mut e, &sfen), want, "{sfen}");
    }
    // FV_SCALE divides the network's output.
    let (sfen, v16) = reference(1).remove(0);
    e.send("setoption name FV_SCALE value 32");
    let v32 = eval_of(&mut e, &sfen);
    assert!((v32 - v16 / 2).abs() <= 1, "{v16} {v32}");
    // Back to the built-in network, then to the linear evaluation: what `hayate eval` prints.
    e.send("setoption name FV_SCALE value 16");
    e.send("setoption name EvalDir value <empty>");
    let msgs = ready(&mut e);
    assert!(
        msgs.len() == 1 && msgs[0].starts_with("info string NNUE built-in network: halfkp_256x2-32-32, 64217077 bytes"),
        "{msgs:?}"
    );
    assert_eq!(eval_of(&mut e, &sfen), hayate_eval(&["--built-in-network", "true"], &sfen));
    e.send("setoption name BuiltInNetwork value false");
    assert!(ready(&mut e).is_empty());
    let linear = hayate_eval(&["--built-in-network", "false"], &sfen);
    assert_eq!(eval_of(&mut e, &sfen), linear);
    assert_eq!(linear, hayate::eval::evaluate(&Position::from_sfen(&sfen).unwrap()) as i64);
}

/// What `hayate eval ARGS --sfen SFEN` prints.
fn hayate_eval(args: &[&str], sfen: &str) -> i64 {
    let out =
        Command::new(env!("CARGO_BIN_EXE_hayate")).arg("eval").args(args).args(["--sfen", sfen]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().parse().unwrap()
}

#[test]
fn the_built_in_network_is_the_exported_file_and_evaluates_as_it() {
    let _cpu = common::shared();
    let dir = std::env::temp_dir().join(format!("hayate-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (file, packed) = (dir.join("nn.bin"), dir.join("hayate.nnpack"));
    let out = Command::new(env!("CARGO_BIN_EXE_hayate"))
        .args(["eval", "--built-in-network", "true", "--export-net", file.to_str().unwrap()])
        .args(["--pack-net", packed.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The file is the one compiled in, packed or not, and a standard network.
    let exported = std::fs::read(&file).unwrap();
    let compiled = include_bytes!("../../src/nnue/hayate.nnpack");
    assert!(hayate::nnue::packed::unpack(compiled).unwrap() == exported);
    assert!(hayate::nnue::packed::unpack(&std::fs::read(&packed).unwrap()).unwrap() == exported);
    let net = hayate::nnue::Network::from_bytes(&exported).unwrap();
    // The engine's default evaluation is that file's, position for position.
    let evals = |args: &[&str]| -> Vec<i64> {
        let input: String = reference(200).iter().map(|(s, _)| format!("{s}\n")).collect();
        let out = common::run_hayate(&[&["eval"], args].concat(), input.as_bytes());
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap().lines().map(|l| l.parse().unwrap()).collect()
    };
    let built_in = evals(&["--built-in-network", "true"]);
    assert_eq!(built_in, evals(&["--eval-dir", dir.to_str().unwrap()]));
    let direct: Vec<i64> = reference(200)
        .iter()
        .map(|(s, _)| net.evaluate(&Position::from_sfen(s).unwrap(), 16).unwrap() as i64)
        .collect();
    assert_eq!(built_in, direct);
    // A real network, not a constant.
    assert!(built_in.iter().collect::<std::collections::HashSet<_>>().len() > 100);
    let mut e = Engine::start();
    e.send("usi");
    e.until("usiok", T);
    e.send("setoption name BuiltInNetwork value true");
    assert_eq!(ready(&mut e).len(), 1);
    let (sfen, _) = reference(1).remove(0);
    assert_eq!(eval_of(&mut e, &sfen), built_in[0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_files_are_errors_at_isready_and_the_evaluation_stays() {
    let _cpu = common::shared();
    let dir = network_dir();
    let (sfen, want) = reference(1).remove(0);
    let mut e = Engine::start();
    e.send("usi");
    e.until("usiok", T);
    let linear = eval_of(&mut e, &sfen);
    // No network yet: a missing one leaves the built-in evaluation.
    e.send("setoption name EvalDir value /nonexistent/folder");
    let msgs = ready(&mut e);
    assert_eq!(
        msgs,
        vec![
            "info string error: EvalDir: network file /nonexistent/folder/nn.bin not found; the evaluation stays as it was"
        ]
    );
    assert_eq!(eval_of(&mut e, &sfen), linear);
    // With a network: a truncated file leaves that network.
    e.send(&format!("setoption name EvalDir value {}", dir.display()));
    assert_eq!(ready(&mut e).len(), 1);
    assert_eq!(eval_of(&mut e, &sfen), want);
    e.send(&format!("setoption name EvalDir value {}", dir.join("truncated").display()));
    let msgs = ready(&mut e);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(msgs[0].starts_with("info string error: EvalDir: ") && msgs[0].contains("truncated"), "{msgs:?}");
    assert_eq!(eval_of(&mut e, &sfen), want);
    // The search still plays.
    e.send("position startpos");
    e.send("go depth 4");
    let mv = bestmove_of(e.until("bestmove", T).last().unwrap()).unwrap();
    assert!(Position::startpos().parse_usi_move(&mv).is_ok());
}

#[test]
fn the_search_plays_with_the_network_and_tsume_positions_still_search() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.send("usi");
    e.until("usiok", T);
    e.send(&format!("setoption name EvalDir value {}", network_dir().display()));
    assert_eq!(ready(&mut e).len(), 1);
    for (sfen, _) in reference(5) {
        e.send(&format!("position sfen {sfen}"));
        e.send("go depth 5");
        let lines = e.until("bestmove", T);
        let pos = Position::from_sfen(&sfen).unwrap();
        match bestmove_of(lines.last().unwrap()) {
            Some(mv) => assert!(pos.parse_usi_move(&mv).is_ok(), "{sfen}: {lines:?}"),
            None => assert!(!pos.has_legal_move() || lines.last().unwrap() == "bestmove win", "{sfen}: {lines:?}"),
        }
    }
    // No attacker king: HalfKP cannot evaluate it, the linear evaluation does.
    e.send("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1");
    e.send("go depth 3");
    assert_eq!(e.until("bestmove", T).last().unwrap(), "bestmove G*5b");
}

#[test]
fn hayate_eval_prints_the_reference_evaluations_and_refuses_bad_files() {
    let _cpu = common::shared();
    let refs = reference(500);
    let input: String = refs.iter().map(|(s, _)| format!("{s}\n")).collect();
    let out = common::run_hayate(&["eval", "--eval-dir", network_dir().to_str().unwrap()], input.as_bytes());
    assert!(out.status.success());
    let got: Vec<i64> = String::from_utf8(out.stdout).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    let want: Vec<i64> = refs.iter().map(|(_, v)| *v).collect();
    assert_eq!(got, want);
    // `startpos moves ...` lines and --sfen read the same way.
    let out = Command::new(env!("CARGO_BIN_EXE_hayate"))
        .args(["eval", "--eval-dir", network_dir().to_str().unwrap(), "--sfen", "startpos moves 7g7f"])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().parse::<i64>().unwrap();
    for (dir, want) in [("/nonexistent", "not found"), (network_dir().join("truncated").to_str().unwrap(), "truncated")]
    {
        let out = Command::new(env!("CARGO_BIN_EXE_hayate"))
            .args(["eval", "--eval-dir", dir, "--sfen", "startpos"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.starts_with("error: ") && err.contains(want), "{err}");
    }
}
