//! The engine's options, each declared once: its name, type, default and range, and the field
//! it sets. The `usi` answer, `setoption`, the defaults of `EngineOptions` and the ranges of
//! the command-line tools are all derived from `OPTIONS`; adding an option is one declaration
//! here plus the code that uses its field.
//!
//! Setting a value never panics: a value of the wrong kind is an `OptionError`, a number out
//! of range is clamped with a warning (a GUI that offers a slider beyond the range still gets
//! the nearest usable value).

use crate::search::{Evaluator, SearchConfig, TimeOptions};
use crate::shogi::EnteringKingRule;
use std::fmt;

/// What the options set.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    pub hash_mib: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub network_delay: u64,
    pub minimum_thinking_time: u64,
    pub resign_value: i32,
    pub draw_value: i32,
    pub entering_king_rule: EnteringKingRule,
    pub max_moves_to_draw: u32,
    /// When non-zero, searches under a clock search exactly this many nodes instead.
    pub nodes_limit: u64,
    /// Play from the opening book (`book_file`).
    pub own_book: bool,
    /// Path of a book in YaneuraOu's format; `NO_BOOK` for none.
    pub book_file: String,
    /// The last move number that is looked up in the book.
    pub book_moves: u32,
    /// Book moves more than this below the best one's value are not played (centipawns).
    pub book_eval_diff: i32,
    /// Match book positions whatever the ply their `sfen` line gives.
    pub ignore_book_ply: bool,
    /// With `eval_dir` empty: evaluate with the built-in network rather than the linear
    /// evaluation.
    pub built_in_network: bool,
    /// Folder holding `nn.bin` (or the network file itself); empty: `built_in_network` decides.
    pub eval_dir: String,
    /// Divisor of the network's output (YaneuraOu's FV_SCALE).
    pub fv_scale: i32,
}

/// The file `EvalDir` names: `nn.bin` in that folder, or the path itself when it is a file.
fn network_path(eval_dir: &str) -> Option<std::path::PathBuf> {
    if eval_dir.is_empty() {
        return None;
    }
    let p = std::path::Path::new(eval_dir);
    Some(if p.is_file() { p.to_path_buf() } else { p.join("nn.bin") })
}

/// Where the network evaluated with comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkSource {
    /// hayate's own network, compiled in (`nnue::packed::BUILT_IN`).
    BuiltIn,
    /// A network file.
    File(std::path::PathBuf),
}

impl NetworkSource {
    /// `EvalDir` and `BuiltInNetwork` together: the file of `eval_dir` when it names one (as
    /// in YaneuraOu), else the built-in network if `built_in_network`, else none (the linear
    /// evaluation).
    pub fn from_options(built_in_network: bool, eval_dir: &str) -> Option<NetworkSource> {
        match network_path(eval_dir) {
            Some(path) => Some(NetworkSource::File(path)),
            None => built_in_network.then_some(NetworkSource::BuiltIn),
        }
    }

    /// Reads the network (the built-in one is unpacked once per process and shared).
    pub fn load(&self) -> Result<std::sync::Arc<crate::nnue::Network>, crate::nnue::NnueError> {
        static BUILT_IN: once_cell::sync::OnceCell<
            Result<std::sync::Arc<crate::nnue::Network>, crate::nnue::NnueError>,
        > = once_cell::sync::OnceCell::new();
        match self {
            NetworkSource::BuiltIn => BUILT_IN.get_or_init(|| crate::nnue::packed::built_in().map(Into::into)).clone(),
            NetworkSource::File(path) => crate::nnue::Network::load(path).map(Into::into),
        }
    }
}

