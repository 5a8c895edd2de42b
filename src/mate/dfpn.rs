//! Depth-first proof-number search (Nagai's df-pn) with a bound on the mate length.
//!
//! OR nodes: the attacker to move; children are all legal checking moves (captures,
//! non-promotions and drops included). AND nodes: the defender in check; children are all
//! legal replies, useless interpositions included. A node is searched with `rem`, the plies
//! still allowed; "no mate within `rem`" is a disproof at that bound, and the table keeps
//! proofs and disproofs with their lengths so that one table serves every bound.
//!
//! Every attacker node first tries `mate_in_one`, and a defender node probes each new reply
//! with it, so the last two plies of every line cost one probe. Proof and disproof numbers
//! start at 1; AND nodes use weak proof numbers (see `summarize`), and the child's threshold
//! lets it grow past the runner-up by a quarter before the search switches.
//!
//! Repetitions: a position already on the current path is disproven for the attacker (a mate
//! never needs a cycle). Such a disproof depends on the path, so it is marked and never
//! stored; neither is any disproof that relies on one. Results kept in the table therefore
//! hold whatever path leads to a position, which makes disproofs exact (no graph-history
//! errors), and proofs never depend on the path at all. Only the first search, bounded by the
//! ply cap alone, needs this: it is what lets a perpetual chase count as no mate. The shorter
//! bounded searches that follow end by themselves and run without it, so all they find can
//! be stored.

