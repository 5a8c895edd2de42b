//! `hayate gensfen`: self-play training data in YaneuraOu's PackedSfenValue format (see
//! `crate::learn::nnue::gensfen` for the games and which positions are kept).

use super::{CliError, NetworkArgs, spin_arg};
use crate::engine::EngineOptions;
use crate::engine::options::{HASH, THREADS};
use crate::learn::nnue::gensfen::{self, GensfenOptions};
use crate::search::MAX_PLY;
use std::io::IsTerminal;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct GensfenArgs {
    /// Games in the file when done (a file with games already is continued).
    #[arg(long, required_unless_present = "from_games")]
    games: Option<u64>,
    /// Instead of playing: the positions of recorded games (CSA) with the scores of the player
    /// `--scores-of` and the games' results, or of games files (`.games`), as records.
    #[arg(long, num_args = 1.., conflicts_with = "games")]
    from_games: Vec<String>,
    /// Whose recorded scores are kept (player name prefix), with --from-games.
    #[arg(long, default_value = crate::learn::recorded::SCORER)]
    scores_of: String,
    /// Opening plies of --from-games records left out.
    #[arg(long, default_value_t = crate::learn::recorded::SKIP_PLIES)]
    skip_plies: usize,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Depth per move instead of nodes.
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=MAX_PLY as i64 - 10))]
    depth: Option<i32>,
    /// Output file: PackedSfenValue records (40 bytes each; FILE.progress keeps the count), or,
    /// for a name ending in `.games`, whole games (every move and score, about 2.5 bytes a
    /// position; continued with exactly the games it lacks).
    #[arg(long)]
    out: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once (one search thread each).
    #[arg(long, default_value_t = 1, value_parser = spin_arg::<usize>(&THREADS))]
    threads: usize,
    /// Moves chosen at random among near-best ones after the opening line.
    #[arg(long, default_value_t = 4)]
    random_plies: u32,
    /// Each move searches a node count drawn from within this percentage of --nodes, so that
    /// games through the same position part ways (0: exactly --nodes).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=90))]
    nodes_jitter: u32,
    /// Game ply from which positions are not kept and the game is drawn.
    #[arg(long, default_value_t = 320)]
    max_ply: u32,
    /// The teacher's evaluation.
    #[command(flatten)]
    network: NetworkArgs,
    /// Hash table of each game's engine (MiB).
    #[arg(long, default_value_t = 16, value_parser = spin_arg::<usize>(&HASH))]
    hash: usize,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

pub fn run(args: GensfenArgs) -> Result<(), CliError> {
    if !args.from_games.is_empty() {
        return from_games(&args);
    }
    let games = args.games.unwrap_or_default();
    let mut engine = EngineOptions { hash_mib: args.hash, ..EngineOptions::default() };
    args.network.apply(&mut engine);
    // Refuse a bad teacher before any game (the game threads would fall back silently).
    let teacher = match args.network.load()? {
        Some(net) => format!("{}-{:016x}", net.arch().name(), net.checksum()),
        None => "linear".to_string(),
    };
    let opts = GensfenOptions {
        games,
        nodes: args.nodes,
        depth: args.depth,
        threads: args.threads,
        seed: args.seed,
        random_plies: args.random_plies,
        nodes_jitter: args.nodes_jitter,
        max_ply: args.max_ply,
        engine,
        teacher,
    };
    let bar = if args.quiet || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        let bar = indicatif::ProgressBar::new(games);
        let style = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games  {elapsed} (eta {eta})  {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        bar
    };
    let start = Instant::now();
    let report = gensfen::run(&opts, &args.out, |games, records| {
        bar.set_position(games);
        bar.set_message(format!("{records} positions"));
    })
    .map_err(|err| CliError::File { path: args.out.clone(), err })?;
    bar.finish_and_clear();
    eprintln!(
        "{} games ({} this run) and {} positions in {}; {:.1} s",
        report.games,
        report.played,
        report.records,
        args.out,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `--from-games`: recorded games to records, written to `--out` (replacing it).
fn from_games(args: &GensfenArgs) -> Result<(), CliError> {
    let mut games = Vec::new();
    let mut out = Vec::new();
    let mut stored = 0;
    for path in &args.from_games {
        if path.ends_with(".games") {
            // Self-play games of `gensfen --out FILE.games`: every searched position `keep`s.
            let file = crate::learn::game_store::read(std::path::Path::new(path))
                .map_err(|e| CliError::Data(format!("{path}: {e}")))?;
            for g in &file.games {
                out.extend(gensfen::records_of(g, args.max_ply).map_err(|e| CliError::Data(format!("{path}: {e}")))?);
            }
            stored += file.games.len();
            continue;
        }
        let bytes = std::fs::read(path).map_err(|err| CliError::File { path: path.clone(), err })?;
        let text = crate::records::decode(&bytes).map_err(|e| CliError::Data(format!("{path}: {e}")))?;
        for (i, g) in crate::records::csa::parse_all(&text).into_iter().enumerate() {
            games.push(g.map_err(|e| CliError::Data(format!("{path}: game {}: {e}", i + 1)))?);
        }
    }
    let (bytes, used) = gensfen::records_from_games(&games, &args.scores_of, args.skip_plies);
    out.extend(bytes);
    std::fs::write(&args.out, &out).map_err(|err| CliError::File { path: args.out.clone(), err })?;
    eprintln!(
        "{} positions of {} games (of {}) in {}",
        out.len() / crate::records::packed_sfen::RECORD_BYTES,
        used + stored,
        games.len() + stored,
        args.out
    );
    Ok(())
}
