//! The linear evaluation's weights (`crate::eval`), learnt from games: self-play records
//! (`selfplay`, `hayate selfplay`), the positions of played games (`samples_from_csa_files`),
//! logistic-regression fitting (`train`, `hayate tune`), and the hand-made starting weights.
//!
//! The compiled-in weights are fitted, from the hand-made ones below, to the results of
//! hayate's games against Fairy-Stockfish kept in `data/games-vs-fsf/`:
//! `hayate tune --from-scratch --games data/games-vs-fsf/*.csa`, then rebuild (README,
//! "Evaluation"; `tests/weights.rs` checks that this reproduces `src/eval/weights.rs`).
//! Self-play records (`hayate selfplay`, then `hayate tune --data`) are the other source.

pub mod selfplay;
pub mod train;

use super::recorded::{outcome, player_named};
use crate::eval::features::{self, NUM_FEATURES, REL};
use crate::eval::{HAND_VALUE, PIECE_VALUE};
use crate::records::{Game, csa};
use crate::shogi::PieceType;

/// Training samples from a file of CSA game records (several games separated by `/` lines,
/// as `usi-scripts/match.py` writes them); games without a result are skipped. Each game's
/// samples carry its opening group (`opening_group`), and the search scores recorded by the
/// player whose name starts with `scorer` (see `train::game_samples`). Returns the samples and
/// the number of games used.
pub fn samples_from_csa(text: &str, skip_plies: usize, scorer: &str) -> Result<(Vec<train::Sample>, usize), String> {
    let mut samples = Vec::new();
    let mut used = 0;
    for (index, game) in csa::parse_all(text).into_iter().enumerate() {
        let game = game.map_err(|e| format!("game {}: {e}", index + 1))?;
        if let Some(winner) = outcome(&game) {
            let scorer_side = player_named(&game, scorer);
            samples.extend(train::game_samples(&game, winner, skip_plies, opening_group(&game), scorer_side));
            used += 1;
        }
    }
    Ok((samples, used))
}

/// Plies that make a game's opening for the held-out split.
pub const OPENING_GROUP_PLIES: usize = 16;

/// The group a recorded game is held out with: the key of its position after
/// `OPENING_GROUP_PLIES` plies (or at its end, if shorter). Matches replay the same opening
/// lines with both colours and engine versions, so their games are often alike move for move
/// long after the book; holding out single games would let the training set see the
/// validation games' twins. Games through the same opening position are held out together.
pub fn opening_group(game: &Game) -> u64 {
    let mut pos = game.start.clone();
    for &m in game.moves.iter().take(OPENING_GROUP_PLIES) {
        pos.do_move(m);
    }
    pos.key()
}

/// Samples of the CSA files `paths`, in that order. `log` gets a line per file.
pub fn samples_from_csa_files<P: AsRef<std::path::Path>>(
    paths: &[P],
    skip_plies: usize,
    scorer: &str,
    mut log: impl FnMut(&str),
) -> Result<Vec<train::Sample>, String> {
    let mut samples = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let text = crate::records::decode(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let (s, games) = samples_from_csa(&text, skip_plies, scorer).map_err(|e| format!("{}: {e}", path.display()))?;
        log(&format!("{}: {games} games, {} positions", path.display(), s.len()));
        samples.extend(s);
    }
    Ok(samples)
}