use super::checks::generate_checks;
use super::mate1::mate_in_one;
use super::table::{INFINITE_DEPTH, Known, MateTable, TableKey};
use crate::shogi::{Color, Move, MoveList, Position, generate_legal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Proof or disproof number of a settled node.
const INF: u32 = u32::MAX;
/// Largest unsettled number; numbers saturate here.
const CAP: u32 = u32::MAX - 1;
/// Nodes between two looks at the clock and the stop flag.
const POLL_INTERVAL: u64 = 1024;
/// The chosen child may grow to (1 + 1/this) times the runner-up's number (see `beyond`).
const SWITCH_SLACK_DIVISOR: u32 = 4;
/// An attacker node without a mate in one has no mate within this many plies.
const NO_MATE_WITHOUT_MATE_IN_ONE: u16 = 2;
/// A defender node with a legal reply has no mate within this many plies.
const NO_MATE_WITH_A_REPLY: u16 = 1;

/// Proof and disproof numbers of a node, with what a settled node proved.
#[derive(Clone, Copy, Debug)]
pub(super) struct NodeValue {
    pub pn: u32,
    pub dn: u32,
    /// Proven: plies to mate.
    pub len: u16,
    /// Disproven: no mate within this many plies (`INFINITE_DEPTH`: none at all).
    pub depth: u16,
    /// Disproven only because of a repetition on the current path.
    pub path_dependent: bool,
}

impl NodeValue {
    fn proven(len: u16) -> NodeValue {
        NodeValue { pn: 0, dn: INF, len, depth: 0, path_dependent: false }
    }

    fn disproven(depth: u16, path_dependent: bool) -> NodeValue {
        NodeValue { pn: INF, dn: 0, len: 0, depth, path_dependent }
    }

    fn open(pn: u32, dn: u32) -> NodeValue {
        NodeValue { pn: pn.clamp(1, CAP), dn: dn.clamp(1, CAP), len: 0, depth: 0, path_dependent: false }
    }

    fn from_known(k: Known) -> NodeValue {
        match k {
            Known::Proven { len } => NodeValue::proven(len),
            Known::Disproven { depth } => NodeValue::disproven(depth, false),
            Known::Open { pn, dn } => NodeValue::open(pn, dn),
        }
    }

    pub fn is_proven(&self) -> bool {
        self.pn == 0
    }

    pub fn is_disproven(&self) -> bool {
        self.dn == 0
    }

    pub fn is_settled(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

/// One more ply on top of a length bound (`INFINITE_DEPTH` stays infinite).
fn plus_one(depth: u16) -> u16 {
    if depth == INFINITE_DEPTH { depth } else { depth.saturating_add(1).min(INFINITE_DEPTH - 1) }
}

#[derive(Clone, Copy)]
struct Child {
    mv: Move,
    /// Full key of the position after the move (for repetitions).
    key: u64,
    v: NodeValue,
}

/// Limits of one phase of the search.
#[derive(Clone, Copy)]
pub(super) struct Budget {
    pub node_limit: u64,
    pub deadline: Option<Instant>,
    pub honour_stop: bool,
}

pub(super) struct Dfpn<'a> {
    table: &'a mut MateTable,
    /// The side that mates (the side to move at the root).
    attacker: Color,
    stop: &'a AtomicBool,
    pub nodes: u64,
    budget: Budget,
    aborted: bool,
    /// Keys of the positions from the root to the current node (inclusive).
    path: Vec<u64>,
    /// Children of every node on the path, node after node (one allocation for the search).
    children: Vec<Child>,
    /// Whether a position repeated on the path counts as no mate (see the module notes).
    detect_repetition: bool,
}

impl<'a> Dfpn<'a> {
    pub fn new(table: &'a mut MateTable, stop: &'a AtomicBool, attacker: Color) -> Dfpn<'a> {
        Dfpn {
            table,
            attacker,
            stop,
            nodes: 0,
            budget: Budget { node_limit: u64::MAX, deadline: None, honour_stop: true },
            aborted: false,
            path: Vec::with_capacity(256),
            children: Vec::with_capacity(4096),
            detect_repetition: true,
        }
    }

    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
        self.aborted = false;
    }

    /// Permille of the table in use (USI `hashfull`).
    pub fn hashfull(&self) -> usize {
        self.table.hashfull()
    }

    pub fn set_repetition_detection(&mut self, on: bool) {
        self.detect_repetition = on;
    }

    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// What the table knows about the position after `m`, for a search allowed `rem` plies.
    pub fn lookup_after(&self, pos: &Position, m: Move, rem: u16) -> Option<Known> {
        self.table.lookup(self.table_key_after(pos, m).1, rem)
    }

    fn table_key(&self, pos: &Position) -> TableKey {
        TableKey { board: pos.board_key(), hand: pos.hand(self.attacker) }
    }

    /// Full key and table key of the position after `m`.
    fn table_key_after(&self, pos: &Position, m: Move) -> (u64, TableKey) {
        let (board, hand_key) = pos.keys_after(m);
        let mut hand = pos.hand(self.attacker);
        if pos.side_to_move() == self.attacker {
            if m.is_drop() {
                hand.remove(m.drop_kind());
            } else {
                let captured = pos.piece_on(m.to());
                if !captured.is_empty() {
                    hand.add(captured.kind().unpromote());
                }
            }
        }
        (board ^ hand_key, TableKey { board, hand })
    }

    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes >= self.budget.node_limit {
            self.aborted = true;
        } else if self.nodes.is_multiple_of(POLL_INTERVAL) {
            if self.budget.honour_stop && self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
            if self.budget.deadline.is_some_and(|d| Instant::now() >= d) {
                self.aborted = true;
            }
        }
    }

    /// Searches `pos` (an attacker node when `or`) until it is settled within `rem` plies or
    /// the budget runs out. `pos` must be the last position of `path` (see `enter`).
    pub fn prove(&mut self, pos: &mut Position, or: bool, rem: u16) -> NodeValue {
        self.mid(pos, or, rem, CAP, CAP)
    }

    /// Makes `pos` the root of the current path.
    pub fn reset_path(&mut self, pos: &Position) {
        self.path.clear();
        self.path.push(pos.key());
    }

    /// Plays `m` and extends the path.
    pub fn enter(&mut self, pos: &mut Position, m: Move) {
        pos.do_move(m);
        self.path.push(pos.key());
    }

    pub fn leave(&mut self, pos: &mut Position, m: Move) {
        self.path.pop();
        pos.undo_move(m);
    }

    fn mid(&mut self, pos: &mut Position, or: bool, rem: u16, thpn: u32, thdn: u32) -> NodeValue {
        let key = self.table_key(pos);
        let start_nodes = self.nodes;
        self.count_node();
        let base = self.children.len();
        let expanded = if or { self.expand_or(pos, rem) } else { self.expand_and(pos, rem) };
        if let Some(v) = expanded {
            self.children.truncate(base);
            self.store(key, v, self.nodes - start_nodes);
            return v;
        }
        let end = self.children.len();
        let child_rem = rem - 1;
        let mut value;
        // Children's numbers change only when searched (a transposition elsewhere in the tree
        // is picked up the next time this node is expanded), so no table reads in the loop.
        loop {
            let Summary { pn, dn, best, second, open } = summarize(or, &self.children[base..end]);
            value = NodeValue::open(pn, dn);
            if pn == 0 || dn == 0 {
                value.pn = pn;
                value.dn = dn;
                break;
            }
            if pn >= thpn || dn >= thdn || self.aborted {
                break;
            }
            let c = self.children[base + best];
            // Thresholds of the chosen child: a little past the runner-up on its own side; on
            // the other side up to where the node would reach its own threshold (OR: the
            // siblings' dns add to the child's; AND: the largest pn plus one per other open
            // child).
            let (cthpn, cthdn) = if or {
                (thpn.min(beyond(second)), thdn - (dn - c.v.dn))
            } else {
                (thpn - (open - 1), thdn.min(beyond(second)))
            };
            pos.do_move(c.mv);
            self.path.push(c.key);
            let v = self.mid(pos, !or, child_rem, cthpn, cthdn);
            self.path.pop();
            pos.undo_move(c.mv);
            self.children[base + best].v = v;
        }
        let value = if value.is_settled() { settle(or, &self.children[base..end]) } else { value };
        self.children.truncate(base);
        if !self.aborted || value.is_settled() {
            self.store(key, value, self.nodes - start_nodes);
        }
        value
    }

    fn store(&mut self, key: TableKey, v: NodeValue, work: u64) {
        if v.is_proven() {
            self.table.store_proof(key, v.len, work);
        } else if v.is_disproven() {
            if !v.path_dependent {
                self.table.store_disproof(key, v.depth, work);
            }
        } else {
            self.table.store_open(key, v.pn, v.dn, work);
        }
    }

    fn on_path(&self, key: u64) -> bool {
        self.detect_repetition && self.path.contains(&key)
    }

    /// Settles the attacker node at once when it can (mate in one, no check, out of plies);
    /// otherwise pushes its children.
    #[inline(never)]
    fn expand_or(&mut self, pos: &mut Position, rem: u16) -> Option<NodeValue> {
        let key = self.table_key(pos);
        if rem == 0 {
            return Some(NodeValue::disproven(0, false));
        }
        // The table remembers a failed mate-in-one probe, so a node is probed once.
        if self.table.disproof_depth(key) < NO_MATE_WITHOUT_MATE_IN_ONE {
            if mate_in_one(pos).is_some() {
                return Some(NodeValue::proven(1));
            }
            self.table.store_disproof(key, NO_MATE_WITHOUT_MATE_IN_ONE, 1);
        }
        if rem <= NO_MATE_WITHOUT_MATE_IN_ONE {
            return Some(NodeValue::disproven(NO_MATE_WITHOUT_MATE_IN_ONE, false));
        }
        let mut list = MoveList::new();
        generate_checks(pos, &mut list);
        let base = self.children.len();
        for &m in &list {
            let (ckey, tkey) = self.table_key_after(pos, m);
            let v = if self.on_path(ckey) {
                NodeValue::disproven(INFINITE_DEPTH, true)
            } else {
                self.table.lookup(tkey, rem - 1).map_or(NodeValue::open(1, 1), NodeValue::from_known)
            };
            self.children.push(Child { mv: m, key: ckey, v });
        }
        let children = &self.children[base..];
        if children.is_empty() {
            return Some(NodeValue::disproven(INFINITE_DEPTH, false));
        }
        if children.iter().any(|c| c.v.is_proven()) {
            let settled = settle(true, children);
            self.children.truncate(base);
            return Some(settled);
        }
        None
    }

    /// Settles the defender node at once when it can (no reply, out of plies); otherwise
    /// pushes its replies, probing each unknown one for a mate in one.
    #[inline(never)]
    fn expand_and(&mut self, pos: &mut Position, rem: u16) -> Option<NodeValue> {
        let mut list = MoveList::new();
        generate_legal(pos, &mut list);
        if list.is_empty() {
            return Some(NodeValue::proven(0));
        }
        if rem <= NO_MATE_WITH_A_REPLY {
            return Some(NodeValue::disproven(NO_MATE_WITH_A_REPLY, false));
        }
        let child_rem = rem - 1;
        let base = self.children.len();
        let mut repeats = false;
        // King moves come first in the list: they are the likeliest escapes, and one reply
        // that holds settles the node at once.
        for &m in &list {
            let (ckey, tkey) = self.table_key_after(pos, m);
            let v = if self.on_path(ckey) {
                repeats = true;
                NodeValue::disproven(INFINITE_DEPTH, true)
            } else if let Some(k) = self.table.lookup(tkey, child_rem) {
                NodeValue::from_known(k)
            } else {
                self.count_node();
                pos.do_move(m);
                let mate = mate_in_one(pos);
                pos.undo_move(m);
                match mate {
                    Some(_) => {
                        self.table.store_proof(tkey, 1, 1);
                        NodeValue::proven(1)
                    }
                    None => {
                        self.table.store_disproof(tkey, NO_MATE_WITHOUT_MATE_IN_ONE, 1);
                        if child_rem <= NO_MATE_WITHOUT_MATE_IN_ONE {
                            NodeValue::disproven(NO_MATE_WITHOUT_MATE_IN_ONE, false)
                        } else {
                            NodeValue::open(1, 1)
                        }
                    }
                }
            };
            if v.is_disproven() && !v.path_dependent {
                self.children.truncate(base);
                return Some(NodeValue::disproven(plus_one(v.depth), false));
            }
            self.children.push(Child { mv: m, key: ckey, v });
        }
        if repeats {
            self.children.truncate(base);
            return Some(NodeValue::disproven(INFINITE_DEPTH, true));
        }
        None
    }
}

