//! `hayate gensfen`: its records read back by an independent decoder (cshogi, through
//! usi-scripts/psv_dump.py) as the positions hayate decodes and played, with legal moves;
//! which positions are kept; runs that continue a file give the games a single run gives.

use hayate::learn::nnue::gensfen::{MIN_OPENING_PLIES, SCORE_CAP};
use hayate::records::packed_sfen::{PackedSfenValue, RECORD_BYTES, move_from_psv};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hayate-gensfen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn gensfen(out: &Path, games: u64, threads: usize) {
    let status = Command::new(env!("CARGO_BIN_EXE_hayate"))
        .args(["gensfen", "--nodes", "300", "--seed", "5", "--quiet"])
        .args(["--games", &games.to_string(), "--threads", &threads.to_string()])
        .arg("--out")
        .arg(out)
        .status()
        .unwrap();
    assert!(status.success());
}

fn records(path: &Path) -> Vec<PackedSfenValue> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.len() % RECORD_BYTES, 0);
    bytes.chunks_exact(RECORD_BYTES).map(|c| PackedSfenValue::from_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn records_are_the_positions_played_and_cshogi_reads_them_alike() {
    let _cpu = crate::common::shared();
    let out = temp("three.psv");
    gensfen(&out, 3, 2);
    let recs = records(&out);
    assert!(recs.len() > 30, "{} records", recs.len());
    // Decoded by hayate: legal moves, the kept positions' properties.
    let mut ours = Vec::new();
    for r in &recs {
        let pos = r.position().expect("a valid position");
        let mv = move_from_psv(r.mv).expect("a move");
        assert!(pos.is_legal(mv), "{} {mv}", pos.to_sfen());
        assert!(!pos.in_check() && !mv.is_promotion() && (mv.is_drop() || pos.piece_on(mv.to()).is_empty()));
        assert!((r.score as i32).abs() <= SCORE_CAP && [-1, 0, 1].contains(&r.result));
        assert!(r.game_ply as usize > MIN_OPENING_PLIES);
        let sfen: Vec<String> = pos.to_sfen().split(' ').take(3).map(String::from).collect();
        ours.push((sfen.join(" "), mv.to_string(), pos, mv));
    }
    // The positions a game played: a record followed by one of the next ply is the position
    // after its move (results of one game alternate in sign).
    let mut chained = 0;
    for (i, w) in recs.windows(2).enumerate() {
        if w[1].game_ply == w[0].game_ply + 1 {
            let mut after = ours[i].2.clone();
            after.do_move(ours[i].3);
            assert_eq!(after.key(), ours[i + 1].2.key());
            assert_eq!(w[0].result, -w[1].result);
            chained += 1;
        }
    }
    assert!(chained > recs.len() / 2, "{chained} of {}", recs.len());
    // Decoded by cshogi.
    let dump = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/usi-scripts/psv_dump.py"))
        .arg(&out)
        .output()
        .expect("python3 with cshogi (pip install cshogi)");
    assert!(dump.status.success(), "{}", String::from_utf8_lossy(&dump.stderr));
    let text = String::from_utf8(dump.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last().copied(), Some(format!("records: {}, illegal moves: 0", recs.len()).as_str()));
    for (line, (sfen, mv, _, _)) in lines.iter().zip(&ours) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!((f[0], f[1], f[5]), (sfen.as_str(), mv.as_str(), "1"), "{line}");
    }
}

#[test]
fn a_continued_run_gives_the_games_of_a_single_run() {
    let _cpu = crate::common::shared();
    let once = temp("once.psv");
    gensfen(&once, 4, 1);
    let twice = temp("twice.psv");
    gensfen(&twice, 2, 2);
    gensfen(&twice, 4, 2);
    assert_eq!(std::fs::read_to_string(format!("{}.progress", twice.display())).unwrap().split(' ').next(), Some("4"));
    let count = |recs: Vec<PackedSfenValue>| {
        let mut m: HashMap<[u8; RECORD_BYTES], usize> = HashMap::new();
        for r in recs {
            *m.entry(r.to_bytes()).or_default() += 1;
        }
        m
    };
    // Game g depends on the seed and g alone, so the files hold the same records.
    assert_eq!(count(records(&once)), count(records(&twice)));
}

