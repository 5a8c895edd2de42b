//! Property tests of every input parser: random and mutated USI lines, SFENs, option values
//! and raw input bytes never panic, and what parses satisfies the invariants (an SFEN that is
//! accepted round-trips and gives a consistent position). The whole protocol loop also runs
//! in-process over random scripts.

use hayate::engine::EngineOptions;
use hayate::engine::options::OPTIONS;
use hayate::shogi::{MoveList, Position, generate_legal};
use hayate::usi::command::{self, Command};
use hayate::usi::input::{InputLine, LineReader};
use proptest::prelude::*;
use std::io::Write;
use std::sync::{Arc, Mutex};

const SFENS: &[&str] = &[
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1",
    "4k4/9/3S5/9/9/9/9/9/4K4 b G 1",
    "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
];

const USI_LINES: &[&str] = &[
    "usi",
    "isready",
    "usinewgame",
    "stop",
    "quit",
    "ponderhit",
    "ponderhit btime 1000 wtime 2000 binc 10 winc 10 byoyomi 0",
    "gameover draw",
    "setoption name USI_Hash value 64",
    "setoption name Threads value 4",
    "setoption name EnteringKingRule value CSARule24H",
    "position startpos",
    "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e",
    "position sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1 moves 2b3a",
    "go btime 60000 wtime 50000 byoyomi 10000",
    "go btime 1000 wtime 1000 binc 100 winc 100",
    "go ponder btime 0 wtime 0 byoyomi 500",
    "go infinite",
    "go depth 12 nodes 100000 movetime 3000",
    "go mate 1000",
    "go perft 3",
    "bench 3",
];

/// A line mutated at the byte level: replacements from an alphabet that keeps it near valid
/// syntax, insertions, deletions, cuts and token swaps.
fn mutated(seeds: &'static [&'static str]) -> impl Strategy<Value = String> {
    let alphabet: Vec<char> = " +*/-0123456789abcdefghiklnprsgwPLNSGBRK\t\u{0}\u{1b}é日".chars().collect();
    (0..seeds.len(), prop::collection::vec((any::<u16>(), any::<u16>(), 0..5u8), 0..6)).prop_map(move |(i, edits)| {
        let mut c: Vec<char> = seeds[i].chars().collect();
        for (a, b, op) in edits {
            let at = a as usize % (c.len() + 1);
            let ch = alphabet[b as usize % alphabet.len()];
            match op {
                0 if at < c.len() => c[at] = ch,
                1 => c.insert(at, ch),
                2 if at < c.len() => {
                    c.remove(at);
                }
                3 => c.truncate(at),
                _ => {
                    let s: String = c.iter().collect();
                    let mut t: Vec<&str> = s.split(' ').collect();
                    if t.len() > 1 {
                        let j = b as usize % t.len();
                        let k = at % t.len();
                        t.swap(j, k);
                    }
                    c = t.join(" ").chars().collect();
                }
            }
        }
        c.into_iter().collect()
    })
}

/// An SFEN of a random board: sparse pieces of both sides (promoted ones too), two kings,
/// random hands, either side to move.
fn random_board() -> impl Strategy<Value = String> {
    const PIECES: [&str; 26] = [
        "P", "L", "N", "S", "G", "B", "R", "+P", "+L", "+N", "+S", "+B", "+R", "p", "l", "n", "s", "g", "b", "r", "+p",
        "+l", "+n", "+s", "+b", "+r",
    ];
    (prop::collection::vec(0..300usize, 81), 0..81usize, 0..81usize, any::<bool>(), prop::collection::vec(0..2u8, 14))
        .prop_map(|(cells, bk, wk, black, hands)| {
            let mut board: Vec<Option<&str>> = cells.iter().map(|&c| PIECES.get(c).copied()).collect();
            board[wk] = Some("k");
            board[bk] = Some("K");
            let mut sfen = String::new();
            for rank in 0..9 {
                let mut empty = 0;
                for file in 0..9 {
                    match board[rank * 9 + file] {
                        Some(p) => {
                            if empty > 0 {
                                sfen.push_str(&empty.to_string());
                                empty = 0;
                            }
                            sfen.push_str(p);
                        }
                        None => empty += 1,
                    }
                }
                if empty > 0 {
                    sfen.push_str(&empty.to_string());
                }
                if rank < 8 {
                    sfen.push('/');
                }
            }
            sfen.push_str(if black { " b " } else { " w " });
            let mut hand = String::new();
            for (i, &n) in hands.iter().enumerate() {
                if n > 0 {
                    if n > 1 {
                        hand.push_str(&n.to_string());
                    }
                    hand.push_str(["R", "B", "G", "S", "N", "L", "P", "r", "b", "g", "s", "n", "l", "p"][i]);
                }
            }
            sfen.push_str(if hand.is_empty() { "-" } else { &hand });
            sfen.push_str(" 1");
            sfen
        })
}