/// The threshold that lets the chosen child grow somewhat past the runner-up before the search
/// switches (the "1 + epsilon" trick): switching back and forth between two children whose
/// numbers grow by one at a time costs a re-expansion of the whole path each time.
fn beyond(second: u32) -> u32 {
    second.saturating_add(second / SWITCH_SLACK_DIVISOR).saturating_add(1).min(CAP)
}

/// The node's numbers from its children, and which child to search next.
struct Summary {
    pn: u32,
    dn: u32,
    /// The child closest to settling the node (least pn at OR, least dn at AND).
    best: usize,
    /// The runner-up's number, which bounds how far the best child may go.
    second: u32,
    /// Children that are still open (each adds to an AND node's pn).
    open: u32,
}

/// OR: pn = least child pn, dn = sum of the child dns. AND: dn = least child dn, and pn
/// follows weak proof numbers (Ueda et al.): the largest child pn plus one per other open
/// child. A sum counts a position once per path that reaches it, and the proof numbers of
/// drop-heavy problems (interpositions on several squares, in several orders) then grow
/// exponentially until they saturate and stall the search. Disproof numbers summed at OR nodes
/// did not show this and guide the search better (the hardest public problem takes half the
/// nodes).
fn summarize(or: bool, children: &[Child]) -> Summary {
    let mut best = 0;
    let mut first = INF;
    let mut second = INF;
    let mut largest = 0u32;
    let mut sum = 0u64;
    let mut open = 0u32;
    for (i, c) in children.iter().enumerate() {
        let (mine, other) = if or { (c.v.pn, c.v.dn) } else { (c.v.dn, c.v.pn) };
        if !c.v.is_settled() {
            open += 1;
        }
        if other != INF {
            largest = largest.max(other);
            sum += other as u64;
        }
        if mine < first {
            second = first;
            first = mine;
            best = i;
        } else if mine < second {
            second = mine;
        }
    }
    // first == 0: settled in the node's favour of `mine`; no open child: settled the other way.
    let other = if first == 0 {
        INF
    } else if open == 0 {
        0
    } else if or {
        sum.min(CAP as u64) as u32
    } else {
        largest.saturating_add(open - 1).min(CAP)
    };
    let (pn, dn) = if or { (first, other) } else { (other, first) };
    Summary { pn, dn, best, second, open }
}

/// The settled value of a node whose children decide it.
fn settle(or: bool, children: &[Child]) -> NodeValue {
    let proven = children.iter().filter(|c| c.v.is_proven());
    let disproven = children.iter().filter(|c| c.v.is_disproven());
    if or {
        if let Some(len) = proven.map(|c| c.v.len).min() {
            return NodeValue::proven(len + 1);
        }
        let depth = disproven.clone().map(|c| c.v.depth).min().unwrap_or(INFINITE_DEPTH);
        let path_dependent = disproven.into_iter().any(|c| c.v.path_dependent);
        NodeValue::disproven(plus_one(depth), path_dependent)
    } else {
        // The defender's best disproof: one that holds on every path if there is one.
        if let Some(c) = disproven.max_by_key(|c| (!c.v.path_dependent, c.v.depth)) {
            return NodeValue::disproven(plus_one(c.v.depth), c.v.path_dependent);
        }
        let len = proven.map(|c| c.v.len).max().unwrap_or(0);
        NodeValue::proven(len + 1)
    }
}