/// Games files: every searched move and score of each game, read back as the records a
/// direct run writes; a run stopped inside a batch and continued holds exactly the games of a
/// single run; damage is an error.
#[test]
fn a_games_file_keeps_whole_games_and_gives_the_same_records() {
    use hayate::learn::game_store;
    let _cpu = crate::common::shared();
    let psv = temp("direct.psv");
    gensfen(&psv, 5, 1);
    let games = temp("five.games");
    gensfen(&games, 5, 2);
    let file = game_store::read(&games).unwrap();
    assert_eq!(file.games.len(), 5);
    assert!(
        // The default teacher is the built-in network (its architecture, then its digest).
        file.settings.starts_with("seed 5 nodes 300 random_plies 4 max_ply 320 teacher halfkp_256x2-32-32-"),
        "{}",
        file.settings
    );
    // Every searched move is there with its score; the kept ones are the direct run's records.
    let converted = temp("converted.psv");
    let status = Command::new(env!("CARGO_BIN_EXE_hayate"))
        .args(["gensfen", "--from-games"])
        .arg(&games)
        .arg("--out")
        .arg(&converted)
        .status()
        .unwrap();
    assert!(status.success());
    let sorted = |mut v: Vec<PackedSfenValue>| {
        v.sort_by_key(|r| r.to_bytes());
        v
    };
    let direct = records(&psv);
    assert!(direct.len() > 50);
    assert_eq!(sorted(records(&converted)), sorted(direct.clone()));
    let searched: usize = file.games.iter().map(|g| g.moves.len()).sum();
    assert!(searched > direct.len(), "{searched} searched, {} kept", direct.len());
    // Read independently (usi-scripts/games_dump.py: Python's gzip, cshogi's moves): the same
    // games, every move legal, and every kept record one of its searched positions.
    let dump = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/usi-scripts/games_dump.py"))
        .arg(&games)
        .output()
        .expect("python3 with cshogi (pip install cshogi)");
    assert!(dump.status.success(), "{}", String::from_utf8_lossy(&dump.stderr));
    let text = String::from_utf8(dump.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], file.settings);
    assert_eq!(*lines.last().unwrap(), format!("games: 5, searched positions: {searched}, illegal moves: 0"));
    let dumped: std::collections::HashSet<(String, String, i16, i8)> = lines[1..lines.len() - 1]
        .iter()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[4] == "0")
        .map(|f| (f[1].to_string(), f[2].to_string(), f[3].parse().unwrap(), f[5].parse().unwrap()))
        .collect();
    for r in &direct {
        let sfen = r.position().unwrap().to_sfen();
        let sfen = sfen.split(' ').take(3).collect::<Vec<_>>().join(" ");
        let mv = move_from_psv(r.mv).unwrap().to_string();
        assert!(dumped.contains(&(sfen.clone(), mv.clone(), r.score, r.result)), "{sfen} {mv} {}", r.score);
    }
    // Training on the first 3 games of the run (written by 2 threads, in any order) reads what a
    // run of 3 games on one thread holds.
    let three = temp("three.games");
    gensfen(&three, 3, 1);
    use hayate::learn::nnue::data::{self, Base, Dataset};
    let samples = |d: &Dataset| {
        let mut v: Vec<_> = (0..d.len()).map(|i| (d.features(i).to_vec(), d.score(i), d.result(i))).collect();
        v.sort();
        v
    };
    let (limited, _, _) =
        data::load_with(&[&games], 0.0, 1, Base::None, data::Selection { max_games: Some(3), ..Default::default() })
            .unwrap();
    let (reference, _, _) = data::load(&[&three], 0.0, 1, Base::None).unwrap();
    let (all, _, _) = data::load(&[&games], 0.0, 1, Base::None).unwrap();
    assert!(limited.len() > 20 && limited.len() < all.len(), "{} of {}", limited.len(), all.len());
    assert_eq!(samples(&limited), samples(&reference));
    // Stopped inside its last batch: the next run plays exactly the games that are missing.
    let bytes = std::fs::read(&games).unwrap();
    let cut = temp("cut.games");
    std::fs::write(&cut, &bytes[..bytes.len() - 7]).unwrap();
    assert!(game_store::read(&cut).is_err());
    gensfen(&cut, 5, 1);
    let mut again = game_store::read(&cut).unwrap().games;
    again.sort_by_key(|g| g.index);
    let mut want = file.games.clone();
    want.sort_by_key(|g| g.index);
    assert_eq!(again, want);
    // A file of other settings is not continued.
    let status = Command::new(env!("CARGO_BIN_EXE_hayate"))
        .args(["gensfen", "--nodes", "301", "--seed", "5", "--quiet", "--games", "6", "--out"])
        .arg(&cut)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert!(!status.status.success());
    assert!(
        String::from_utf8_lossy(&status.stderr).contains("nodes 300"),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
}

/// Two records written by cshogi (tests/data/scripts/two.psv: the start position with 7g7f,
/// then 3c3d): hayate packs the same positions to the same bytes and reads the same moves.
#[test]
fn packing_matches_cshogi_bit_for_bit() {
    let _cpu = crate::common::shared();
    let recs = records(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scripts/two.psv")));
    let mut pos = hayate::shogi::Position::startpos();
    for (r, usi) in recs.iter().zip(["7g7f", "3c3d"]) {
        assert_eq!(hayate::records::packed_sfen::pack(&pos).unwrap(), r.sfen);
        let mv = move_from_psv(r.mv).unwrap();
        assert_eq!(mv.to_string(), usi);
        pos.do_move(mv);
    }
}