/// What an accepted SFEN must satisfy.
fn check_position(p: &Position) -> Result<(), TestCaseError> {
    prop_assert!(p.is_consistent());
    let sfen = p.to_sfen();
    let again = Position::from_sfen(&sfen).map_err(|e| TestCaseError::fail(format!("{sfen}: {e}")))?;
    prop_assert_eq!(again.to_sfen(), sfen.clone());
    prop_assert_eq!(again.key(), p.key());
    let f = p.flipped();
    prop_assert!(f.is_consistent());
    prop_assert_eq!(f.flipped().to_sfen(), sfen);
    let (mut a, mut b) = (MoveList::new(), MoveList::new());
    generate_legal(p, &mut a);
    generate_legal(&f, &mut b);
    prop_assert_eq!(a.len(), b.len());
    for m in a.iter() {
        prop_assert!(p.is_legal(*m));
    }
    Ok(())
}

/// Runs a `position` command the way the protocol loop does.
fn exercise(line: &str) -> Result<(), TestCaseError> {
    match command::parse(line) {
        Ok(Command::Position { base, moves }) => {
            if let Ok(p) = command::build_position(&base, &moves) {
                prop_assert!(p.is_consistent());
            }
        }
        Ok(Command::SetOption { name, value }) => {
            let _ = EngineOptions::default().set(&name, value.as_deref());
        }
        Ok(_) => {}
        Err(e) => {
            // Every error has a message that fits on one line.
            let msg = e.to_string();
            prop_assert!(!msg.contains('\n'));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_usi_lines_never_panic(line in any::<String>()) {
        let _cpu = crate::common::shared();
        exercise(&line)?;
    }

    #[test]
    fn random_ascii_usi_lines_never_panic(line in "[ -~]{0,120}") {
        let _cpu = crate::common::shared();
        exercise(&line)?;
    }

    #[test]
    fn mutated_usi_lines_never_panic(line in mutated(USI_LINES)) {
        let _cpu = crate::common::shared();
        exercise(&line)?;
    }

    #[test]
    fn random_sfens_never_panic(s in any::<String>()) {
        let _cpu = crate::common::shared();
        if let Ok(p) = Position::from_sfen(&s) {
            check_position(&p)?;
        }
    }

    #[test]
    fn shaped_sfens_never_panic(s in "([1-9plnsgbrkPLNSGBRK+]{1,11}/){8}[1-9plnsgbrkPLNSGBRK+]{1,11} [bw] [-0-9plnsgbrPLNSGBR]{1,8}( [0-9]{1,7})?") {
        let _cpu = crate::common::shared();
        if let Ok(p) = Position::from_sfen(&s) {
            check_position(&p)?;
        }
    }

    /// Random boards with two kings: most are valid, so the checks of accepted positions
    /// run over positions no game would reach.
    #[test]
    fn random_boards(sfen in random_board()) {
        let _cpu = crate::common::shared();
        if let Ok(p) = Position::from_sfen(&sfen) {
            check_position(&p)?;
        }
    }

    #[test]
    fn mutated_sfens_never_panic(s in mutated(SFENS)) {
        let _cpu = crate::common::shared();
        if let Ok(p) = Position::from_sfen(&s) {
            check_position(&p)?;
        }
    }

    #[test]
    fn option_values_never_panic(i in 0..OPTIONS.len() + 1, value in proptest::option::of(any::<String>())) {
        let _cpu = crate::common::shared();
        let name = OPTIONS.get(i).map_or("NoSuchOption", |o| o.name);
        let mut o = EngineOptions::default();
        if o.set(name, value.as_deref()).is_ok() {
            prop_assert!(o.threads >= 1 && o.multipv >= 1 && o.hash_mib >= 1);
        } else {
            prop_assert_eq!(o, EngineOptions::default());
        }
    }

    #[test]
    fn input_bytes_become_lines(bytes in prop::collection::vec(any::<u8>(), 0..600), max in 1usize..64) {
        let _cpu = crate::common::shared();
        let mut r = LineReader::with_limit(std::io::BufReader::with_capacity(7, &bytes[..]), max);
        let mut lines = 0;
        while let Some(l) = r.next_line().expect("reading a slice cannot fail") {
            lines += 1;
            match l {
                InputLine::Ok(s) | InputLine::Lossy(s, _) => prop_assert!(s.len() <= 3 * max && !s.contains('\n')),
                InputLine::Skipped { head, .. } => prop_assert!(head.len() <= 3 * 64),
            }
        }
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
        let tail = usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
        prop_assert_eq!(lines, newlines + tail);
    }
}

/// Collects what the protocol loop writes.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Lines that may start long work or end the session are replaced by harmless ones.
fn tame(line: String) -> String {
    match line.split_whitespace().next() {
        Some("go" | "bench" | "quit") => "isready".to_string(),
        _ => line,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The whole protocol loop over a random script: it ends at end of input, answers every
    /// `isready` and the final `go`, and never reports an internal error.
    #[test]
    fn protocol_loop_survives_random_scripts(
        lines in prop::collection::vec(prop_oneof![mutated(USI_LINES), any::<String>()], 0..40)
    ) {
        let _cpu = crate::common::shared();
        let mut script = String::from("setoption name USI_Hash value 1\n");
        let mut readies = 0;
        for l in lines {
            let l = tame(l.replace(['\n', '\r'], " "));
            readies += usize::from(l.split_whitespace().next() == Some("isready"));
            script.push_str(&l);
            script.push('\n');
        }
        script.push_str("setoption name MultiPV value 1\nposition startpos\ngo depth 1\n");
        let sink = Sink::default();
        hayate::usi::run(std::io::Cursor::new(script.into_bytes()), hayate::usi::Output::new(Box::new(sink.clone())));
        let out = String::from_utf8(sink.0.lock().unwrap().clone()).expect("output is UTF-8");
        prop_assert!(!out.contains("internal error"), "{}", out);
        prop_assert!(out.lines().last().is_some_and(|l| l.starts_with("bestmove ")), "{}", out);
        // `isready` with arguments also gets its readyok, so there may be more.
        prop_assert!(out.lines().filter(|l| *l == "readyok").count() >= readies);
    }
}

/// The sample records of every format `hayate analyze` reads (tests/data/analyze, and the
/// records tsshogi wrote in tests/data/records).
fn records() -> &'static [(String, Vec<u8>)] {
    static RECORDS: std::sync::OnceLock<Vec<(String, Vec<u8>)>> = std::sync::OnceLock::new();
    RECORDS.get_or_init(|| {
        let mut v: Vec<(String, Vec<u8>)> = Vec::new();
        for sub in ["analyze", "records"] {
            let dir = format!("{}/tests/data/{sub}", env!("CARGO_MANIFEST_DIR"));
            v.extend(
                std::fs::read_dir(&dir)
                    .unwrap_or_else(|e| panic!("{dir}: {e}"))
                    .filter_map(|e| e.ok())
                    .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())),
            );
        }
        v.sort();
        v
    })
}

