//! Records as ShogiHome's record library, tsshogi, writes them (tests/data/records/, made by
//! usi-scripts/tsshogi_records.mjs): JKF of an even game, a handicap preset and a custom
//! position, `getUSI({resign: true})` lines, and a sennichite game as KIF, CSA, JKF and USI.
//! Each is checked against what tsshogi itself said about it (tsshogi_facts.json: start and
//! final SFEN, moves, players, ending), through the records API and through `hayate analyze`.
//! Node is not needed here: the data is stored.

use hayate::records::{self, Format, Game, Input};
use hayate::shogi::{EnteringKingRule, Verdict};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/records");

fn data(name: &str) -> PathBuf {
    Path::new(DATA).join(name)
}

/// tsshogi's facts per record file.
fn facts() -> Vec<(String, Value)> {
    let text = std::fs::read_to_string(data("tsshogi_facts.json")).expect("tsshogi_facts.json");
    let v: Value = serde_json::from_str(&text).expect("facts are JSON");
    let records = v["records"].as_object().expect("records");
    assert!(records.len() >= 8, "{records:?}");
    records.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

fn read_game(name: &str) -> (Format, Game) {
    let bytes = std::fs::read(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = records::decode(&bytes).expect("text");
    match records::parse(&text, None).unwrap_or_else(|e| panic!("{name}: {e}")) {
        (f, Input::Game(g)) => (f, *g),
        (f, Input::Positions(_)) => panic!("{name}: read as a position list ({f})"),
    }
}

/// How each format writes tsshogi's special move, as the record's result.
fn result_word(format: Format, special: &str) -> Option<&'static str> {
    Some(match (format, special) {
        (Format::Jkf, "resign") => "TORYO",
        (Format::Jkf, "interrupt") => "CHUDAN",
        (Format::Jkf, "repetitionDraw") => "SENNICHITE",
        (Format::Usi, "resign") => "resign",
        // USI has no word for a repetition: the moves end without one.
        (Format::Usi, "repetitionDraw") => return None,
        (Format::Kif, "repetitionDraw") => "千日手",
        (Format::Csa, "repetitionDraw") => "%SENNICHITE",
        other => panic!("no result word for {other:?}"),
    })
}

#[test]
fn records_read_as_tsshogi_wrote_them() {
    let _cpu = crate::common::shared();
    for (name, f) in facts() {
        let (format, game) = read_game(&name);
        let ext = name.rsplit('.').next().unwrap();
        assert_eq!(format.to_string(), ext, "{name}: detected format");
        assert_eq!(game.start.to_sfen(), f["start_sfen"], "{name}");
        assert_eq!(game.moves.len() as u64, f["moves"].as_u64().unwrap(), "{name}");
        assert_eq!(game.final_position().to_sfen(), f["final_sfen"], "{name}");
        // USI lines carry no players.
        if format != Format::Usi {
            assert_eq!(game.black.as_deref(), f["black"].as_str(), "{name}");
            assert_eq!(game.white.as_deref(), f["white"].as_str(), "{name}");
        }
        assert_eq!(game.result.as_deref(), result_word(format, f["special"].as_str().unwrap()), "{name}");
        assert!(!game.declaration, "{name}");
        // The repetition tsshogi saw is the rules' referee's too, at the last position only.
        let ends = game.endings(EnteringKingRule::DEFAULT);
        let want = if f["repetition"] == true { Some(Verdict::DrawRepetition) } else { None };
        assert_eq!(ends.last().cloned().flatten(), want, "{name}");
        assert!(ends[..ends.len() - 1].iter().all(Option::is_none), "{name}: {ends:?}");
    }
}

/// Runs `hayate analyze ARGS` with `stdin` as input.
fn analyze(args: &[&str], stdin: &[u8]) -> Output {
    crate::common::run_hayate(&[&["analyze", "--hash", "16", "--quiet"], args].concat(), stdin)
}

fn records_of(out: &Output) -> (Vec<Value>, Value) {
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout.clone()).expect("UTF-8");
    let mut lines: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    let summary = lines.pop().expect("summary");
    assert_eq!(summary["type"], "summary");
    (lines, summary)
}

fn analyze_file(name: &str) -> (Vec<Value>, Value) {
    records_of(&analyze(&[data(name).to_str().unwrap(), "--depth", "2"], b""))
}

