//! `hayate analyze` on the sample records of tests/data/analyze: one per input format, real
//! formats as Kifu for Windows and floodgate write them (Shift_JIS and UTF-8 KIF, KI2, CSA,
//! SFEN list, USI line). Small depths keep the whole file fast.

use hayate::shogi::Position;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/analyze");

fn data(name: &str) -> PathBuf {
    Path::new(DATA).join(name)
}

/// Runs `hayate analyze ARGS` with `stdin` as input.
fn analyze(args: &[&str], stdin: &[u8]) -> Output {
    crate::common::run_hayate(&[&["analyze", "--hash", "16"], args].concat(), stdin)
}

/// Records and summary of a successful JSON run.
fn records(out: &Output) -> (Vec<Value>, Value) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}, stderr: {stderr}", out.status);
    let stdout = String::from_utf8(out.stdout.clone()).expect("UTF-8 output");
    let mut lines: Vec<Value> =
        stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    let summary = lines.pop().expect("a summary line");
    assert_eq!(summary["type"], "summary", "{summary}");
    assert!(lines.iter().all(|r| r["type"] == "position"));
    (lines, summary)
}

fn analyze_file(name: &str, extra: &[&str]) -> (Vec<Value>, Value) {
    let path = data(name);
    let mut args = vec![path.to_str().expect("UTF-8 path")];
    args.extend_from_slice(extra);
    records(&analyze(&args, b""))
}

fn played(recs: &[Value]) -> Vec<String> {
    recs.iter().filter_map(|r| r["played_move"].as_str().map(String::from)).collect()
}

/// Every record's best move and PV are legal in its SFEN; each MultiPV line too.
fn check_legal(recs: &[Value]) {
    for r in recs {
        let pos = Position::from_sfen(r["sfen"].as_str().expect("sfen")).expect("valid SFEN");
        if let Some(best) = r["best_move"].as_str() {
            assert!(pos.parse_usi_move(best).is_ok(), "illegal best move {best} in {r}");
            assert_eq!(r["pv"][0], best, "{r}");
        } else {
            assert!(r["terminal"].is_string() || r["game_end"].is_string(), "no best move and not terminal: {r}");
        }
        for line in r["multipv"].as_array().expect("multipv array") {
            let mut p = pos.clone();
            for m in line["pv"].as_array().expect("pv") {
                let mv = p.parse_usi_move(m.as_str().expect("move")).unwrap_or_else(|e| panic!("{e} in {line}"));
                p.do_move(mv);
            }
            assert_eq!(line["pv"].as_array().map(Vec::len), line["pv_ja"].as_array().map(Vec::len));
        }
        if let Some(p) = r["played_move"].as_str() {
            assert!(pos.parse_usi_move(p).is_ok(), "played move {p} illegal in {r}");
        }
    }
}

const BLUNDER_GAME: [&str; 11] =
    ["7g7f", "3c3d", "2g2f", "2b5e", "8h5e", "7a6b", "2f2e", "2a3c", "2e2d", "2c2d", "2h2d"];

#[test]
fn kif_in_shift_jis() {
    let _cpu = crate::common::shared();
    let (recs, summary) = analyze_file("blunder_sjis.kif", &["--depth", "5"]);
    assert_eq!(recs.len(), 12, "11 moves: 12 positions");
    assert_eq!(played(&recs), BLUNDER_GAME);
    check_legal(&recs);
    // △５五角 hangs the bishop to ▲同角.
    let r = &recs[3];
    assert_eq!((r["ply"].as_u64(), r["side_to_move"].as_str()), (Some(3), Some("white")));
    assert_eq!(r["played_move_ja"], "△５五角");
    assert_eq!(r["label"], "blunder", "{r}");
    assert!(r["loss_cp"].as_i64().unwrap() > 1000, "{r}");
    assert!(r["played_score_black"]["cp"].as_i64().unwrap() > 1000, "{r}");
    assert_eq!(recs[4]["best_move"], "8h5e");
    assert_eq!(recs[4]["best_move_ja"], "▲同角");
    // The last position has no played move.
    assert!(recs[11].get("played_move").is_none());
    assert_eq!(summary["input"], "game");
    assert_eq!(summary["format"], "kif");
    assert_eq!(summary["moves"], 11);
    assert_eq!(summary["result"], "投了");
    assert_eq!(summary["black"]["name"], "先手太郎");
    assert_eq!(summary["white"]["name"], "後手花子");
    assert_eq!(summary["white"]["blunders"], 1);
    assert_eq!(summary["white"]["blunder_plies"][0], 3);
    assert_eq!(summary["limits"]["depth"], 5);
    assert_eq!(summary["thresholds"]["blunder"], 0.3);
}

