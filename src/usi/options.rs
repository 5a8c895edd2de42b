//! The `option` lines of the `usi` answer, written from the engine's option declarations
//! (`engine::options`), which also parse the values that `setoption` brings.

use crate::engine::options::{OPTIONS, OptionDef, OptionKind};

/// The `option name ...` line of one option.
pub fn usi_line(o: &OptionDef) -> String {
    match o.kind {
        OptionKind::Spin { default, min, max, .. } => {
            format!("option name {} type spin default {default} min {min} max {max}", o.name)
        }
        OptionKind::Check { default, .. } => format!("option name {} type check default {default}", o.name),
        OptionKind::Combo { default, vars, .. } => {
            let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
            format!("option name {} type combo default {default}{vars}", o.name)
        }
        OptionKind::Text { default, filename, .. } => {
            let kind = if filename { "filename" } else { "string" };
            let default = if default.is_empty() { "<empty>" } else { default };
            format!("option name {} type {kind} default {default}", o.name)
        }
    }
}

/// The `option name ...` lines of the `usi` answer.
pub fn usi_lines() -> Vec<String> {
    OPTIONS.iter().map(usi_line).collect()
}