impl std::fmt::Display for NetworkSource {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            NetworkSource::BuiltIn => f.write_str("built-in network"),
            NetworkSource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The `BookFile` value that means no book (YaneuraOu's).
pub const NO_BOOK: &str = "no_book";

impl Default for EngineOptions {
    /// Every option at its declared default.
    fn default() -> Self {
        let mut o = EngineOptions {
            hash_mib: 0,
            threads: 0,
            multipv: 0,
            ponder: false,
            network_delay: 0,
            minimum_thinking_time: 0,
            resign_value: 0,
            draw_value: 0,
            entering_king_rule: EnteringKingRule::DEFAULT,
            max_moves_to_draw: 0,
            nodes_limit: 0,
            own_book: false,
            book_file: String::new(),
            book_moves: 0,
            book_eval_diff: 0,
            ignore_book_ply: false,
            built_in_network: false,
            eval_dir: String::new(),
            fv_scale: 0,
        };
        for def in OPTIONS {
            def.set_default(&mut o);
        }
        o
    }
}

impl EngineOptions {
    /// The search settings these options stand for.
    pub fn search_config(&self) -> SearchConfig {
        SearchConfig {
            threads: self.threads.max(1),
            multipv: self.multipv.max(1),
            time: TimeOptions { network_delay: self.network_delay, minimum_thinking_time: self.minimum_thinking_time },
            draw_value: self.draw_value,
            resign_value: self.resign_value,
            entering_king_rule: self.entering_king_rule,
            max_moves_to_draw: self.max_moves_to_draw,
            evaluator: Evaluator::Linear,
        }
    }

    /// The book file to load, if the options ask for one.
    pub fn book_path(&self) -> Option<&str> {
        (self.own_book && !self.book_file.is_empty() && self.book_file != NO_BOOK).then_some(self.book_file.as_str())
    }

    /// Sets the option `name` (any case) from its text value; returns the warning to show
    /// when a number was clamped.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Option<String>, OptionError> {
        let def = find(name).ok_or_else(|| OptionError::UnknownOption(name.trim().to_string()))?;
        def.set(self, value)
    }
}

/// An option's type, default and range, and the field it sets.
#[derive(Clone, Copy)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
        set: fn(&mut EngineOptions, i64),
    },
    Check {
        default: bool,
        set: fn(&mut EngineOptions, bool),
    },
    /// One of `vars`; `set` gets the index of the chosen one.
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
        set: fn(&mut EngineOptions, usize),
    },
    /// Any text (USI `string`), or a file's path (USI `filename`). No value, or `<empty>`,
    /// sets the empty text.
    Text {
        default: &'static str,
        filename: bool,
        set: fn(&mut EngineOptions, &str),
    },
}

/// One option.
#[derive(Clone, Copy)]
pub struct OptionDef {
    pub name: &'static str,
    pub kind: OptionKind,
}

impl fmt::Debug for OptionDef {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl OptionDef {
    /// (min, max) of a spin option.
    pub const fn range(&self) -> (i64, i64) {
        match self.kind {
            OptionKind::Spin { min, max, .. } => (min, max),
            _ => (0, 0),
        }
    }

    /// The default of a spin option.
    pub const fn spin_default(&self) -> i64 {
        match self.kind {
            OptionKind::Spin { default, .. } => default,
            _ => 0,
        }
    }

    fn set_default(&self, o: &mut EngineOptions) {
        match self.kind {
            OptionKind::Spin { default, set, .. } => set(o, default),
            OptionKind::Check { default, set } => set(o, default),
            OptionKind::Combo { default, vars, set } => {
                if let Some(i) = vars.iter().position(|v| *v == default) {
                    set(o, i)
                }
            }
            OptionKind::Text { default, set, .. } => set(o, default),
        }
    }