#[test]
fn sennichite_ends_in_draw_repetition_and_is_not_searched() {
    let _cpu = crate::common::shared();
    for (name, format) in
        [("sennichite.kif", "kif"), ("sennichite.csa", "csa"), ("sennichite.jkf", "jkf"), ("sennichite.usi", "usi")]
    {
        let (recs, summary) = analyze_file(name);
        assert_eq!(recs.len(), 15, "{name}: 14 moves, 15 positions");
        assert_eq!(summary["format"], format);
        let last = &recs[14];
        assert_eq!(last["game_end"], "draw_repetition", "{name}: {last}");
        assert_eq!(last["sfen"], "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 15");
        assert!(last["best_move"].is_null() && last["score"].is_null() && last["winner"].is_null(), "{last}");
        assert_eq!((last["nodes"].as_u64(), last["depth"].as_u64()), (Some(0), Some(0)), "{last}");
        assert!(last.get("played_move").is_none());
        // Every earlier position is searched, none is a game end, and the move into the
        // repetition is still judged.
        assert!(recs[..14].iter().all(|r| r.get("game_end").is_none() && r["best_move"].is_string()), "{name}");
        assert_eq!(recs[13]["played_move"], "7b8b");
        assert!(recs[13]["played_score"].is_object(), "{}", recs[13]);
        assert_eq!(summary["game_ends"], 1);
        assert_eq!((summary["black"]["moves"].as_u64(), summary["white"]["moves"].as_u64()), (Some(7), Some(7)));
    }
}

