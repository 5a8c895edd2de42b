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
        exercise(&line)?;
    }

    #[test]
    fn random_ascii_usi_lines_never_panic(line in "[ -~]{0,120}") {
        exercise(&line)?;
    }

    #[test]
    fn mutated_usi_lines_never_panic(line in mutated(USI_LINES)) {
        exercise(&line)?;
    }

    #[test]
    fn random_sfens_never_panic(s in any::<String>()) {
        if let Ok(p) = Position::from_sfen(&s) {
            check_position(&p)?;
        }
    }

    #[test]
    fn shaped_sfens_never_panic(s in "([1-9plnsgbrkPLNSGBRK+]{1,11}/){8}[1-9plnsgbrkPLNSGBRK+]{1,11} [bw] [-0-9plnsgbrPLNSGBR]{1,8}( [0-9]{1,7})?") {
        if let Ok(p) = Position::from_sfen(&s) {
            check_position(&p)?;
        }
    }

    /// Random boards with two kings: most are valid, so the checks of accepted positions
    /// run over positions no game would reach.
    #[test]
    fn random_boards(sfen in random_board()) {
        if let Ok(p) = Position::from_sfen(&sfen) {
            check_position(&p)?;
        }
    }

    #[test]
    fn mutated_sfens_never_panic(s in mutated(SFENS)) {
        if let Ok(p) = Position::from_sfen(&s) {
            check_position(&p)?;
        }
    }

    #[test]
    fn option_values_never_panic(i in 0..OPTIONS.len() + 1, value in proptest::option::of(any::<String>())) {
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

/// The sample records of every format `hayate analyze` reads.
fn records() -> &'static [(String, Vec<u8>)] {
    static RECORDS: std::sync::OnceLock<Vec<(String, Vec<u8>)>> = std::sync::OnceLock::new();
    RECORDS.get_or_init(|| {
        let dir = format!("{}/tests/data/analyze", env!("CARGO_MANIFEST_DIR"));
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| e.ok())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
            .collect();
        v.sort();
        v
    })
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
        use hayate::records::{self as formats, Format, Input};
        let Ok(text) = formats::decode(&bytes) else { return Ok(()) };
        for format in [None, Some(Format::Kif), Some(Format::Ki2), Some(Format::Csa), Some(Format::Usi), Some(Format::Sfen)] {
            if let Ok((_, input)) = formats::parse(&text, format) {
                match input {
                    Input::Game(g) => {
                        let mut p = g.start.clone();
                        for &m in &g.moves {
                            prop_assert!(p.is_legal(m));
                            p.do_move(m);
                        }
                    }
                    Input::Positions(lines) => prop_assert!(lines.iter().all(|g| g.final_position().is_consistent())),
                }
            }
        }
    }
}