    /// Sets the option from its text value (surrounding spaces ignored; `value` followed by
    /// nothing counts as no value). Returns the warning when a number was clamped.
    pub fn set(&self, o: &mut EngineOptions, value: Option<&str>) -> Result<Option<String>, OptionError> {
        let option = self.name;
        if let OptionKind::Text { set, .. } = self.kind {
            let text = value.map(str::trim).unwrap_or_default();
            set(o, if text == "<empty>" { "" } else { text });
            return Ok(None);
        }
        let value = value.map(str::trim).filter(|v| !v.is_empty()).ok_or(OptionError::MissingValue { option })?;
        match self.kind {
            OptionKind::Spin { min, max, set, .. } => {
                // i128 holds any i64 and reports anything longer as an error instead of wrapping.
                let v: i128 =
                    value.parse().map_err(|_| OptionError::NotANumber { option, value: value.to_string() })?;
                let clamped = v.clamp(min as i128, max as i128) as i64;
                set(o, clamped);
                Ok((clamped as i128 != v).then(|| format!("option {option} value {v} clamped to {clamped}")))
            }
            OptionKind::Check { set, .. } => {
                match value.to_ascii_lowercase().as_str() {
                    "true" => set(o, true),
                    "false" => set(o, false),
                    _ => return Err(OptionError::NotABool { option, value: value.to_string() }),
                }
                Ok(None)
            }
            OptionKind::Combo { vars, set, .. } => {
                let i = vars.iter().position(|v| v.eq_ignore_ascii_case(value)).ok_or_else(|| {
                    OptionError::UnknownChoice { option, value: value.to_string(), vars: vars.join(", ") }
                })?;
                set(o, i);
                Ok(None)
            }
            OptionKind::Text { .. } => unreachable!("handled above"),
        }
    }
}

/// Largest `Threads`: more would only be scheduling overhead (each thread reserves a
/// `SEARCH_STACK_BYTES` stack), and 100000 would exhaust the process's thread limit.
pub const MAX_THREADS: i64 = 256;

const RULE_NAMES: [&str; EnteringKingRule::ALL.len()] = {
    let mut names = [""; EnteringKingRule::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = EnteringKingRule::ALL[i].name();
        i += 1;
    }
    names
};

/// A spin option: an integer in `min..=max`.
const fn spin(name: &'static str, default: i64, min: i64, max: i64, set: fn(&mut EngineOptions, i64)) -> OptionDef {
    OptionDef { name, kind: OptionKind::Spin { default, min, max, set } }
}

/// A check option: true or false.
const fn check(name: &'static str, default: bool, set: fn(&mut EngineOptions, bool)) -> OptionDef {
    OptionDef { name, kind: OptionKind::Check { default, set } }
}

pub const HASH: OptionDef =
    spin("USI_Hash", 256, 1, crate::tt::TranspositionTable::MAX_MIB as i64, |o, v| o.hash_mib = v as usize);
pub const PONDER: OptionDef = check("USI_Ponder", false, |o, v| o.ponder = v);
pub const THREADS: OptionDef = spin("Threads", 1, 1, MAX_THREADS, |o, v| o.threads = v as usize);
pub const MULTIPV: OptionDef = spin("MultiPV", 1, 1, 600, |o, v| o.multipv = v as usize);
pub const NETWORK_DELAY: OptionDef = spin("NetworkDelay", 40, 0, 10_000, |o, v| o.network_delay = v as u64);
pub const MINIMUM_THINKING_TIME: OptionDef =
    spin("MinimumThinkingTime", 20, 0, 60_000, |o, v| o.minimum_thinking_time = v as u64);
pub const RESIGN_VALUE: OptionDef = spin("ResignValue", 10_000, 0, 99_999, |o, v| o.resign_value = v as i32);
pub const DRAW_VALUE: OptionDef = spin("DrawValue", 0, -30_000, 30_000, |o, v| o.draw_value = v as i32);
pub const ENTERING_KING_RULE: OptionDef = OptionDef {
    name: "EnteringKingRule",
    kind: OptionKind::Combo {
        default: EnteringKingRule::DEFAULT.name(),
        vars: &RULE_NAMES,
        set: |o, i| o.entering_king_rule = EnteringKingRule::ALL[i],
    },
};
pub const MAX_MOVES_TO_DRAW: OptionDef = spin("MaxMovesToDraw", 0, 0, 100_000, |o, v| o.max_moves_to_draw = v as u32);
pub const NODES_LIMIT: OptionDef = spin("NodesLimit", 0, 0, 1_000_000_000_000, |o, v| o.nodes_limit = v as u64);

pub const OWN_BOOK: OptionDef = check("USI_OwnBook", true, |o, v| o.own_book = v);
pub const BOOK_FILE: OptionDef = OptionDef {
    name: "BookFile",
    kind: OptionKind::Text { default: NO_BOOK, filename: true, set: |o, v| o.book_file = v.to_string() },
};
pub const BOOK_MOVES: OptionDef = spin("BookMoves", 16, 0, 10_000, |o, v| o.book_moves = v as u32);
pub const BOOK_EVAL_DIFF: OptionDef = spin("BookEvalDiff", 30, 0, 99_999, |o, v| o.book_eval_diff = v as i32);
pub const IGNORE_BOOK_PLY: OptionDef = check("IgnoreBookPly", false, |o, v| o.ignore_book_ply = v);

/// Whether, without `EvalDir`, the engine evaluates with its built-in network by default. On:
/// that network beats the linear evaluation at byoyomi 200 ms (README, docs/training.md).
pub const BUILT_IN_NETWORK_DEFAULT: bool = true;
pub const BUILT_IN_NETWORK: OptionDef =
    check("BuiltInNetwork", BUILT_IN_NETWORK_DEFAULT, |o, v| o.built_in_network = v);
pub const EVAL_DIR: OptionDef = OptionDef {
    name: "EvalDir",
    kind: OptionKind::Text { default: "", filename: false, set: |o, v| o.eval_dir = v.to_string() },
};
pub const FV_SCALE: OptionDef = spin("FV_SCALE", 16, 1, 128, |o, v| o.fv_scale = v as i32);

/// Every option, in the order of the `usi` answer. (The ranges make every `as` above lossless.)
pub const OPTIONS: &[OptionDef] = &[
    HASH,
    PONDER,
    THREADS,
    MULTIPV,
    NETWORK_DELAY,
    MINIMUM_THINKING_TIME,
    RESIGN_VALUE,
    DRAW_VALUE,
    ENTERING_KING_RULE,
    MAX_MOVES_TO_DRAW,
    NODES_LIMIT,
    OWN_BOOK,
    BOOK_FILE,
    BOOK_MOVES,
    BOOK_EVAL_DIFF,
    IGNORE_BOOK_PLY,
    EVAL_DIR,
    BUILT_IN_NETWORK,
    FV_SCALE,
];

/// The option called `name` (any case, surrounding spaces ignored).
pub fn find(name: &str) -> Option<&'static OptionDef> {
    OPTIONS.iter().find(|o| o.name.eq_ignore_ascii_case(name.trim()))
}