/// Valid JKF records to mutate: tsshogi's, and hand-written ones with what tsshogi does not
/// write (`same`, `relative` without `from`, presets it lacks, KACHI, forks).
fn jkf_seeds() -> &'static [String] {
    static SEEDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut v: Vec<String> = records()
            .iter()
            .filter(|(name, _)| name.ends_with(".jkf"))
            .map(|(_, b)| String::from_utf8(b.clone()).expect("UTF-8 JKF"))
            .collect();
        assert!(v.len() >= 4, "the tsshogi JKF records");
        v.push(
            r#"{"header":{"上手":"a","下手":"b"},"initial":{"preset":"5_L"},"moves":[{"comments":["x"]},
            {"move":{"color":1,"piece":"GI","from":{"x":7,"y":1},"to":{"x":6,"y":2}},"forks":[[{"move":{"color":1,"piece":"FU","from":{"x":5,"y":3},"to":{"x":5,"y":4}}}]]},
            {"move":{"color":0,"piece":"KI","to":{"x":5,"y":8},"relative":"R"}},{"special":"KACHI"}]}"#
                .to_string(),
        );
        v.push(
            r#"{"header":{},"moves":[{},{"move":{"color":0,"piece":"FU","from":{"x":7,"y":7},"to":{"x":7,"y":6}}},
            {"move":{"color":1,"piece":"FU","from":{"x":3,"y":3},"to":{"x":3,"y":4}}},
            {"move":{"color":0,"piece":"KA","from":{"x":8,"y":8},"to":{"x":2,"y":2},"promote":true,"capture":"KA"}},
            {"move":{"color":1,"piece":"GI","from":{"x":3,"y":1},"same":true,"capture":"UM"}},
            {"move":{"color":0,"piece":"KA","to":{"x":4,"y":5},"relative":"H"}},{"special":"TORYO"}]}"#
                .to_string(),
        );
        v
    })
}