/// Hand-made weights the tuner starts from: material, diminishing returns for many pieces in
/// hand, pieces near the enemy king attack, golds and silvers near their own king defend, a
/// king that leaves its camp is exposed, attack units hurt more than linearly and more when the
/// attacker holds pieces.
pub fn initial_weights() -> Vec<f64> {
    let mut w = vec![0.0; NUM_FEATURES];
    for pt in PieceType::ALL {
        w[features::MATERIAL_BASE + pt.index()] = PIECE_VALUE[pt.index()] as f64;
    }
    for pt in PieceType::HAND {
        let v = HAND_VALUE[pt.index()] as f64;
        for n in 1..features::HAND_COUNTS {
            let n = n as f64;
            let dim = if n > 2.0 { v * (n - 2.0) / 8.0 } else { 0.0 };
            w[features::HAND_BASE + pt.index() * features::HAND_COUNTS + n as usize] = v * n - dim;
        }
    }
    const ATTACK_NEAR: [f64; 9] = [0.0, 78.0, 51.0, 21.0, 6.0, 0.0, 0.0, 0.0, 0.0];
    const DEFEND_NEAR: [f64; 9] = [0.0, 38.0, 22.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    const ATTACK_WEIGHT: [f64; 15] = [0.0, 45., 60., 70., 90., 55., 55., 100., 0., 100., 100., 100., 100., 80., 90.];
    for pt in PieceType::ALL {
        if pt == PieceType::King {
            continue;
        }
        let defender = features::is_defender(pt);
        for rel in 0..REL {
            let df = (rel / 17) as i32 - 8;
            let dr = (rel % 17) as i32 - 8;
            let d = df.abs().max(dr.abs()) as usize;
            w[features::KP_ENEMY_BASE + pt.index() * REL + rel] = ATTACK_NEAR[d] * ATTACK_WEIGHT[pt.index()] / 100.0;
            if defender {
                w[features::KP_OWN_BASE + pt.index() * REL + rel] = DEFEND_NEAR[d];
            }
        }
    }
    for sq in 0..81 {
        let rank = (sq % 9) as f64; // in the owner's view: 0 = far side, 8 = own back rank
        w[features::KING_SQ_BASE + sq] = -(6.0 - rank).max(0.0) * 12.0;
    }
    // Attack units hurt more than linearly: one attacker is a nuisance, several together
    // with pieces in hand to drop are a mating attack.
    for units in 0..features::ATTACK_UNITS {
        for hand in 0..features::ATTACK_HAND {
            let (u, h) = (units as f64, hand as f64);
            w[features::KING_ATTACK_BASE + units * features::ATTACK_HAND + hand] =
                -(u * (6.0 + 4.0 * h) + u * u * (0.5 + 0.5 * h));
        }
    }
    for n in 0..9 {
        w[features::ESCAPE_BASE + n] = 6.0 * n as f64;
        for hand in 0..features::ATTACK_HAND {
            w[features::ATTACKED_BASE + n * features::ATTACK_HAND + hand] = -(n as f64) * (4.0 + 3.0 * hand as f64);
        }
    }
    w[features::OPEN_FILE_BASE] = -10.0;
    w[features::OPEN_FILE_BASE + 1] = -30.0;
    w[features::TEMPO_INDEX] = 20.0;
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::recorded::SCORER;

    #[test]
    fn training_on_a_tiny_self_play_set_lowers_the_loss() {
        let opts = selfplay::SelfPlayOptions {
            games: 4,
            nodes: 300,
            threads: 1,
            seed: 7,
            random_plies: 8,
            max_plies: 80,
            min_record_ply: 4,
            hash_mib: 4,
        };
        let mut buf: Vec<u8> = Vec::new();
        let (_, positions) = selfplay::run(&opts, &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(text.lines().count() as u64, positions);
        assert!(positions > 20, "only {positions} positions");
        let samples: Vec<train::Sample> = text.lines().map(|l| train::parse_record(l).unwrap()).collect();
        let init = initial_weights();
        let o =
            train::TrainOptions { epochs: 20, batch: 16, holdout_every: 0, learning_rate: 2.0, ..Default::default() };
        let report = train::train(&samples, &init, &o, |_| {});
        let first = report.history.first().unwrap().train;
        let last = report.history.last().unwrap().train;
        assert!(last < first, "loss did not fall: {first} -> {last}");
        let (lambda, scale) = (o.lambda, report.scale);
        assert!(train::loss(&report.weights, &samples, lambda, scale) < train::loss(&init, &samples, lambda, scale));
    }

    #[test]
    fn recorded_games_train_towards_their_results() {
        // Three games as match.py writes them: Black resigns after 2 moves; an interrupted game
        // (no result, skipped); a mate (the side to move at the end, White, is mated).
        let text = "V2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n/\nPI\n+\n+2726FU\n%CHUDAN\n/\n\
                    P-51OU\nP+19OU53GI00KI\nP-00AL\n+\n+0052KI\n%TSUMI\n";
        let (samples, games) = samples_from_csa(text, 0, SCORER).unwrap();
        assert_eq!(games, 2);
        let groups: Vec<u64> = csa::parse_all(text).into_iter().map(|g| opening_group(&g.unwrap())).collect();
        assert_ne!(groups[0], groups[2]);
        // Game 1: Black to move at ply 0 lost, White to move at ply 1 won. Game 3: Black to move
        // won (the mated position itself is in check and left out).
        let got: Vec<(u64, i8, f32, Option<f32>)> =
            samples.iter().map(|s| (s.group, s.stm_sign, s.result, s.score)).collect();
        assert_eq!(got, [(groups[0], 1, 0.0, None), (groups[0], -1, 1.0, None), (groups[2], 1, 1.0, None)]);
        // Skipping opening plies drops game 1's first position.
        assert_eq!(samples_from_csa(text, 1, SCORER).unwrap().0.len(), 1);
        // A broken record is an error that names the game.
        let err = samples_from_csa("PI\n+\n+7776FU\n/\nPI\n+\n+7775FU\n", 0, SCORER).unwrap_err();
        assert!(err.starts_with("game 2:"), "{err}");
        // Result-only samples pull the evaluation towards the result whatever lambda is.
        let init = initial_weights();
        let o =
            train::TrainOptions { epochs: 30, batch: 1, holdout_every: 0, scale: Some(400.0), ..Default::default() };
        let report = train::train(&samples, &init, &o, |_| {});
        assert!(report.history.last().unwrap().train < report.history[0].train);
    }

    #[test]
    fn recorded_games_keep_the_named_players_scores() {
        // match.py (cshogi) writes each engine's score, Black's view, before the move it played.
        let text = "N+other\nN-hayate 0.1.0\nPI\n+\n'** 40 +7776FU\n+7776FU\nT1\n'** -120 -3334FU +2726FU\n\
                    -3334FU\n'** 35\n+2726FU\n'** -100000 -8384FU\n-8384FU\n%TORYO\n";
        let game = csa::parse(text).unwrap();
        assert_eq!(game.scores, [Some(40), Some(-120), Some(35), Some(-100000)]);
        // White (hayate) is to move at plies 1 and 3: its scores, in its own view; Black's are
        // not used. Mate scores are clamped.
        let (samples, _) = samples_from_csa(text, 0, SCORER).unwrap();
        let scores: Vec<Option<f32>> = samples.iter().map(|s| s.score).collect();
        let clamp = train::MAX_RECORDED_SCORE as f32;
        assert_eq!(scores, [None, Some(120.0), None, Some(clamp)]);
        let (samples, _) = samples_from_csa(text, 0, "other").unwrap();
        let scores: Vec<Option<f32>> = samples.iter().map(|s| s.score).collect();
        assert_eq!(scores, [Some(40.0), None, Some(35.0), None]);
        assert!(samples_from_csa(text, 0, "").unwrap().0.iter().all(|s| s.score.is_none()));
    }

    #[test]
    fn games_through_the_same_opening_are_held_out_together() {
        // The same 16 plies, then different moves (and colours' results): one group. A game
        // that differs inside the first 16 plies: another group.
        let line = "+7776FU\n-3334FU\n+2726FU\n-8384FU\n+2625FU\n-8485FU\n+6978KI\n-4132KI\n\
                    +2524FU\n-2324FU\n+2824HI\n-0023FU\n+2426HI\n-7172GI\n+3938GI\n-6152KI\n";
        let game = |tail: &str| csa::parse(&format!("PI\n+\n{line}{tail}%TORYO\n")).unwrap();
        let a = game("+5968OU\n");
        let b = game("+1716FU\n-1314FU\n");
        let other = csa::parse("PI\n+\n+2726FU\n-3334FU\n%TORYO\n").unwrap();
        assert_eq!(opening_group(&a), opening_group(&b));
        assert_ne!(opening_group(&a), opening_group(&other));
    }

    #[test]
    fn quiet_positions_have_no_winning_capture() {
        let after = |moves: &[&str]| {
            let mut p = crate::shogi::Position::startpos();
            for m in moves {
                let mv = p.parse_usi_move(m).unwrap();
                p.do_move(mv);
            }
            p
        };
        assert!(train::is_quiet(&after(&[])));
        // The bishops face each other, but their exchange wins nothing.
        assert!(train::is_quiet(&after(&["7g7f", "3c3d"])));
        // A horse that the silver can take for free.
        assert!(!train::is_quiet(&after(&["7g7f", "3c3d", "8h2b+"])));
        // In check.
        assert!(!train::is_quiet(&after(&["7g7f", "3c3d", "8h2b+", "3a2b", "B*4b"])));
    }

    #[test]
    fn weights_source_round_trips_length() {
        let w = train::quantise(&initial_weights());
        let src = train::weights_source(&w);
        let count = src
            .lines()
            .skip(2)
            .map(|l| l.split(',').filter(|x| !x.trim().is_empty() && x.trim() != "]").count())
            .sum::<usize>();
        assert_eq!(count, NUM_FEATURES);
    }
}
