//! The `hayate` command: the USI engine without a subcommand, the tools with one. Parses the
//! command line, runs the subcommand, and turns its error into a message and exit status 2.

use clap::{Parser, Subcommand};
use hayate::cli::{self, CliError};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "hayate",
    version,
    about = "hayate: a USI shogi engine (without a command: the USI protocol on stdin/stdout)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count legal move sequences of DEPTH plies (leaves counted in bulk).
    Perft(cli::perft::PerftArgs),
    /// Referee: replay a game and print how it stands or ended (last line of stdout).
    Judge(cli::judge::JudgeArgs),
    /// Play games against itself and record training positions for the linear evaluation (text lines).
    Selfplay(cli::selfplay::SelfplayArgs),
    /// Self-play training data for NNUE networks (YaneuraOu's PackedSfenValue records).
    Gensfen(cli::gensfen::GensfenArgs),
    /// Train an NNUE network (halfkp_256x2-32-32) on PackedSfenValue records; writes nn.bin.
    Train(cli::train::TrainArgs),
    /// Fit the linear evaluation's weights to game or self-play records and write `weights.rs`.
    Tune(cli::tune::TuneArgs),
    /// Analyse a game record (KIF, KI2, CSA, USI) or a list of positions (SFEN lines).
    Analyze(cli::analyze::AnalyzeArgs),
    /// Mate search (tsume): prints `checkmate M1 M2 ...`, `checkmate nomate` or `checkmate timeout`.
    Mate(cli::mate::MateArgs),
    /// Deterministic search benchmark: fixed positions and depth; prints the node signature.
    Bench(cli::bench::BenchArgs),
    /// Static evaluation of positions (stdin, one per line, or --sfen), as YaneuraOu's `e` prints it.
    Eval(cli::eval::EvalArgs),
}

fn main() -> ExitCode {
    // A tuning build takes its search constants from the environment (src/search/params.rs).
    #[cfg(feature = "tune")]
    if let Ok(spec) = std::env::var("HAYATE_TUNE")
        && let Err(e) = hayate::search::params::set_tunables(&spec)
    {
        eprintln!("error: HAYATE_TUNE: {e}");
        return ExitCode::from(2);
    }
    let result: Result<(), CliError> = match Cli::parse().command {
        None => {
            hayate::usi::run(std::io::BufReader::new(std::io::stdin()), hayate::usi::Output::stdout());
            Ok(())
        }
        Some(Command::Perft(args)) => cli::perft::run(args),
        Some(Command::Judge(args)) => cli::judge::run(args),
        Some(Command::Selfplay(args)) => cli::selfplay::run(args),
        Some(Command::Tune(args)) => cli::tune::run(args),
        Some(Command::Gensfen(args)) => cli::gensfen::run(args),
        Some(Command::Train(args)) => cli::train::run(args),
        Some(Command::Analyze(args)) => cli::analyze::run(args),
        Some(Command::Mate(args)) => cli::mate::run(args),
        Some(Command::Bench(args)) => cli::bench::run(args),
        Some(Command::Eval(args)) => cli::eval::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