/// Snippets that keep a mutated JKF close to the format.
const JKF_SNIPPETS: [&str; 32] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "true",
    "false",
    "0",
    "1",
    "9",
    "10",
    "-1",
    "1e99",
    "\"x\"",
    "\"y\"",
    "\"FU\"",
    "\"OU\"",
    "\"RY\"",
    "\"from\"",
    "\"to\"",
    "\"same\"",
    "\"promote\"",
    "\"capture\"",
    "\"relative\"",
    "\"special\"",
    "\"OTHER\"",
    "\"H\"",
    "{}",
    "[]",
];

/// A valid JKF with text edits (snippets inserted or swapped in, ranges cut) or with a value
/// of its JSON tree replaced or removed, so that most cases get past the JSON syntax.
fn mutated_jkf() -> impl Strategy<Value = String> {
    let edit = || (any::<u32>(), any::<u32>(), any::<bool>());
    let values = prop::collection::vec(edit(), 0..6);
    // Text edits in a third of the cases: most stay valid JSON and reach the reader proper.
    let texts =
        prop::bool::weighted(0.3).prop_flat_map(move |on| prop::collection::vec(edit(), 0..if on { 4 } else { 1 }));
    (any::<prop::sample::Index>(), values, texts).prop_map(|(pick, values, texts)| {
        let seeds = jkf_seeds();
        let seed = &seeds[pick.index(seeds.len())];
        let mut tree: serde_json::Value = serde_json::from_str(seed).expect("seeds are valid JSON");
        for (a, b, remove) in values {
            replace_value(&mut tree, a as usize, b, remove && b % 4 == 0);
        }
        let mut t: Vec<char> = tree.to_string().chars().collect();
        for (a, b, insert) in texts {
            let at = a as usize % (t.len() + 1);
            if insert {
                let snippet = JKF_SNIPPETS[b as usize % JKF_SNIPPETS.len()];
                t.splice(at..at, snippet.chars()).for_each(drop);
            } else {
                t.truncate(at.max(t.len().saturating_sub((b % 40) as usize)));
            }
        }
        t.into_iter().collect()
    })
}

/// Replaces (or removes, for an object member) the `n`-th value of the tree in document
/// order with one made from `seed`.
fn replace_value(tree: &mut serde_json::Value, n: usize, seed: u32, remove: bool) {
    use serde_json::{Value, json};
    fn count(v: &Value) -> usize {
        1 + match v {
            Value::Array(a) => a.iter().map(count).sum(),
            Value::Object(o) => o.values().map(count).sum(),
            _ => 0,
        }
    }
    fn nth(v: &mut Value, n: &mut usize, new: &Value, remove: bool) -> bool {
        if *n == 0 {
            *v = new.clone();
            return true;
        }
        *n -= 1;
        match v {
            Value::Array(a) => a.iter_mut().any(|c| nth(c, n, new, remove)),
            Value::Object(o) => {
                let keys: Vec<String> = o.keys().cloned().collect();
                for k in keys {
                    if *n == 0 && remove {
                        o.remove(&k);
                        return true;
                    }
                    if nth(o.get_mut(&k).expect("key"), n, new, remove) {
                        return true;
                    }
                }
                false
            }
            _ => false,
        }
    }
    let choices = [
        Value::Null,
        json!(true),
        json!(0),
        json!(1),
        json!(9),
        json!(10),
        json!(-1),
        json!(u64::MAX),
        json!(1.5),
        json!("FU"),
        json!("OU"),
        json!("NY"),
        json!("OTHER"),
        json!("10"),
        json!("HLCRUMD"),
        json!({}),
        json!([]),
        json!({"x": 5, "y": 5}),
        json!({"color": 0, "kind": "OU"}),
        json!([[{}]]),
    ];
    let new = &choices[seed as usize % choices.len()];
    let mut n = n % count(tree);
    nth(tree, &mut n, new, remove);
}