#[test]
fn ki2_reads_the_same_game() {
    let _cpu = crate::common::shared();
    let (recs, summary) = analyze_file("blunder_sjis.ki2", &["--depth", "3"]);
    assert_eq!(played(&recs), BLUNDER_GAME);
    assert_eq!(summary["format"], "ki2");
    assert_eq!(summary["result"], "まで11手で先手の勝ち");
    let ja: Vec<&str> = recs.iter().filter_map(|r| r["played_move_ja"].as_str()).collect();
    assert_eq!(ja[..6], ["▲７六歩", "△３四歩", "▲２六歩", "△５五角", "▲同角", "△６二銀"]);
}

#[test]
fn kif_in_utf8_with_a_diagram_and_a_mate() {
    let _cpu = crate::common::shared();
    let (recs, summary) = analyze_file("mate3_utf8.kifu", &["--depth", "5"]);
    assert_eq!(played(&recs), ["S*3b", "2a1b", "G*2c"]);
    assert_eq!(recs[0]["sfen"], "7kl/9/6P2/9/9/9/9/9/K8 b GS2r2b3g3s4n3l17p 1");
    check_legal(&recs);
    assert_eq!(recs[0]["score"]["mate"], 3, "{}", recs[0]);
    assert_eq!(recs[0]["best_move"], "S*3b");
    assert_eq!(recs[0]["best_move_ja"], "▲３二銀");
    // White to move, mated in 2: negative for White, positive from Black's view.
    assert_eq!(recs[1]["score"]["mate"], -2);
    assert_eq!(recs[1]["score_black"]["mate"], 2);
    assert_eq!(recs[2]["score"]["mate"], 1);
    assert_eq!(recs[2]["best_move"], "G*2c");
    assert_eq!(recs[2]["played_score"]["mate"], 1);
    assert_eq!(recs[3]["terminal"], "checkmate");
    assert_eq!(recs[3]["game_end"], "loss_checkmate_for_side_to_move");
    assert_eq!(recs[3]["winner"], "black");
    assert!(recs[3]["best_move"].is_null() && recs[3]["score"].is_null());
    assert_eq!(summary["result"], "詰み");
    assert_eq!(summary["black"]["blunders"], 0);
}

#[test]
fn csa_from_floodgate_with_multipv() {
    let _cpu = crate::common::shared();
    let (recs, summary) = analyze_file("floodgate.csa", &["--depth", "3", "--multipv", "2"]);
    assert_eq!(recs.len(), 35);
    let moves = played(&recs);
    assert_eq!(moves[..6], ["2g2f", "8c8d", "7g7f", "8d8e", "8h7g", "3c3d"]);
    assert_eq!(moves[8..11], ["7g2b+", "3b2b", "B*1f"]);
    assert_eq!(moves[15], "5e9i+");
    check_legal(&recs);
    for r in &recs {
        assert_eq!(r["multipv"].as_array().map(Vec::len), Some(2), "{r}");
        assert_eq!(r["multipv"][0]["multipv"], 1);
        assert_eq!(r["multipv"][1]["multipv"], 2);
        assert_ne!(r["multipv"][0]["move"], r["multipv"][1]["move"]);
    }
    assert_eq!(summary["format"], "csa");
    assert_eq!(summary["result"], "%TORYO");
    assert_eq!(summary["black"]["name"], "hayate_test_d5");
    assert_eq!(summary["black"]["moves"], 17);
    assert_eq!(summary["white"]["moves"], 17);
}

#[test]
fn sfen_list_with_mates_and_a_finished_position() {
    let _cpu = crate::common::shared();
    let (recs, summary) = analyze_file("positions.sfen", &["--depth", "5"]);
    assert_eq!(recs.len(), 5);
    check_legal(&recs);
    assert_eq!(recs[1]["best_move"], "G*2b");
    assert_eq!(recs[1]["score"]["mate"], 1);
    assert_eq!(recs[2]["score"]["mate"], 3);
    assert_eq!(recs[3]["ply"], 4);
    assert_eq!(recs[3]["best_move"], "8h5e");
    assert_eq!(recs[4]["terminal"], "checkmate");
    assert_eq!(recs[4]["side_to_move"], "white");
    assert!(recs.iter().all(|r| r.get("played_move").is_none()));
    assert_eq!(summary["input"], "positions");
    assert_eq!(summary["format"], "sfen");
    assert!(summary.get("black").is_none());
}