#[test]
fn jkf_and_usi_games_through_analyze() {
    let _cpu = crate::common::shared();
    let (recs, summary) = analyze_file("even_game.jkf");
    assert_eq!(recs.len(), 13);
    assert_eq!((summary["format"].as_str(), summary["result"].as_str()), (Some("jkf"), Some("TORYO")));
    assert_eq!(
        (summary["black"]["name"].as_str(), summary["white"]["name"].as_str()),
        (Some("先手太郎"), Some("後手花子"))
    );
    assert_eq!(recs[2]["played_move"], "8h2b+");
    assert_eq!(recs[8]["played_move_ja"], "▲２三角不成");
    assert_eq!(summary["game_ends"], 0);
    let (usi, summary) = analyze_file("even_game.usi");
    assert_eq!(summary["result"], "resign");
    let moves = |r: &[Value]| r.iter().map(|r| r["played_move"].clone()).collect::<Vec<_>>();
    assert_eq!(moves(&usi), moves(&recs), "the USI line is the same game");
    let (recs, summary) = analyze_file("handicap_2piece.jkf");
    assert_eq!(recs[0]["side_to_move"], "white");
    assert_eq!(summary["start_sfen"], "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
    assert_eq!(
        (summary["black"]["name"].as_str(), summary["white"]["name"].as_str()),
        (Some("下手の人"), Some("上手の人"))
    );
    let (recs, _) = analyze_file("custom_position.jkf");
    assert_eq!(recs[0]["sfen"], "8k/9/6+P2/9/4+r4/9/9/9/K8 w G2p 1");
    assert_eq!(recs[2]["played_move"], "P*8g");
}

#[test]
fn game_ends_in_position_lists_and_declarations() {
    let _cpu = crate::common::shared();
    // A list line's own moves are its history: the fourth occurrence is a game end.
    let cycle = " 2h3h 8b7b 3h2h 7b8b";
    let list = format!("startpos moves{}\nstartpos moves{}\n", cycle.repeat(2), cycle.repeat(3));
    let (recs, summary) = records_of(&analyze(&["--format", "sfen", "--depth", "1"], list.as_bytes()));
    assert!(recs[0].get("game_end").is_none() && recs[0]["best_move"].is_string(), "three times is no draw");
    assert_eq!(recs[1]["game_end"], "draw_repetition");
    assert_eq!(summary["game_ends"], 1);
    // A declaration that holds under the rule ends the game; `win` as the last word says it
    // was made. Under NoEnteringKing it does not hold, and the position is searched.
    let declared = b"position sfen +R+B+P+P+P+P+P+P1/4K4/+P+P7/9/9/9/9/9/k8 b RBGS 1 moves win\n";
    let (recs, summary) = records_of(&analyze(&["--depth", "1"], declared));
    assert_eq!(recs[0]["game_end"], "win_declaration_for_side_to_move", "{}", recs[0]);
    assert_eq!((recs[0]["winner"].as_str(), summary["result"].as_str()), (Some("black"), Some("win")));
    let (recs, _) = records_of(&analyze(&["--depth", "1", "--rule", "NoEnteringKing"], declared));
    assert!(recs[0].get("game_end").is_none() && recs[0]["best_move"].is_string(), "{}", recs[0]);
    // Text output shows the word.
    let out = analyze(&[data("sennichite.jkf").to_str().unwrap(), "--depth", "1", "--output", "text"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l.starts_with("  14 ") && l.ends_with("draw_repetition")), "{text}");
}

#[test]
fn bad_endings_and_bad_jkf_exit_2_with_a_message() {
    let _cpu = crate::common::shared();
    let cases: [(&[u8], &str); 5] = [
        (b"position startpos moves 7g7f resign 3c3d\n", "'3c3d' after 'resign'"),
        (b"{\"header\":{},\"moves\":[{},\n", "bad JSON"),
        (
            br#"{"header":{},"moves":[{},{"move":{"color":0,"piece":"FU","from":{"x":7,"y":7},"to":{"x":7,"y":5}}}]}"#,
            "JKF move 1: illegal move",
        ),
        (br#"{"header":{},"initial":{"preset":"HIRATE2"},"moves":[]}"#, "unknown preset 'HIRATE2'"),
        (br#"{"header":{},"moves":[{},{"move":{"color":1,"piece":"FU","to":{"x":3,"y":4}}}]}"#, "side not to move"),
    ];
    for (input, want) in cases {
        let out = analyze(&["--depth", "1"], input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(want), "want '{want}' in {stderr}");
    }
}

#[test]
fn tsume_collections_give_the_defender_the_rest_of_the_pieces() {
    let _cpu = crate::common::shared();
    // Public kingless problems as tsshogi writes them, with the defender's hand line replaced
    // by the collections' "the rest of the pieces" (usi-scripts/tsshogi_records.mjs): read,
    // they are the corpus's positions, as tsshogi read them with the hand in full.
    let text = std::fs::read_to_string(data("tsshogi_tsume.json")).expect("tsshogi_tsume.json");
    let v: Value = serde_json::from_str(&text).expect("JSON");
    let records = v["records"].as_object().expect("records");
    assert!(records.len() >= 5, "{records:?}");
    let mut spellings = std::collections::HashSet::new();
    for (name, f) in records {
        let bytes = std::fs::read(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = records::decode(&bytes).unwrap();
        let rest = f["rest"].as_str().unwrap();
        assert!(text.lines().any(|l| l.ends_with(&format!("の持駒：{rest}"))), "{name}: no '{rest}' hand line");
        spellings.insert(rest.to_string());
        let (format, game) = read_game(name);
        assert_eq!(format, Format::Kif, "{name}");
        assert_eq!(game.start.to_sfen(), f["start_sfen"], "{name}");
        assert_eq!(game.start.to_sfen(), f["corpus_sfen"], "{name}");
        assert_eq!(game.moves.len() as u64, f["moves"].as_u64().unwrap(), "{name}");
        assert_eq!(game.final_position().to_sfen(), f["final_sfen"], "{name}");
        assert_eq!(game.result.as_deref(), Some("詰み"), "{name}");
        assert_eq!(game.endings(EnteringKingRule::DEFAULT).last().cloned().flatten(), Some(Verdict::LossCheckmate));
    }
    assert!(spellings.len() >= 3, "{spellings:?}");
    // Both hands cannot hold the rest.
    let (_, first) = records.iter().next().unwrap();
    let name = records.keys().next().unwrap();
    let text = records::decode(&std::fs::read(data(name)).unwrap()).unwrap();
    let rest = first["rest"].as_str().unwrap();
    let both: String = text
        .lines()
        .map(|l| {
            if l.starts_with("先手の持駒：") || l.starts_with("後手の持駒：") {
                format!("{}：{rest}", &l[..l.find('：').unwrap()])
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let err = records::parse(&both, None).err().expect("an error").to_string();
    assert!(err.contains("both hands"), "{err}");
}