/// A record damaged line by line: lines dropped, repeated or swapped, and bytes changed.
fn damaged_record() -> impl Strategy<Value = Vec<u8>> {
    (any::<prop::sample::Index>(), prop::collection::vec((any::<u16>(), any::<u16>(), 0..5u8, any::<u8>()), 0..8))
        .prop_map(|(pick, edits)| {
            let recs = records();
            let (_, bytes) = &recs[pick.index(recs.len())];
            let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
            for (a, b, op, byte) in edits {
                let n = lines.len();
                let (i, j) = (a as usize % n, b as usize % n);
                match op {
                    0 if n > 1 => {
                        lines.remove(i);
                    }
                    1 => {
                        let l = lines[i].clone();
                        lines.insert(j, l);
                    }
                    2 => lines.swap(i, j),
                    3 => {
                        let keep = b as usize % (lines[i].len() + 1);
                        lines[i].truncate(keep);
                    }
                    _ => {
                        let l = &mut lines[i];
                        if !l.is_empty() {
                            let k = b as usize % l.len();
                            l[k] = byte;
                        }
                    }
                }
            }
            lines.join(&b'\n')
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// KIF, KI2, CSA, USI and SFEN-list records, damaged: every parser answers with a game, a
    /// list or a typed error, whatever the format it is forced to read them as.
    #[test]
    fn damaged_game_records_never_panic(bytes in damaged_record()) {
        let _cpu = crate::common::shared();
        use hayate::records::{self as formats, Format};
        let Ok(text) = formats::decode(&bytes) else { return Ok(()) };
        let formats = [None, Some(Format::Kif), Some(Format::Ki2), Some(Format::Csa), Some(Format::Jkf), Some(Format::Usi), Some(Format::Sfen)];
        for format in formats {
            check_parsed(&text, format)?;
        }
    }

    /// JKF: mutated valid records and arbitrary text give a game or a typed error, as JKF
    /// and as whatever the detection makes of them.
    #[test]
    fn mutated_jkf_never_panics(text in mutated_jkf()) {
        let _cpu = crate::common::shared();
        use hayate::records::Format;
        check_parsed(&text, Some(Format::Jkf))?;
        check_parsed(&text, None)?;
    }

    #[test]
    fn random_text_as_jkf_never_panics(text in any::<String>()) {
        let _cpu = crate::common::shared();
        use hayate::records::Format;
        check_parsed(&text, Some(Format::Jkf))?;
        check_parsed(&format!("{{{text}"), None)?;
    }
}

/// Parses `text` as `format` (or the detected one): a game has only legal moves, a list only
/// consistent positions, and an error's message is one line.
fn check_parsed(text: &str, format: Option<hayate::records::Format>) -> Result<(), TestCaseError> {
    use hayate::records::{self as formats, Input};
    match formats::parse(text, format) {
        Ok((_, Input::Game(g))) => {
            let mut p = g.start.clone();
            for &m in &g.moves {
                prop_assert!(p.is_legal(m));
                p.do_move(m);
            }
            let _ = g.endings(hayate::shogi::EnteringKingRule::DEFAULT);
        }
        Ok((_, Input::Positions(lines))) => prop_assert!(lines.iter().all(|g| g.final_position().is_consistent())),
        Err(e) => prop_assert!(!e.to_string().contains('\n'), "{}", e),
    }
    Ok(())
}