#[test]
fn usi_game_from_stdin_detected_or_forced() {
    let _cpu = crate::common::shared();
    let text = std::fs::read(data("blunder.usi")).unwrap();
    let (recs, summary) = records(&analyze(&["--nodes", "2000"], &text));
    assert_eq!(played(&recs), BLUNDER_GAME);
    assert_eq!(summary["format"], "usi");
    assert_eq!(summary["limits"]["nodes"], 2000);
    let (recs, _) = records(&analyze(&["-", "--format", "sfen", "--depth", "2"], &text));
    assert_eq!(recs.len(), 1, "as a list, the line is one position");
    assert_eq!(recs[0]["ply"], 11);
}

#[test]
fn json_records_have_every_field() {
    let _cpu = crate::common::shared();
    let (recs, _) = analyze_file("blunder.usi", &["--depth", "2", "--threads", "2"]);
    let keys = [
        "type",
        "index",
        "ply",
        "sfen",
        "side_to_move",
        "best_move",
        "best_move_ja",
        "score",
        "score_black",
        "depth",
        "seldepth",
        "nodes",
        "time_ms",
        "nps",
        "pv",
        "pv_ja",
        "multipv",
        "played_move",
        "played_move_ja",
        "played_score",
        "played_score_black",
        "loss_cp",
        "win_chance_loss",
        "label",
        "played_score_source",
    ];
    for k in keys {
        assert!(recs[0].get(k).is_some(), "missing {k} in {}", recs[0]);
    }
    assert_eq!(recs[0]["index"], 0);
    assert_eq!(recs[0]["depth"], 2);
}

#[test]
fn svg_plot_is_valid_svg() {
    let _cpu = crate::common::shared();
    let dir = std::env::temp_dir().join(format!("hayate-analyze-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("eval.svg");
    let kif = data("blunder_sjis.kif");
    let out = analyze(&[kif.to_str().unwrap(), "--depth", "4", "--plot", svg.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&svg).expect("the SVG was written");
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    let polylines: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("polyline")).collect();
    assert_eq!(polylines.len(), 1);
    let points = polylines[0].attribute("points").unwrap().split_whitespace().count();
    assert_eq!(points, 12, "one point per position");
    let texts: Vec<String> =
        doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).map(String::from).collect();
    assert!(texts.iter().any(|t| t == "4 △５五角"), "blunder label missing: {texts:?}");
    assert!(texts.iter().any(|t| t.contains("先手太郎 vs 後手花子")), "{texts:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn text_output_is_a_table() {
    let _cpu = crate::common::shared();
    let kif = data("blunder_sjis.kif");
    let out = analyze(&[kif.to_str().unwrap(), "--depth", "3", "--output", "text"], b"");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with(" ply side"), "{text}");
    assert!(lines.iter().any(|l| l.contains(" blunder ")), "{text}");
    assert!(lines.iter().any(|l| l.contains("△５五角 |")), "{text}");
    assert!(text.contains("summary: game record (kif), 12 positions"), "{text}");
}

#[test]
fn bad_input_and_options_exit_2_with_a_message() {
    let _cpu = crate::common::shared();
    let cases: Vec<(Vec<String>, Vec<u8>, &str)> = vec![
        (vec!["/nonexistent/game.kif".into()], vec![], "cannot read"),
        (vec![], b"hello world\n".to_vec(), "cannot tell the input format"),
        (vec![], b"".to_vec(), "empty"),
        (vec![], "手合割：平手\n   1 ７六歩(77)\n   2 ３五歩(33)\n".as_bytes().to_vec(), "line 3"),
        (vec![], b"V2\nPI\n+\n+7776FU\n-3334FU\n+2255KA\n".to_vec(), "line 6: illegal move '+2255KA'"),
        (vec![], b"position startpos moves 7g7f 7f7e\n".to_vec(), "move 2 ('7f7e')"),
        (vec!["--format".into(), "csa".into()], b"position startpos\n".to_vec(), "line 1"),
        (vec!["--depth".into(), "0".into()], b"startpos\n".to_vec(), "0 is not in 1..=230"),
        (vec!["--multipv".into(), "0".into()], b"startpos\n".to_vec(), "0 is not in 1..=600"),
        (vec!["--rule".into(), "Nope".into()], b"startpos\n".to_vec(), "Nope"),
        (vec![], vec![0x81, 0x20, 0xFF, 0xFE], "neither UTF-8 nor Shift_JIS"),
    ];
    for (args, input, want) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = analyze(&args, &input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(want), "{args:?}: want '{want}' in {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // A bad plot path fails after the analysis, still with status 2.
    let out = analyze(&["--depth", "1", "--plot", "/nonexistent/dir/x.svg"], b"startpos\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write /nonexistent/dir/x.svg"));
}
