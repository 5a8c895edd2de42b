//! Training data for NNUE networks: games of the engine against itself, each position scored
//! by a search, written as YaneuraOu's 40-byte `PackedSfenValue` records (see
//! `crate::records::packed_sfen`), the format of YaneuraOu's learner, nnue-pytorch's shogi
//! branch and cshogi.
//!
//! A game starts from a prefix of one of the balanced opening lines (`OPENINGS`, at least
//! `MIN_OPENING_PLIES` plies of it), then `random_plies` moves chosen at random among those the
//! search scores within `RANDOM_MARGIN` of the best; from there every move is the search's
//! best at `nodes` nodes (or `depth`). Everything is seeded: game `g` of seed `s` is the same
//! game on every run with the same engine.
//!
//! Which positions are kept (`keep`): after the random plies, not in check, the move played
//! neither a capture nor a promotion (a quiet position, whose static evaluation the score
//! should match), game ply below `max_ply`, and the score within `SCORE_CAP`. A game ends at
//! a repetition or other rule ending (the rules' `Referee`), at `max_ply` (a draw), when the
//! searching side resigns or declares, or when the score passes `ADJUDICATE` (a win for the
//! side ahead). The result is written from each position's side to move.
//!
//! Runs are resumable: `FILE.progress` holds the number of games finished and the bytes
//! written for them; a new run with the same file continues after them (cutting off a record
//! of a game the last run did not finish). With two threads or more a stopped run may have
//! finished a game after one it did not, so the continuation is not exactly the games of one
//! run; a games file (`FILE.games`, `crate::learn::game_store`) keeps whole games with their
//! numbers instead, and a run continues it with exactly the games it lacks.

use crate::engine::options::RESIGN_VALUE;
use crate::engine::{Engine, EngineOptions};
use crate::learn::game::{self, GameSettings, is_quiet};
use crate::learn::game_store::{GameStoreError, GameWriter, StoredGame};
use crate::learn::recorded::{outcome, player_named};
use crate::learn::rng::Rng;
use crate::records::packed_sfen::{PackedSfenValue, RECORD_BYTES, move_to_psv, pack};
use crate::search::Limits;
use crate::shogi::{Color, Move, Position};
use parking_lot::Mutex;
use std::io::{Seek, Write};
use std::sync::atomic::{AtomicU64, Ordering};

/// The balanced opening lines of the matches (`startpos moves ...`, 16-24 plies each).
pub const OPENINGS: &str = include_str!("../../../tests/data/openings_public.txt");
/// The shortest prefix of an opening line a game starts from.
pub const MIN_OPENING_PLIES: usize = 8;
/// Random moves are chosen among those within this of the best (centipawns).
pub const RANDOM_MARGIN: i32 = 100;
/// Positions whose score is beyond this are not kept (centipawns).
pub const SCORE_CAP: i32 = 3000;
/// A search score beyond this ends the game: a win for the side ahead.
pub const ADJUDICATE: i32 = 4000;

#[derive(Clone, Debug)]
pub struct GensfenOptions {
    pub games: u64,
    /// Nodes per move.
    pub nodes: u64,
    /// Depth per move instead of nodes, when set.
    pub depth: Option<i32>,
    pub threads: usize,
    pub seed: u64,
    pub random_plies: u32,
    /// Each move's nodes drawn from within this percentage of `nodes` (0: exactly `nodes`).
    pub nodes_jitter: u32,
    /// Positions from this game ply on are not kept, and a game that reaches it is drawn.
    pub max_ply: u32,
    /// The engine each game thread plays with (its evaluation, `EvalDir`, is the teacher).
    pub engine: EngineOptions,
    /// The teacher in words, for a games file's settings line (`linear`, or the network's
    /// architecture and digest, the built-in network's as well).
    pub teacher: String,
}

/// A position of a game, before its result is known.
struct Sample {
    packed: [u8; 32],
    score: i32,
    mv: Move,
    game_ply: u32,
    side: Color,
}

/// Whether a position enters the data (see the module doc).
pub fn keep(pos: &Position, mv: Move, score: i32, ply_after_random: bool, max_ply: u32) -> bool {
    ply_after_random && is_quiet(pos, mv) && pos.game_ply() < max_ply && score.abs() <= SCORE_CAP
}

/// The start of game `g`: a prefix of an opening line (the position, and the moves to it from
/// the start position).
fn opening(rng: &mut Rng) -> (Position, Vec<Move>) {
    let lines: Vec<&str> = OPENINGS.lines().filter(|l| l.starts_with("startpos")).collect();
    let line = lines[(rng.next_u64() % lines.len() as u64) as usize];
    let moves: Vec<&str> = line.split_whitespace().skip(2).collect();
    let take =
        MIN_OPENING_PLIES + (rng.next_u64() % (moves.len().saturating_sub(MIN_OPENING_PLIES) + 1) as u64) as usize;
    let mut pos = Position::startpos();
    let mut played = Vec::new();
    for m in moves.iter().take(take) {
        match pos.parse_usi_move(m) {
            Ok(mv) => {
                pos.do_move(mv);
                played.push(mv);
            }
            Err(_) => break, // the lines are checked by the tests; a bad one just ends early
        }
    }
    (pos, played)
}

