//! Learning the evaluation from the engine's own games: self-play data generation
//! (`selfplay`), logistic-regression fitting (`train`), and the hand-made starting weights.
//!
//! The compiled-in weights are the hand-made ones below (`hayate tune --init-only --out
//! src/eval/weights.rs`, then rebuild); a tuned set comes from
//! `hayate selfplay --games 8000 --nodes 4000 --out games.tsv` then
//! `hayate tune --data games.tsv --out src/eval/weights.rs` (README, "Evaluation").

pub mod selfplay;
pub mod train;

use crate::eval::features::{self, NUM_FEATURES, REL};
use crate::eval::{HAND_VALUE, PIECE_VALUE};
use crate::shogi::PieceType;

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
        let report = train::train(&samples, &init, &o, |_, _, _| {});
        let first = report.history.first().unwrap().1;
        let last = report.history.last().unwrap().1;
        assert!(last < first, "loss did not fall: {first} -> {last}");
        let (lambda, scale) = (o.lambda, report.scale);
        assert!(train::loss(&report.weights, &samples, lambda, scale) < train::loss(&init, &samples, lambda, scale));
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
