//! The compiled-in evaluation weights are what the tuner makes of the games in the repository:
//! `hayate tune --from-scratch --games data/games-vs-fsf/*.csa` (README, "Evaluation").

use hayate::learn::linear::{self, train};
use hayate::learn::recorded::{SCORER, SKIP_PLIES};

#[test]
fn committed_weights_are_reproduced_from_the_committed_games() {
    let _cpu = crate::common::shared();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/games-vs-fsf");
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "csa"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "{} game files", paths.len());
    let samples = linear::samples_from_csa_files(&paths, SKIP_PLIES, SCORER, |_| {}).unwrap();
    assert!(samples.len() > 50_000, "{} positions", samples.len());
    let report = train::train(&samples, &linear::initial_weights(), &train::TrainOptions::default(), |_| {});
    // The compiled-in weights are `src/eval/weights.rs`, included.
    let trained: Vec<i32> = train::quantise(&report.weights).iter().map(|&w| w as i32).collect();
    let committed: Vec<i32> = hayate::eval::WEIGHTS.iter().map(|&w| w as i32).collect();
    assert_eq!(trained.len(), committed.len());
    // Bit-exact on the machine that wrote them; another libm may round an exp() differently,
    // which can move a few weights by a centipawn, never more.
    let off: Vec<(usize, i32, i32)> = trained
        .iter()
        .zip(&committed)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| (i, *a, *b))
        .collect();
    assert!(off.iter().all(|&(_, a, b)| (a - b).abs() <= 1) && off.len() <= trained.len() / 100, "{off:?}");
    // And the fit is better than the hand-made start on the held-out games.
    let first = report.history[0].valid_result;
    let best = report.history[report.best_epoch].valid_result;
    assert!(best < first - 0.01, "validation loss {first} -> {best}");
}
