//! The command-line tools besides the USI engine: one module per subcommand, each with its
//! arguments (`clap`) and a `run` that returns `CliError`; `main.rs` parses the command line,
//! calls the `run`, and turns an error into its message and exit status 2.

pub mod analyze;
pub mod bench;
pub mod eval;
pub mod gensfen;
pub mod judge;
pub mod mate;
pub mod perft;
pub mod selfplay;
pub mod train;
pub mod tune;

use crate::engine::options::OptionDef;
use crate::shogi::Position;
use std::fmt;

/// Why a subcommand failed.
#[derive(Debug)]
pub enum CliError {
    /// An argument out of range or of the wrong form.
    Usage(String),
    /// A position or move that cannot be used.
    Position(String),
    /// A file that cannot be read or written.
    File {
        path: String,
        err: std::io::Error,
    },
    /// Training data or records that cannot be used.
    Data(String),
    /// The work failed (a thread could not start or broke).
    Failed(String),
    Analyze(crate::analyze::AnalyzeError),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            CliError::Usage(s) | CliError::Position(s) | CliError::Data(s) | CliError::Failed(s) => f.write_str(s),
            CliError::File { path, err } => write!(f, "{path}: {err}"),
            CliError::Analyze(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CliError {}

impl From<crate::analyze::AnalyzeError> for CliError {
    fn from(e: crate::analyze::AnalyzeError) -> Self {
        CliError::Analyze(e)
    }
}

/// The position given by `--sfen` (default: the initial position) after `--moves`.
pub fn position_from(sfen: Option<&str>, moves: &[String]) -> Result<Position, CliError> {
    let mut pos = match sfen {
        Some(s) => Position::from_sfen(s).map_err(|e| CliError::Position(format!("bad SFEN: {e}")))?,
        None => Position::startpos(),
    };
    for (i, m) in moves.iter().enumerate() {
        let mv = pos.parse_usi_move(m).map_err(|e| CliError::Position(format!("move {}: {e}", i + 1)))?;
        pos.do_move(mv);
    }
    Ok(pos)
}

/// Gets `engine` ready as `isready` does (table, network, book); its messages go to stderr,
/// and an error among them fails the command.
pub fn prepare(engine: &mut crate::engine::Engine) -> Result<(), CliError> {
    for m in engine.prepare_and_wait() {
        match m.strip_prefix("error: ") {
            Some(e) => return Err(CliError::Data(e.to_string())),
            None => eprintln!("{m}"),
        }
    }
    Ok(())
}

/// A parser for a number in the range of the engine's spin option `def` (so that a tool's
/// `--threads` or `--hash` takes exactly what `setoption` takes).
pub fn spin_arg<T>(def: &OptionDef) -> clap::builder::RangedU64ValueParser<T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
    <T as TryFrom<u64>>::Error: std::error::Error + Send + Sync + 'static,
{
    let (min, max) = def.range();
    clap::builder::RangedU64ValueParser::<T>::new().range(min.max(0) as u64..=max.max(0) as u64)
}

/// The evaluation a command uses, as the options `BuiltInNetwork`, `EvalDir` and `FV_SCALE` give it.
#[derive(clap::Args, Debug, Clone)]
pub struct NetworkArgs {
    /// Without `--eval-dir`: evaluate with the built-in network (`true`) or the linear
    /// evaluation (`false`).
    #[arg(long, default_value_t = crate::engine::options::BUILT_IN_NETWORK_DEFAULT, action = clap::ArgAction::Set)]
    pub built_in_network: bool,
    /// Folder holding `nn.bin` (or the network file itself).
    #[arg(long)]
    pub eval_dir: Option<String>,
    /// Divisor of the network's output.
    #[arg(long, default_value_t = crate::engine::options::FV_SCALE.spin_default() as i32,
          value_parser = spin_arg::<i32>(&crate::engine::options::FV_SCALE))]
    pub fv_scale: i32,
}

impl NetworkArgs {
    /// Where the network comes from (`None`: the linear evaluation).
    pub fn source(&self) -> Option<crate::engine::options::NetworkSource> {
        crate::engine::options::NetworkSource::from_options(
            self.built_in_network,
            self.eval_dir.as_deref().unwrap_or(""),
        )
    }

    /// The network, read now (a file that cannot be used is an error).
    pub fn load(&self) -> Result<Option<std::sync::Arc<crate::nnue::Network>>, CliError> {
        self.source().map(|s| s.load().map_err(|e| CliError::Data(format!("{s}: {e}")))).transpose()
    }

    /// These settings in engine options.
    pub fn apply(&self, options: &mut crate::engine::EngineOptions) {
        options.built_in_network = self.built_in_network;
        options.eval_dir = self.eval_dir.clone().unwrap_or_default();
        options.fv_scale = self.fv_scale;
    }
}
