//! The USI options: their table (for the `usi` answer) and the parsing of `setoption` values
//! into typed settings. Parsing never panics; a bad value is an `OptionError`, an out-of-range
//! number is clamped with a warning (a GUI that offers a slider beyond our range still gets
//! the nearest usable value).

use crate::engine::EngineOptions;
use crate::shogi::EnteringKingRule;
use std::fmt;

#[derive(Clone, Copy, Debug)]
pub enum OptKind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Combo { default: &'static str, vars: &'static [&'static str] },
}

const RULE_NAMES: [&str; 6] = ["NoEnteringKing", "CSARule24", "CSARule24H", "CSARule27", "CSARule27H", "TryRule"];

#[derive(Clone, Copy, Debug)]
pub struct OptDef {
    pub name: &'static str,
    pub kind: OptKind,
}

/// Largest `Threads`: more would only be scheduling overhead (and each thread has a 16 MiB
/// stack reserved), and 100000 would exhaust the process's thread limit.
pub const MAX_THREADS: i64 = 256;

pub const OPTIONS: &[OptDef] = &[
    OptDef {
        name: "USI_Hash",
        kind: OptKind::Spin { default: 256, min: 1, max: crate::tt::TranspositionTable::MAX_MIB as i64 },
    },
    OptDef { name: "USI_Ponder", kind: OptKind::Check { default: false } },
    OptDef { name: "Threads", kind: OptKind::Spin { default: 1, min: 1, max: MAX_THREADS } },
    OptDef { name: "MultiPV", kind: OptKind::Spin { default: 1, min: 1, max: 600 } },
    OptDef { name: "NetworkDelay", kind: OptKind::Spin { default: 40, min: 0, max: 10_000 } },
    OptDef { name: "MinimumThinkingTime", kind: OptKind::Spin { default: 20, min: 0, max: 60_000 } },
    OptDef { name: "ResignValue", kind: OptKind::Spin { default: 10_000, min: 0, max: 99_999 } },
    OptDef { name: "DrawValue", kind: OptKind::Spin { default: 0, min: -30_000, max: 30_000 } },
    OptDef { name: "EnteringKingRule", kind: OptKind::Combo { default: "CSARule27", vars: &RULE_NAMES } },
    OptDef { name: "MaxMovesToDraw", kind: OptKind::Spin { default: 0, min: 0, max: 100_000 } },
    OptDef { name: "NodesLimit", kind: OptKind::Spin { default: 0, min: 0, max: 1_000_000_000_000 } },
];

/// The `option name ...` lines of the `usi` answer.
pub fn usi_lines() -> Vec<String> {
    OPTIONS
        .iter()
        .map(|o| match o.kind {
            OptKind::Spin { default, min, max } => {
                format!("option name {} type spin default {default} min {min} max {max}", o.name)
            }
            OptKind::Check { default } => format!("option name {} type check default {default}", o.name),
            OptKind::Combo { default, vars } => {
                let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                format!("option name {} type combo default {default}{vars}", o.name)
            }
        })
        .collect()
}

/// A `setoption` value, parsed and in range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionSetting {
    HashMib(usize),
    Ponder(bool),
    Threads(usize),
    MultiPv(usize),
    NetworkDelay(u64),
    MinimumThinkingTime(u64),
    ResignValue(i32),
    DrawValue(i32),
    EnteringKingRule(EnteringKingRule),
    MaxMovesToDraw(u32),
    NodesLimit(u64),
}

impl OptionSetting {
    /// Stores the setting in the engine options.
    pub fn apply(&self, o: &mut EngineOptions) {
        match *self {
            OptionSetting::HashMib(v) => o.hash_mib = v,
            OptionSetting::Ponder(v) => o.ponder = v,
            OptionSetting::Threads(v) => o.threads = v,
            OptionSetting::MultiPv(v) => o.multipv = v,
            OptionSetting::NetworkDelay(v) => o.network_delay = v,
            OptionSetting::MinimumThinkingTime(v) => o.minimum_thinking_time = v,
            OptionSetting::ResignValue(v) => o.resign_value = v,
            OptionSetting::DrawValue(v) => o.draw_value = v,
            OptionSetting::EnteringKingRule(r) => o.entering_king_rule = r,
            OptionSetting::MaxMovesToDraw(v) => o.max_moves_to_draw = v,
            OptionSetting::NodesLimit(v) => o.nodes_limit = v,
        }
    }
}

/// Why a `setoption` was not applied.
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
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            OptionError::UnknownOption(n) => write!(f, "unknown option '{n}'"),
            OptionError::MissingValue { option } => write!(f, "option {option}: missing value"),
            OptionError::NotANumber { option, value } => write!(f, "option {option}: '{value}' is not a number"),
            OptionError::NotABool { option, value } => write!(f, "option {option}: '{value}' is not true/false"),
            OptionError::UnknownChoice { option, value } => {
                let vars = RULE_NAMES.join(", ");
                write!(f, "option {option}: unknown value '{value}' (one of {vars})")
            }
        }
    }
}