/// Plays game number `index` whole: every searched move with its score, and the result.
fn play_game(opts: &GensfenOptions, rng: &mut Rng, engine: &mut Engine, index: u32) -> StoredGame {
    let (start, opening_moves) = opening(rng);
    let limits = match opts.depth {
        Some(d) => Limits { depth: Some(d), ..Default::default() },
        None => Limits { nodes: Some(opts.nodes), ..Default::default() },
    };
    let settings = GameSettings {
        random_plies: opts.random_plies,
        random_margin: RANDOM_MARGIN,
        random_limits: limits.clone(),
        limits,
        nodes_jitter: opts.nodes_jitter,
        adjudicate: ADJUDICATE,
        max_game_ply: opts.max_ply,
    };
    let (mut moves, mut random) = (Vec::new(), 0u8);
    let winner = game::play_game(engine, start, &settings, rng, |t| {
        moves.push((t.mv, t.score.clamp(i16::MIN as i32, i16::MAX as i32) as i16));
        random += t.random as u8;
    });
    StoredGame { index, start: String::new(), opening: opening_moves, moves, random, winner }
}

/// The training records of a game: its searched positions that `keep` accepts (positions
/// from game ply `max_ply` on are not), with the game's result. An illegal move (a damaged
/// file) is an error.
pub fn records_of(game: &StoredGame, max_ply: u32) -> Result<Vec<u8>, String> {
    let mut samples = Vec::new();
    game.replay(|pos, mv, score, random| {
        if keep(pos, mv, score as i32, !random, max_ply)
            && let Ok(packed) = pack(pos)
        {
            samples.push(Sample {
                packed,
                score: score as i32,
                mv,
                game_ply: pos.game_ply(),
                side: pos.side_to_move(),
            });
        }
    })?;
    Ok(records(&samples, game.winner))
}

/// The engine of one game thread: one search thread, every game played out (clear results are
/// adjudicated), the teacher network (`EvalDir`, checked by the caller) read.
fn game_engine(opts: &GensfenOptions) -> Engine {
    let options = EngineOptions { resign_value: RESIGN_VALUE.range().1 as i32, threads: 1, ..opts.engine.clone() };
    let mut engine = Engine::with_options(options);
    engine.prepare_and_wait();
    engine
}

/// The records of a finished game.
fn records(samples: &[Sample], winner: Option<Color>) -> Vec<u8> {
    let mut out = Vec::with_capacity(samples.len() * RECORD_BYTES);
    for s in samples {
        let result = match winner {
            None => 0,
            Some(w) if w == s.side => 1,
            Some(_) => -1,
        };
        let rec = PackedSfenValue {
            sfen: s.packed,
            score: s.score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            mv: move_to_psv(s.mv),
            game_ply: s.game_ply.min(u16::MAX as u32) as u16,
            result,
        };
        out.extend_from_slice(&rec.to_bytes());
    }
    out
}

/// What a run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GensfenReport {
    /// Games finished in the file (this run's and earlier runs').
    pub games: u64,
    /// Records in the file.
    pub records: u64,
    /// Games played by this run.
    pub played: u64,
}

/// Records of played games (CSA files such as `data/games-vs-fsf/*.csa`): the positions
/// after `skip_plies` where the player whose name starts with `scorer` was to move and wrote
/// a score (`'** ...` comments), kept by the same rule as self-play (`keep`), with the game's
/// result. Games without a result are left out. Returns the records and the games used.
pub fn records_from_games(games: &[crate::records::Game], scorer: &str, skip_plies: usize) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut used = 0;
    for game in games {
        let (Some(winner), Some(side)) = (outcome(game), player_named(game, scorer)) else { continue };
        used += 1;
        let mut samples = Vec::new();
        let mut pos = game.start.clone();
        for (ply, &mv) in game.moves.iter().enumerate() {
            let score = game.scores.get(ply).copied().flatten().filter(|_| pos.side_to_move() == side);
            if let Some(black_view) = score {
                let score = if side == Color::Black { black_view } else { -black_view };
                if keep(&pos, mv, score, ply >= skip_plies, u32::MAX)
                    && let Ok(packed) = pack(&pos)
                {
                    samples.push(Sample { packed, score, mv, game_ply: pos.game_ply(), side });
                }
            }
            pos.do_move(mv);
        }
        out.extend(records(&samples, winner));
    }
    (out, used)
}

