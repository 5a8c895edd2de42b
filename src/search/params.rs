//! Every tunable search constant in one place.
//!
//! The pruning, reduction and ordering constants are functions (`rfp_margin()`): constants in
//! a normal build; with `--features tune` each reads a value that the environment variable
//! `HAYATE_TUNE` (`name=value,...`, the functions' names in any case) sets at start-up, so that
//! one binary can play every candidate of a tuning run. The defaults are the normal build's
//! values.

/// Declares the tunable constants: a function per constant, and the table `TUNABLES`.
macro_rules! tunables {
    ($($(#[$doc:meta])* $name:ident = $default:expr;)*) => {
        $(
            $(#[$doc])*
            #[inline(always)]
            pub fn $name() -> i32 {
                #[cfg(feature = "tune")]
                {
                    tuned::$name.load(std::sync::atomic::Ordering::Relaxed)
                }
                #[cfg(not(feature = "tune"))]
                {
                    $default
                }
            }
        )*

        /// Every tunable: its name (the function's) and its default.
        pub const TUNABLES: &[(&str, i32)] = &[$((stringify!($name), $default)),*];

        #[cfg(feature = "tune")]
        #[allow(non_upper_case_globals)]
        mod tuned {
            use std::sync::atomic::AtomicI32;
            $(pub static $name: AtomicI32 = AtomicI32::new($default);)*

            /// The value of the tunable named `name` (any case).
            pub fn find(name: &str) -> Option<&'static AtomicI32> {
                $(if name.eq_ignore_ascii_case(stringify!($name)) {
                    return Some(&$name);
                })*
                None
            }
        }
    };
}

tunables! {
    /// Depth below which reverse futility pruning (static null move) applies.
    rfp_depth = 14;
    /// Reverse futility margin per ply of depth.
    rfp_margin = 110;
    /// Null move: minimum depth, base reduction, and depth divisor for the extra reduction.
    nmp_min_depth = 3;
    nmp_base_r = 3;
    nmp_depth_div = 3;
    /// Eval margin above beta that adds one more ply of null-move reduction per this many cp.
    nmp_eval_div = 200;
    /// Futility pruning of quiet moves: depth limit, base and per-depth margins (YaneuraOu's
    /// 42 and 120; before 2026-12-07 120 and 130).
    futility_depth = 13;
    futility_base = 42;
    futility_per_depth = 120;
    /// Late move pruning: quiets after `LMP_BASE + depth * depth * LMP_SCALE / 2` (improving:
    /// x2) are skipped below `lmp_depth` (30: in effect at every depth, as YaneuraOu).
    lmp_depth = 30;
    lmp_base = 3;
    lmp_scale = 1;
    /// SEE pruning thresholds per ply of depth (quiet, capture), below this depth (the
    /// capture's YaneuraOu's -167; before 2026-12-07 -100).
    see_quiet_margin = -70;
    see_capture_margin = -167;
    see_prune_depth = 30;
    /// Late move reductions: `(LMR_BASE + ln(depth) ln(move_count) * 100 / LMR_DIV) / 100`
    /// plies (both in hundredths).
    lmr_base = 140;
    lmr_div = 230;
    /// History score that is worth one ply of reduction less.
    lmr_history_div = 14000;
    /// Plies less reduction at nodes on the table's PV (YaneuraOu about 3 to 6).
    lmr_tt_pv = 1;
    /// 1024ths of a ply less reduction per centipawn the correction history moves the node's
    /// static evaluation by: where the evaluation is unsure, moves are searched deeper (0: off;
    /// YaneuraOu and Stockfish about 5, a ply per 200).
    lmr_correction = 0;
    /// Extra reduction (plies) of late moves at cut nodes, and where the evaluation is not
    /// improving.
    lmr_cut_node = 1;
    lmr_not_improving = 1;
    /// Plies less reduction for checks and evasions (YaneuraOu: none).
    lmr_check = 1;
    /// Futility pruning of quiet moves judges the depth left after the late move reduction
    /// the move would get (1) instead of the node's depth (0).
    futility_lmr_depth = 1;
    /// Late move reductions in 1024ths of a ply (1) instead of whole plies (0), with the
    /// terms below (each in 1024ths; the whole-ply scheme uses lmr_cut_node, the `tt_pv`,
    /// check and not-improving plies and the history as above).
    lmr_fine = 0;
    /// Fine scheme: extra reduction at expected cut nodes, and at nodes where more than two
    /// earlier siblings' replies failed high; less at table-PV nodes; more where the
    /// evaluation is not improving; less for checks; less per move already searched.
    lmr_f_cut_node = 1024;
    lmr_f_cutoffs = 0;
    lmr_f_tt_pv = 1024;
    lmr_f_not_improving = 1024;
    lmr_f_check = 1024;
    lmr_f_move_count = 0;
    /// Fine scheme: the depth from which moves are reduced, and how far a reduction that
    /// comes out negative may extend the move instead (plies).
    lmr_f_min_depth = 3;
    lmr_f_max_extension = 0;
    /// Aspiration window: starting half-width, and the depth from which windows are used.
    aspiration_delta = 30;
    aspiration_min_depth = 5;
    /// Quiescence: delta pruning margin over the captured piece's value.
    qs_delta_margin = 200;
    /// History update bonus: `min(HISTORY_BONUS_MUL * depth * depth, HISTORY_BONUS_MAX)`.
    history_bonus_mul = 32;
    history_bonus_max = 4000;
    /// Internal iterative reduction: depth from which a node without a TT move is searched
    /// one ply shallower.
    iir_depth = 5;
    /// Singular extension: minimum depth and margin per ply (in 64ths of a centipawn per ply
    /// more at table-PV nodes outside the PV: `singular_margin_tt_pv`).
    singular_depth = 6;
    singular_margin = 2;
    singular_margin_tt_pv = 0;
    /// Multi-cut when the search without the table's move beats beta (1), or only when the
    /// singular bound itself is at or above beta (0).
    se_multicut_value = 1;
    /// Double singular extension (non-PV nodes): how far below the singular bound the other
    /// moves must fail (0: never), and how many a line may hold.
    se_double_margin = 0;
    se_double_limit = 6;
    /// Negative extension of a table move that is not singular but beats beta anyway (plies;
    /// 0: none; with it, `se_negative_cut` plies less at cut nodes).
    se_negative = 3;
    se_negative_cut = 2;
    /// Checks that do not lose material are extended a ply below this depth (0: never).
    check_ext_depth = 0;
    /// ... and from this depth on (0: from the leaves; Stockfish 15 extended only deep checks).
    check_ext_min_depth = 0;
    /// Singular and check extensions only where the ply is below this percentage of the
    /// iteration's depth (0: everywhere; Stockfish and YaneuraOu: 200).
    ext_ply_limit = 0;
    /// The network's output is a correction added to the linear evaluation (1: a network of
    /// `train --on-linear`), or the evaluation itself (0).
    nnue_on_linear = 0;
    /// Subtracted from the network's evaluation for the side to move (centipawns).
    nnue_offset = 0;
    /// A mate in one for the side to move is looked for at nodes the table does not know, not
    /// in check: in the main search (`mate1_main` 1) and in quiescence (`mate1_qs` 1).
    mate1_main = 0;
    mate1_qs = 0;
    /// Quiescence searches at most this many moves (one more at PV nodes) that neither
    /// recapture on the last move's square, nor promote, nor give check (0: no limit).
    qs_move_limit = 0;
    /// Quiescence in check: once an evasion has saved the king, further evasions are searched
    /// only if they capture (1), or all of them (0).
    qs_evasion_captures_only = 0;
    /// Late move pruning of quiet evasions (non-captures) in check (1) or none (0).
    lmp_evasions = 0;
    /// Quiet checks are pruned like other quiet moves: by late move pruning (bit 1), by
    /// futility (bit 2); otherwise only by exchange evaluation.
    prune_quiet_checks = 0;
    /// Continuation history of the move four plies back scores quiet moves (1) or not (0).
    cont_ply4 = 1;
    /// ProbCut: margin over beta (0: off) and minimum depth.
    probcut_margin = 0;
    probcut_depth = 5;
    /// One ply more reduction of quiet moves where the table's move is a capture (1) or not.
    lmr_tt_capture = 0;
    /// After a reduced search fails high, re-search a ply deeper when it beat the best value by
    /// this margin (+2 per ply), a ply shallower when barely (lmr_deeper 1), or as is (0).
    lmr_deeper = 0;
    lmr_deeper_margin = 50;
    /// The first move of a non-PV node is searched as an expected cut node below an expected
    /// all node, and the reverse (1), or never as a cut node (0).
    cut_node_first_child = 0;
    /// Null move only at expected cut nodes (1) or everywhere (0).
    nmp_cut_only = 0;
    /// Quiet moves whose history is below `-hist_prune * depth` are pruned where the depth
    /// after reduction is under 4 (0: never).
    hist_prune = 0;
    /// Quiet moves with a history score above `-quiet_sort_per_depth * depth` are sorted before
    /// the others, which keep their generation order (0: only those above 0 are sorted).
    quiet_sort_per_depth = 3560;
    /// Razoring below alpha by this margin times depth squared, at depth 3 and less (0: off).
    razor_margin = 0;
    /// Continuation histories per colour to move (1) or shared by both colours (0).
    cont_by_colour = 0;
    /// Continuation histories with squares seen from the mover's side and a half of their
    /// own for the opponent's last move against the side to move's earlier moves (1; this
    /// overrides `cont_by_colour`), or absolute squares shared by every slot (0).
    cont_relative = 0;
    /// Histories updated also at PV nodes whose best move raised alpha without a cutoff (1).
    hist_on_alpha = 0;
    /// A node that fails low rewards the quiet move that led to it, with this percentage of
    /// the usual bonus (0: never; Stockfish's prior countermove bonus).
    prior_quiet_bonus = 0;
    /// Helper thread `id` skips the iterations where `(depth + id) % helper_skip_period == 0`
    /// (0: every thread searches every depth).
    helper_skip_period = 0;
    /// The move played comes from the thread that wins a vote weighted by score and depth (1),
    /// or always from the main thread (0).
    smp_vote = 1;
    /// Root re-searches after a fail high go this many plies shallower per fail high in a row.
    asp_fail_high_reduce = 0;
    /// Aspiration windows start this much wider per thread id (modulo 8).
    asp_thread_spread = 0;
    /// Quiet moves that give check without losing more than 75 by SEE are ordered as if their
    /// history were this much higher (0: no bonus; YaneuraOu 16384); late move reductions
    /// still read the history alone.
    quiet_check_bonus = 0;
    /// Low-ply history: quiet moves within `LOW_PLY` plies of the root are ordered also by a
    /// table of this search alone, weighted `low_ply_history / 100 / (1 + ply)` (0: off;
    /// Stockfish and YaneuraOu 800).
    low_ply_history = 0;
    /// Weight of the butterfly history in a quiet move's score, against one for each
    /// continuation history (YaneuraOu and Stockfish: 2).
    quiet_main_weight = 2;
    /// Continuation histories of the moves three and six plies back also score quiet moves
    /// (1; with `cont_ply4`, the plies YaneuraOu reads: 1, 2, 3, 4, 6) or not (0).
    cont_more = 1;
    /// Captures are ordered by eight times the victim's value plus their capture history
    /// divided by this (YaneuraOu: seven times plus the history itself).
    capture_hist_div = 1;
    /// A capture counts as good (searched before the quiet moves) when it loses at most its
    /// ordering score divided by this by exchange evaluation (0: when it loses nothing;
    /// YaneuraOu 18).
    good_capture_see_div = 18;
    /// Quiet evasions are ordered by butterfly history plus the continuation history of the
    /// last move (1; YaneuraOu) or by butterfly history alone (0).
    evasion_cont = 1;
    /// Pawn-structure history: quiet moves are also scored by a table indexed by both sides'
    /// pawns and the move's piece and destination, with this weight (0: off; YaneuraOu 2).
    pawn_history = 2;
    /// Late move reductions of captures and promotions: at expected cut nodes only (0), at
    /// every node (1; YaneuraOu and Stockfish), or at every node for those that lose material
    /// by exchange evaluation and at cut nodes for the rest (2).
    lmr_tactical = 2;
    /// The root mate probes (`MATE_PROBE_PLY` below) run (1) or not (0).
    root_mate_probes = 1;
    /// Null move only where the static evaluation beats beta by this margin less this much
    /// per ply of depth (YaneuraOu: 378 and 16).
    nmp_static_margin = 0;
    nmp_static_per_depth = 0;
    /// YaneuraOu's pruning of quiet moves: the depth a quiet move is judged at (after its late
    /// move reduction) moves by its history score divided by this (0: off; then futility needs
    /// a history below 4000 and SEE pruning reads the node's depth). 5600: YaneuraOu's divisor
    /// scaled to hayate's history range (the default since 2026-12-07).
    fut_hist_div = 5600;
    /// Quiet futility margin terms (centipawns): added while no move has raised alpha, and
    /// where the static evaluation is above alpha (YaneuraOu 151 and 86).
    fut_no_best = 151;
    fut_eval_above = 86;
    /// Quiet moves lose at most this times the square of the depth they are judged at by
    /// exchange evaluation (0: `see_quiet_margin` per ply of the node's depth; YaneuraOu 25).
    see_quiet_lmr = 25;
    /// Quiet moves whose history score is below `-cont_prune * depth` are pruned (0: never;
    /// YaneuraOu's bar at hayate's scale 8000).
    cont_prune = 8000;
    /// Futility pruning of captures that do not check where the judged depth is below 7:
    /// `eval + cap_fut_base + cap_fut_per_depth * depth + victim + history/8` at most alpha
    /// (0: off; YaneuraOu 218 and 223).
    cap_fut_base = 218;
    cap_fut_per_depth = 223;
    /// The exchange margin of captures and checks grows by this many 1024ths of the capture
    /// history (YaneuraOu 34 of its own scale).
    cap_see_hist = 22;
    /// History updates after a cutoff: YaneuraOu's bonus and malus (1; linear in depth, the
    /// malus larger and decaying over the quiet moves tried), scaled by `hist_yo_pct`
    /// percent; or one quadratic amount for both (0, `history_bonus_mul`).
    hist_yo = 0;
    hist_yo_pct = 100;
    /// The two killers and the counter move are tried before the other quiet moves (1), or
    /// quiet moves are ordered by their histories alone (0; Stockfish and YaneuraOu).
    killer_moves = 1;
    /// Reverse futility pruning as YaneuraOu's (1: off the table's PV, only where the table's
    /// move is a capture or there is none, margin `(76 - 21 without a table entry) * depth`
    /// less for improving, returning `(2 beta + eval) / 3`; `rfp_depth` still bounds it), or
    /// `rfp_margin` per ply returning the evaluation (0).
    rfp_yo = 0;
    /// A table lower bound this far above beta, from at least four plies less than the node's
    /// depth, cuts the node (0: off; YaneuraOu's small ProbCut, 416).
    small_probcut = 0;
    /// A singular table move is extended by one to three plies and its node searched a ply
    /// deeper, as YaneuraOu (1), or by one ply (0, with `se_double_margin`).
    se_yo = 0;
    /// Every search starts from empty histories (bit 1) and correction tables (bit 2) instead
    /// of those the game's earlier searches left (0).
    fresh_search = 0;
    /// Percentage of the correction history's sum applied to the static evaluation.
    correction_pct = 100;
    /// Correction tables keyed by the last move together with the one before it (1; the
    /// default since 2026-12-08), and also with the one four plies back (2; Stockfish's and
    /// YaneuraOu's continuation correction history), or none (0).
    corr_cont = 1;
    /// The opponent's last quiet move earns butterfly history by how much the static
    /// evaluation swung against it (`clamp(-(its eval + ours), -214, 171) + 60`, times 10 times
    /// this percent; YaneuraOu's scale is 7183 where hayate's is 16384: 228), and its
    /// pawn-structure entry 1.2 times that where the table does not know the node (0: off).
    eval_diff_hist = 0;
    /// A node in check keeps the static evaluation of two plies up for its children's
    /// `improving` (1), instead of none (0).
    check_eval_gp = 0;
    /// A node reached by a reduction of at least three plies, where the opponent's position
    /// did not worsen, searches a ply deeper; by at least two, with both sides' evaluations
    /// summing above 173, a ply shallower (1; Stockfish's hindsight depth), or neither (0).
    prior_reduction_adjust = 0;
    /// A table cutoff above beta rewards the table's quiet move by `min(130 d - 71, 1043)`
    /// times this percent (and punishes the opponent's quiet move before it, tried among its
    /// first four, by 2142 times a quarter of it in its continuation histories, whose
    /// YaneuraOu scale is 30000); 0: off (YaneuraOu's amounts at hayate's scale: 228).
    tt_cut_hist = 0;
    /// A quiet move whose reduced search beats alpha earns this in its continuation
    /// histories (0: off; YaneuraOu 1426 of its scale).
    post_lmr_cont = 0;
    /// Table cutoffs as Stockfish's: a lower bound needs a deeper entry, and below depth 6
    /// only at expected cut nodes (an upper bound: at expected all nodes) (1), or any entry
    /// at least as deep (0).
    tt_cut_strict = 0;
    /// The threads of a search share one set of correction tables (1), as YaneuraOu and
    /// Stockfish, or each keeps its own (0).
    shared_correction = 0;
    /// Values above beta pulled towards it, as Stockfish's: quiescence's stand pat and
    /// fail-high values to `(value + beta) / 2` (bit 1), the main search's fail-high value to
    /// `(value * depth + beta) / (depth + 1)` (bit 2); 0: the values as searched.
    beta_pull = 0;
    /// A quiet move cut by futility raises the node's best value to its futility value (1),
    /// as YaneuraOu, so that a node whose moves are all cut fails low nearer alpha (0: no).
    futility_best_value = 0;
    /// Quiet checks are cut by the captures' exchange bar (1; `check_see_pct` percent of it),
    /// by the quiet moves' bar at their judged depth (2), or never by exchange evaluation (0).
    check_see_prune = 1;
    check_see_pct = 100;
    /// Quiescence's pruning as YaneuraOu's (1): a move that neither checks nor takes back on
    /// the last move's square only among the first two and where `qs_yo_margin` plus the
    /// victim's value may reach alpha (a cut one raises the best value to that), then captures
    /// losing more than `qs_yo_see`; or delta pruning by `qs_delta_margin` and no losing
    /// capture (0; the default before 2026-12-07).
    qs_yo = 1;
    qs_yo_margin = 328;
    qs_yo_see = 73;
    /// With `qs_yo`, YaneuraOu's rule for every move (1; the default since 2026-12-07): once
    /// the best value is not a loss, only captures (no quiet evasion, no promotion without a
    /// capture), in check too held to `qs_yo_see`; or only for the moves out of check (0).
    qs_yo_all = 1;
    /// A node searched deeper than 3 that fails low, below a node on the table's PV, is stored
    /// as on the table's PV too (1; Stockfish), or as it was found (0).
    tt_pv_inherit = 0;
    /// Continuation histories updated with a weight per earlier move (1: Stockfish's, in
    /// 1024ths: one ply back 1108, two 652, three 273, four 572, six 449) or all with the
    /// whole bonus (0).
    cont_slot_weights = 0;
}

/// Sets the tunables named in `spec` (`name=value,...`, as `HAYATE_TUNE` holds it). Returns
/// the names that were set, or what is wrong. Without the `tune` feature nothing can be set.
pub fn set_tunables(spec: &str) -> Result<Vec<String>, String> {
    let mut items = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (name, value) = item.split_once('=').ok_or_else(|| format!("'{item}' is not name=value"))?;
        let value: i32 = value.trim().parse().map_err(|_| format!("'{item}': not an integer"))?;
        items.push((name.trim().to_ascii_lowercase(), value));
    }
    #[cfg(not(feature = "tune"))]
    if let Some((name, _)) = items.first() {
        return Err(format!("'{name}': this build has no tunables (build with --features tune)"));
    }
    #[cfg(feature = "tune")]
    for (name, value) in &items {
        let slot = tuned::find(name).ok_or_else(|| format!("no tunable named '{name}'"))?;
        slot.store(*value, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(items.into_iter().map(|(name, _)| name).collect())
}

/// Late move reductions are computed in 1/LMR_GRAIN plies.
pub const LMR_GRAIN: i32 = 1024;

/// Entries (pawn structures) of the pawn-structure history (`pawn_history`).
pub const PAWN_HISTORY_SIZE: usize = 512;

/// Plies from the root that the low-ply history (`low_ply_history`) covers.
pub const LOW_PLY: usize = 5;

/// History values stay within +-HISTORY_MAX (gravity).
pub const HISTORY_MAX: i32 = 16384;

/// Mate probes at the root (main thread, single-PV searches): a df-pn search for a short
/// checkmate (at most `MATE_PROBE_PLY` plies). Before the first iteration for the side to
/// move (a mate found is played at once); from `REFUTE_MIN_DEPTH` on, for the opponent after
/// every move that becomes the best at the root (a move that allows a mate scores as mated).
/// The main search misses long checking sequences with drops at its horizon.
pub const MATE_PROBE_PLY: u16 = 15;
pub const OWN_MATE_NODES: u64 = 6000;
/// A mate found for the side to move is then shortened (as `go mate` does) with up to this
/// many more nodes, so that `go` reports and plays the shortest mate it can prove.
pub const OWN_MATE_SHORTEN_NODES: u64 = 60_000;
/// On a tsume position (a side without a king: a problem, not a game) the probe for the side
/// to move's mate may look further and longer, since finding the mate is the point.
pub const TSUME_PROBE_PLY: u16 = 31;
pub const TSUME_PROBE_NODES: u64 = 300_000;
pub const REFUTE_MATE_NODES: u64 = 3000;
pub const REFUTE_MIN_DEPTH: i32 = 3;
/// The probes' table (MiB).
pub const MATE_PROBE_MIB: usize = 1;

/// Correction history (`correction.rs`): entries are bounded by +-CORRECTION_LIMIT (gravity),
/// one update moves an entry by at most CORRECTION_MAX_BONUS, and the sum of a position's
/// entries divided by CORRECTION_GRAIN is added to its static evaluation (centipawns).
pub const CORRECTION_LIMIT: i32 = 1024;
pub const CORRECTION_MAX_BONUS: i32 = 256;
pub const CORRECTION_GRAIN: i32 = 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tunables_are_named_once_and_their_spec_is_checked() {
        let mut names: Vec<&str> = TUNABLES.iter().map(|t| t.0).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TUNABLES.len());
        assert!(TUNABLES.contains(&("rfp_margin", rfp_margin())));
        assert_eq!(set_tunables(" , "), Ok(Vec::new()));
        assert!(set_tunables("rfp_margin").is_err());
        assert!(set_tunables("rfp_margin=ten").is_err());
        #[cfg(not(feature = "tune"))]
        {
            assert!(set_tunables("RFP_MARGIN=111").is_err());
            assert_eq!(rfp_margin(), 110);
        }
        #[cfg(feature = "tune")]
        {
            assert!(set_tunables("no_such_constant=1").is_err());
            assert_eq!(set_tunables("SINGULAR_MARGIN=3"), Ok(vec!["singular_margin".to_string()]));
            assert_eq!(singular_margin(), 3);
            set_tunables("singular_margin=2").unwrap();
        }
    }
}