/// Why a value was not set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    UnknownOption(String),
    /// `setoption name X` without `value` for an option that needs one.
    MissingValue {
        option: &'static str,
    },
    NotANumber {
        option: &'static str,
        value: String,
    },
    NotABool {
        option: &'static str,
        value: String,
    },
    UnknownChoice {
        option: &'static str,
        value: String,
        vars: String,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            OptionError::UnknownOption(n) => write!(f, "unknown option '{n}'"),
            OptionError::MissingValue { option } => write!(f, "option {option}: missing value"),
            OptionError::NotANumber { option, value } => write!(f, "option {option}: '{value}' is not a number"),
            OptionError::NotABool { option, value } => write!(f, "option {option}: '{value}' is not true/false"),
            OptionError::UnknownChoice { option, value, vars } => {
                write!(f, "option {option}: unknown value '{value}' (one of {vars})")
            }
        }
    }
}

impl std::error::Error for OptionError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_typed_and_clamped() {
        let mut o = EngineOptions::default();
        assert_eq!(o.set("threads", Some("0")), Ok(Some("option Threads value 0 clamped to 1".into())));
        assert_eq!(o.threads, 1);
        assert!(o.set("Threads", Some("100000")).unwrap().is_some());
        assert_eq!(o.threads, MAX_THREADS as usize);
        assert!(o.set("USI_Hash", Some("999999999999999999999999999")).unwrap().is_some());
        assert_eq!(o.hash_mib, crate::tt::TranspositionTable::MAX_MIB);
        assert_eq!(o.set("USI_Hash", Some(" 64 ")), Ok(None));
        assert_eq!(o.hash_mib, 64);
        assert_eq!(o.set("USI_Ponder", Some("TRUE")), Ok(None));
        assert!(o.ponder);
        assert_eq!(o.set("EnteringKingRule", Some("tryrule")), Ok(None));
        assert_eq!(o.entering_king_rule, EnteringKingRule::TryRule);
    }

    #[test]
    fn errors_are_typed() {
        let mut o = EngineOptions::default();
        assert_eq!(o.set("Nope", Some("1")), Err(OptionError::UnknownOption("Nope".into())));
        // A misspelt spin option is an error, never another option.
        assert_eq!(o.set("Thread", Some("4")), Err(OptionError::UnknownOption("Thread".into())));
        assert_eq!(o.set("Threads", None), Err(OptionError::MissingValue { option: "Threads" }));
        assert_eq!(o.set("USI_Ponder", Some(" ")), Err(OptionError::MissingValue { option: "USI_Ponder" }));
        assert_eq!(
            o.set("Threads", Some("1e3")),
            Err(OptionError::NotANumber { option: "Threads", value: "1e3".into() })
        );
        assert_eq!(
            o.set("USI_Ponder", Some("yes")),
            Err(OptionError::NotABool { option: "USI_Ponder", value: "yes".into() })
        );
        assert!(matches!(o.set("EnteringKingRule", Some("x")), Err(OptionError::UnknownChoice { .. })));
        assert_eq!(o, EngineOptions::default(), "a refused value changes nothing");
    }

    /// Every option round-trips: its default, minimum and maximum are taken without a message
    /// and read back, one past either end is clamped with a warning.
    #[test]
    fn every_option_round_trips() {
        for def in OPTIONS {
            let mut o = EngineOptions::default();
            match def.kind {
                OptionKind::Spin { default, min, max, .. } => {
                    for v in [default, min, max] {
                        assert_eq!(o.set(def.name, Some(&v.to_string())), Ok(None), "{def:?} {v}");
                        let mut want = EngineOptions::default();
                        (match def.kind {
                            OptionKind::Spin { set, .. } => set,
                            _ => unreachable!(),
                        })(&mut want, v);
                        assert_eq!(o, want, "{def:?} {v}");
                    }
                    let over = (max as i128 + 1).to_string();
                    let w = o.set(def.name, Some(&over)).unwrap().expect("a warning");
                    assert!(w.contains(def.name) && w.contains(&max.to_string()), "{w}");
                    let under = (min as i128 - 1).to_string();
                    assert!(o.set(def.name, Some(&under)).unwrap().is_some());
                    let mut at_min = EngineOptions::default();
                    assert_eq!(at_min.set(def.name, Some(&min.to_string())), Ok(None));
                    assert_eq!(o, at_min);
                }
                OptionKind::Check { default, .. } => {
                    assert_eq!(o.set(def.name, Some(&default.to_string())), Ok(None));
                    assert_eq!(o, EngineOptions::default());
                    assert_eq!(o.set(def.name, Some(&(!default).to_string())), Ok(None));
                    assert_ne!(o, EngineOptions::default());
                }
                OptionKind::Combo { default, vars, .. } => {
                    assert_eq!(o.set(def.name, Some(default)), Ok(None));
                    assert_eq!(o, EngineOptions::default());
                    for v in vars {
                        assert_eq!(o.set(def.name, Some(v)), Ok(None), "{def:?} {v}");
                    }
                }
                OptionKind::Text { default, .. } => {
                    assert_eq!(o.set(def.name, Some(default)), Ok(None));
                    assert_eq!(o, EngineOptions::default());
                    assert_eq!(o.set(def.name, Some(" /some dir/a file.db ")), Ok(None));
                    assert_ne!(o, EngineOptions::default());
                    assert_eq!(o.set(def.name, Some("<empty>")), Ok(None));
                    let mut empty = EngineOptions::default();
                    assert_eq!(empty.set(def.name, None), Ok(None));
                    assert_eq!(o, empty);
                }
            }
            assert_eq!(
                EngineOptions::default().set(&format!("{}x", def.name), Some("1")),
                Err(OptionError::UnknownOption(format!("{}x", def.name)))
            );
        }
    }
}