/// The progress of a file: games finished and bytes written for them.
fn read_progress(path: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("{path}.progress")).unwrap_or_default();
    let mut it = text.split_whitespace().map(|t| t.parse::<u64>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

fn write_progress(path: &str, games: u64, bytes: u64) -> std::io::Result<()> {
    let tmp = format!("{path}.progress.tmp");
    std::fs::write(&tmp, format!("{games} {bytes}\n"))?;
    std::fs::rename(tmp, format!("{path}.progress"))
}

/// Plays games `done..opts.games` (`done` from the file's progress) on `opts.threads`
/// threads, appending their records to `path`. `on_game` is told the games and records after
/// each game.
pub fn run(opts: &GensfenOptions, path: &str, on_game: impl Fn(u64, u64) + Sync) -> std::io::Result<GensfenReport> {
    if path.ends_with(".games") {
        return run_games(opts, path, on_game).map_err(|e| match e {
            GameStoreError::Io(e) => e,
            e => std::io::Error::other(e.to_string()),
        });
    }
    let (done, bytes) = read_progress(path);
    let mut file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
    // Cut off what a run stopped in the middle of a game left behind.
    file.set_len(bytes)?;
    file.seek(std::io::SeekFrom::End(0))?;
    let out = Mutex::new((file, done, bytes));
    let next_game = AtomicU64::new(done);
    let played = AtomicU64::new(0);
    let error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            s.spawn(|| {
                let mut engine = game_engine(opts);
                loop {
                    let g = next_game.fetch_add(1, Ordering::Relaxed);
                    if g >= opts.games || error.lock().is_some() {
                        break;
                    }
                    let mut rng = Rng::new(opts.seed, g);
                    let game = play_game(opts, &mut rng, &mut engine, g as u32);
                    let bytes = records_of(&game, opts.max_ply).expect("a game just played replays");
                    let mut o = out.lock();
                    let (file, games, written) = &mut *o;
                    let r = file.write_all(&bytes).and_then(|_| file.flush()).and_then(|_| {
                        *games += 1;
                        *written += bytes.len() as u64;
                        write_progress(path, *games, *written)
                    });
                    if let Err(e) = r {
                        *error.lock() = Some(e);
                        break;
                    }
                    played.fetch_add(1, Ordering::Relaxed);
                    on_game(*games, *written / RECORD_BYTES as u64);
                }
            });
        }
    });
    if let Some(e) = error.into_inner() {
        return Err(e);
    }
    let (_, games, written) = out.into_inner();
    Ok(GensfenReport { games, records: written / RECORD_BYTES as u64, played: played.load(Ordering::Relaxed) })
}

/// The settings line of a games file: what makes its games what they are.
pub fn settings_line(opts: &GensfenOptions) -> String {
    let limit = match opts.depth {
        Some(d) => format!("depth {d}"),
        // Files played without jitter keep the line they were started with.
        None if opts.nodes_jitter > 0 => format!("nodes {} nodes_jitter {}", opts.nodes, opts.nodes_jitter),
        None => format!("nodes {}", opts.nodes),
    };
    format!(
        "seed {} {limit} random_plies {} max_ply {} teacher {} hayate {}",
        opts.seed,
        opts.random_plies,
        opts.max_ply,
        opts.teacher,
        env!("CARGO_PKG_VERSION")
    )
}

/// `run` into a games file: plays the games `0..opts.games` the file does not hold yet, on
/// `opts.threads` threads, and appends them in batches. `on_game` is told the games in the file
/// and their searched positions after each game.
pub fn run_games(
    opts: &GensfenOptions,
    path: &str,
    on_game: impl Fn(u64, u64) + Sync,
) -> Result<GensfenReport, GameStoreError> {
    let settings = settings_line(opts);
    let (writer, existing) = GameWriter::open(std::path::Path::new(path), &settings)?;
    let done: std::collections::HashSet<u32> = existing.iter().map(|g| g.index).collect();
    let positions: u64 = existing.iter().map(|g| g.moves.len() as u64).sum();
    let todo: Vec<u32> = (0..opts.games.min(u32::MAX as u64) as u32).filter(|g| !done.contains(g)).collect();
    let out = Mutex::new((writer, done.len() as u64, positions));
    let next = AtomicU64::new(0);
    let played = AtomicU64::new(0);
    let error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            s.spawn(|| {
                let mut engine = game_engine(opts);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    if i >= todo.len() || error.lock().is_some() {
                        break;
                    }
                    let g = todo[i];
                    let mut rng = Rng::new(opts.seed, g as u64);
                    let game = play_game(opts, &mut rng, &mut engine, g);
                    let mut o = out.lock();
                    let (writer, games, positions) = &mut *o;
                    if let Err(e) = writer.add(&game) {
                        *error.lock() = Some(e);
                        break;
                    }
                    *games += 1;
                    *positions += game.moves.len() as u64;
                    played.fetch_add(1, Ordering::Relaxed);
                    on_game(*games, *positions);
                }
            });
        }
    });
    let (mut writer, games, positions) = out.into_inner();
    if let Some(e) = error.into_inner() {
        return Err(e.into());
    }
    writer.flush()?;
    Ok(GensfenReport { games, records: positions, played: played.load(Ordering::Relaxed) })
}
