//! Self-play data generation: games of the engine against itself at a small node budget,
//! recorded as training positions with the search score and the game result.
//!
//! Record format, one position per line, tab-separated:
//! `game  ply  sfen  score  result` with `score` the search score (centipawns, side to move)
//! and `result` 1 / 0.5 / 0 for a win / draw / loss of the side to move.

use crate::engine::{Engine, EngineOptions, options::RESIGN_VALUE};
use crate::learn::game::{self, GameSettings, is_quiet};
use crate::learn::rng::Rng;
use crate::search::Limits;
use crate::shogi::{Color, Position};
use parking_lot::Mutex;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone, Debug)]
pub struct SelfPlayOptions {
    pub games: u64,
    pub nodes: u64,
    pub threads: usize,
    pub seed: u64,
    /// Plies at the start chosen at random among near-best moves, for variety.
    pub random_plies: u32,
    pub max_plies: u32,
    /// Positions before this ply are not recorded (openings are not what the tuner should fit).
    pub min_record_ply: u32,
    /// Table size of each game's engine (MiB).
    pub hash_mib: usize,
}

impl Default for SelfPlayOptions {
    fn default() -> Self {
        SelfPlayOptions {
            games: 100,
            nodes: 5000,
            threads: 1,
            seed: 1,
            random_plies: 12,
            max_plies: 320,
            min_record_ply: 12,
            hash_mib: 16,
        }
    }
}

struct Record {
    ply: u32,
    sfen: String,
    score: i32,
    side: Color,
}

/// Random moves are chosen among those within this of the best (centipawns).
const RANDOM_MARGIN: i32 = 60;
/// A search score beyond this ends the game: a win for the side ahead.
const ADJUDICATE: i32 = 3000;
/// Positions whose score is beyond this are not recorded.
const SCORE_CAP: i32 = 2500;

/// Plays one game from the start position; returns the records and the winner (None = draw).
fn play_game(opts: &SelfPlayOptions, rng: &mut Rng, engine: &mut Engine) -> (Vec<Record>, Option<Color>) {
    let start = Position::startpos();
    let settings = GameSettings {
        random_plies: opts.random_plies,
        random_margin: RANDOM_MARGIN,
        random_limits: Limits { nodes: Some(opts.nodes / 2), ..Default::default() },
        limits: Limits { nodes: Some(opts.nodes), ..Default::default() },
        nodes_jitter: 0,
        adjudicate: ADJUDICATE,
        max_game_ply: start.game_ply() + opts.max_plies,
    };
    let mut records = Vec::new();
    let winner = game::play_game(engine, start, &settings, rng, |t| {
        let quiet = is_quiet(t.pos, t.mv) && t.score.abs() < SCORE_CAP;
        if !t.random && t.played >= opts.min_record_ply && quiet {
            records.push(Record { ply: t.played, sfen: t.pos.to_sfen(), score: t.score, side: t.pos.side_to_move() });
        }
    });
    (records, winner)
}

/// Plays `opts.games` games on `opts.threads` threads and writes the records to `out`.
/// Returns (games, positions).
pub fn run(opts: &SelfPlayOptions, out: &mut (dyn Write + Send)) -> std::io::Result<(u64, u64)> {
    let next_game = AtomicU64::new(0);
    let positions = AtomicU64::new(0);
    let out = Mutex::new(out);
    let error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for t in 0..opts.threads.max(1) {
            let (next_game, positions, out, error) = (&next_game, &positions, &out, &error);
            s.spawn(move || {
                let options = EngineOptions {
                    hash_mib: opts.hash_mib,
                    // Self-play wants every game played out (clear results are adjudicated).
                    resign_value: RESIGN_VALUE.range().1 as i32,
                    // The linear evaluation learns from its own games.
                    built_in_network: false,
                    ..EngineOptions::default()
                };
                let mut engine = Engine::with_options(options);
                engine.prepare_and_wait();
                loop {
                    let g = next_game.fetch_add(1, Ordering::Relaxed);
                    if g >= opts.games || error.lock().is_some() {
                        break;
                    }
                    let mut rng = Rng(opts.seed ^ (g.wrapping_mul(0x9e37_79b9) + t as u64));
                    let (records, winner) = play_game(opts, &mut rng, &mut engine);
                    let mut text = String::new();
                    for r in &records {
                        let result = match winner {
                            None => 0.5,
                            Some(w) if w == r.side => 1.0,
                            Some(_) => 0.0,
                        };
                        text.push_str(&format!("{g}\t{}\t{}\t{}\t{result}\n", r.ply, r.sfen, r.score));
                    }
                    positions.fetch_add(records.len() as u64, Ordering::Relaxed);
                    let mut w = out.lock();
                    if let Err(e) = w.write_all(text.as_bytes()) {
                        *error.lock() = Some(e);
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner() {
        return Err(e);
    }
    out.into_inner().flush()?;
    Ok((opts.games, positions.load(Ordering::Relaxed)))
}
