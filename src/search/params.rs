//! Every tunable search constant in one place.

/// Depth below which reverse futility pruning (static null move) applies.
pub const RFP_DEPTH: i32 = 8;
/// Reverse futility margin per ply of depth.
pub const RFP_MARGIN: i32 = 110;

/// Null move: minimum depth, base reduction, and depth divisor for the extra reduction.
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_R: i32 = 3;
pub const NMP_DEPTH_DIV: i32 = 3;
/// Eval margin above beta that adds one more ply of null-move reduction per this many cp.
pub const NMP_EVAL_DIV: i32 = 200;

/// Futility pruning of quiet moves: depth limit, base and per-depth margins.
pub const FUTILITY_DEPTH: i32 = 8;
pub const FUTILITY_BASE: i32 = 120;
pub const FUTILITY_PER_DEPTH: i32 = 130;

/// Late move pruning: quiets after `LMP_BASE + depth * depth * LMP_SCALE / 2` (improving: x2)
/// are skipped at shallow depth.
pub const LMP_DEPTH: i32 = 8;
pub const LMP_BASE: i32 = 3;
pub const LMP_SCALE: i32 = 1;

/// SEE pruning thresholds per ply of depth (quiet, capture).
pub const SEE_QUIET_MARGIN: i32 = -70;
pub const SEE_CAPTURE_MARGIN: i32 = -100;
pub const SEE_PRUNE_DEPTH: i32 = 8;

/// Late move reductions: `ln(depth) * ln(move_count) / LMR_DIV + LMR_BASE`.
pub const LMR_BASE: f64 = 0.4;
pub const LMR_DIV: f64 = 2.3;
/// History score that is worth one ply of reduction less.
pub const LMR_HISTORY_DIV: i32 = 8000;

/// Aspiration window: starting half-width and growth factor (percent).
pub const ASPIRATION_DELTA: i32 = 30;
pub const ASPIRATION_MIN_DEPTH: i32 = 5;

/// Quiescence: delta pruning margin over the captured piece's value.
pub const QS_DELTA_MARGIN: i32 = 200;

/// History update bonus: `min(HISTORY_BONUS_MUL * depth * depth, HISTORY_BONUS_MAX)`.
pub const HISTORY_BONUS_MUL: i32 = 16;
pub const HISTORY_BONUS_MAX: i32 = 1600;
/// History values stay within +-HISTORY_MAX (gravity).
pub const HISTORY_MAX: i32 = 16384;

/// Internal iterative reduction: depth from which a node without a TT move is searched one ply
/// shallower.
pub const IIR_DEPTH: i32 = 5;

/// Singular extension: minimum depth and margin per ply.
pub const SINGULAR_DEPTH: i32 = 7;
pub const SINGULAR_MARGIN: i32 = 2;

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