impl std::error::Error for OptionError {}

/// A parsed option and, when the number was out of range, the warning that says how it was
/// clamped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedOption {
    pub setting: OptionSetting,
    pub warning: Option<String>,
}

/// Parses `setoption name NAME [value VALUE]` (names are matched without regard to case).
pub fn parse_option(name: &str, value: Option<&str>) -> Result<ParsedOption, OptionError> {
    let Some(def) = OPTIONS.iter().find(|o| o.name.eq_ignore_ascii_case(name.trim())) else {
        return Err(OptionError::UnknownOption(name.to_string()));
    };
    let option = def.name;
    // `value` with nothing after it is as good as no value.
    let value = value.map(str::trim).filter(|v| !v.is_empty()).ok_or(OptionError::MissingValue { option })?;
    let mut warning = None;
    let setting = match def.kind {
        OptKind::Spin { min, max, .. } => {
            // i128 holds any i64 and reports anything longer as an error instead of wrapping.
            let v: i128 = value.parse().map_err(|_| OptionError::NotANumber { option, value: value.to_string() })?;
            let c = v.clamp(min as i128, max as i128) as i64;
            if c as i128 != v {
                warning = Some(format!("option {option} value {v} clamped to {c}"));
            }
            // The ranges in OPTIONS make every conversion below lossless.
            match option {
                "USI_Hash" => OptionSetting::HashMib(c as usize),
                "Threads" => OptionSetting::Threads(c as usize),
                "MultiPV" => OptionSetting::MultiPv(c as usize),
                "NetworkDelay" => OptionSetting::NetworkDelay(c as u64),
                "MinimumThinkingTime" => OptionSetting::MinimumThinkingTime(c as u64),
                "ResignValue" => OptionSetting::ResignValue(c as i32),
                "DrawValue" => OptionSetting::DrawValue(c as i32),
                "MaxMovesToDraw" => OptionSetting::MaxMovesToDraw(c as u32),
                _ => OptionSetting::NodesLimit(c as u64),
            }
        }
        OptKind::Check { .. } => match value.to_ascii_lowercase().as_str() {
            "true" => OptionSetting::Ponder(true),
            "false" => OptionSetting::Ponder(false),
            _ => return Err(OptionError::NotABool { option, value: value.to_string() }),
        },
        OptKind::Combo { .. } => match value.parse::<EnteringKingRule>() {
            Ok(rule) => OptionSetting::EnteringKingRule(rule),
            Err(_) => return Err(OptionError::UnknownChoice { option, value: value.to_string() }),
        },
    };
    Ok(ParsedOption { setting, warning })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_typed_and_clamped() {
        let p = parse_option("threads", Some("0")).unwrap();
        assert_eq!(p.setting, OptionSetting::Threads(1));
        assert_eq!(p.warning.as_deref(), Some("option Threads value 0 clamped to 1"));
        let p = parse_option("Threads", Some("100000")).unwrap();
        assert_eq!(p.setting, OptionSetting::Threads(MAX_THREADS as usize));
        let p = parse_option("USI_Hash", Some("999999999999999999999999999")).unwrap();
        assert_eq!(p.setting, OptionSetting::HashMib(crate::tt::TranspositionTable::MAX_MIB));
        assert!(p.warning.is_some());
        assert_eq!(
            parse_option("USI_Hash", Some(" 64 ")).unwrap(),
            ParsedOption { setting: OptionSetting::HashMib(64), warning: None }
        );
        assert_eq!(parse_option("USI_Ponder", Some("TRUE")).unwrap().setting, OptionSetting::Ponder(true));
        assert_eq!(
            parse_option("EnteringKingRule", Some("tryrule")).unwrap().setting,
            OptionSetting::EnteringKingRule(EnteringKingRule::TryRule)
        );
    }

    #[test]
    fn errors_are_typed() {
        assert_eq!(parse_option("Nope", Some("1")), Err(OptionError::UnknownOption("Nope".into())));
        assert_eq!(parse_option("Threads", None), Err(OptionError::MissingValue { option: "Threads" }));
        assert_eq!(parse_option("USI_Ponder", Some(" ")), Err(OptionError::MissingValue { option: "USI_Ponder" }));
        assert_eq!(
            parse_option("Threads", Some("1e3")),
            Err(OptionError::NotANumber { option: "Threads", value: "1e3".into() })
        );
        assert_eq!(
            parse_option("USI_Ponder", Some("yes")),
            Err(OptionError::NotABool { option: "USI_Ponder", value: "yes".into() })
        );
        assert!(matches!(parse_option("EnteringKingRule", Some("x")), Err(OptionError::UnknownChoice { .. })));
    }
}
