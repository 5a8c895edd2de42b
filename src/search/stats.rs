//! Counts of what the search does at its nodes (`--features tune` builds only, printed to
//! stderr after each search when the environment variable `HAYATE_STATS` is set): how often
//! each pruning, extension and reduction fires per 1,000 calls of the main search, and the
//! mean reduction and history score of the moves searched reduced. The same counts taken in
//! another engine show where two trees differ (docs/search.md).

use std::sync::atomic::{AtomicI64, Ordering};

/// What is counted (per call of the main search) and summed (per reduced search).
#[derive(Clone, Copy)]
pub enum Stat {
    /// Calls of the main search below the root (those that go straight to quiescence too).
    Calls,
    TableCut,
    ReverseFutility,
    NullTried,
    NullCut,
    ProbCut,
    SingularTest,
    SingularExtended,
    MultiCut,
    Reduced,
    ReducedFailHigh,
    /// Non-PV nodes reaching the null move's decision, and those of them whose static
    /// evaluation is at least beta.
    NonPvNodes,
    NonPvEvalAboveBeta,
    /// Sums over the reduced searches: plies of reduction, the quiet moves' history scores
    /// (and their count).
    ReductionPlies,
    QuietHistory,
    QuietReduced,
    /// Calls of quiescence, those of them in check, main-search nodes in check, moves searched
    /// (made) by the main search, and check extensions.
    QuiescenceCalls,
    QuiescenceInCheck,
    InCheck,
    MovesSearched,
    CheckExtended,
    /// Main-search nodes with depth left (those that do not go straight to quiescence), and
    /// checking moves searched there.
    MainNodes,
    ChecksSearched,
    /// Beta cutoffs of the main search (below the root), those by the first move searched,
    /// and the sum of the cutting moves' numbers (move count at the cutoff).
    FailHigh,
    FailHighFirst,
    FailHighMoveSum,
    /// Main-search nodes with a static evaluation, and the sum of their corrections' sizes.
    Corrected,
    CorrectionSum,
}

const NAMES: [&str; 28] = [
    "calls",
    "tt_cut",
    "rfp",
    "nmp_try",
    "nmp_cut",
    "probcut",
    "se_test",
    "se_ext",
    "multicut",
    "lmr",
    "lmr_fail_high",
    "non_pv",
    "non_pv_eval_ge_beta",
    "reduction_plies",
    "quiet_history",
    "quiet_reduced",
    "qs_calls",
    "qs_in_check",
    "in_check",
    "moves_searched",
    "check_ext",
    "main_nodes",
    "checks_searched",
    "fail_high",
    "fail_high_first",
    "fail_high_move_sum",
    "corrected",
    "correction_sum",
];

static COUNTS: [AtomicI64; 28] = [const { AtomicI64::new(0) }; 28];

/// Main-search nodes with depth left, and quiescence nodes, by ply (the last bucket holds the
/// deeper ones).
static MAIN_BY_PLY: [AtomicI64; 40] = [const { AtomicI64::new(0) }; 40];
static QS_BY_PLY: [AtomicI64; 40] = [const { AtomicI64::new(0) }; 40];

#[inline]
pub fn at_ply(quiescence: bool, ply: usize) {
    let table = if quiescence { &QS_BY_PLY } else { &MAIN_BY_PLY };
    table[ply.min(39)].fetch_add(1, Ordering::Relaxed);
}

#[inline]
pub fn add(stat: Stat, v: i64) {
    COUNTS[stat as usize].fetch_add(v, Ordering::Relaxed);
}

/// Everything counted since the program started, on one line of stderr.
pub fn print() {
    let get = |s: Stat| COUNTS[s as usize].load(Ordering::Relaxed);
    let calls = get(Stat::Calls).max(1) as f64;
    let mut line = String::from("stats per 1000 calls:");
    for (i, name) in NAMES.iter().enumerate().take(Stat::ReductionPlies as usize).skip(1) {
        line += &format!(" {name}={:.2}", COUNTS[i].load(Ordering::Relaxed) as f64 * 1000.0 / calls);
    }
    let reduced = get(Stat::Reduced).max(1) as f64;
    let quiets = get(Stat::QuietReduced).max(1) as f64;
    line += &format!(
        "; mean reduction {:.3} plies; mean quiet history {:.0}",
        get(Stat::ReductionPlies) as f64 / reduced,
        get(Stat::QuietHistory) as f64 / quiets
    );
    for (i, name) in NAMES.iter().enumerate().skip(Stat::QuiescenceCalls as usize) {
        line += &format!(" {name}={:.2}", COUNTS[i].load(Ordering::Relaxed) as f64 * 1000.0 / calls);
    }
    let fail_high = get(Stat::FailHigh).max(1) as f64;
    line += &format!(
        "; cutoffs by the first move {:.1}%, mean move number of a cutoff {:.2}",
        get(Stat::FailHighFirst) as f64 * 100.0 / fail_high,
        get(Stat::FailHighMoveSum) as f64 / fail_high
    );
    line +=
        &format!("; mean correction {:.1} cp", get(Stat::CorrectionSum) as f64 / get(Stat::Corrected).max(1) as f64);
    eprintln!("{line}");
    for (name, table) in [("main", &MAIN_BY_PLY), ("qs", &QS_BY_PLY)] {
        let counts: Vec<String> = table.iter().map(|c| c.load(Ordering::Relaxed).to_string()).collect();
        eprintln!("stats by ply {name}: {}", counts.join(" "));
    }
}
