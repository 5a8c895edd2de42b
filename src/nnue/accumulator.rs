//! The feature transformer's accumulators and their incremental update along a search path.
//!
//! An accumulator holds, per perspective (indexed by colour, not by side to move), the 256
//! bias-plus-weights sums of the active features, in wrapping 16-bit arithmetic like the
//! reference. Wrapping addition is associative, so a sum updated move by move equals the sum
//! recomputed from scratch, exactly.
//!
//! `AccumulatorStack` keeps one node per ply. `push` records what a move changes (at most two
//! pieces: the mover, and a captured piece going into a hand) without computing anything;
//! `evaluate` brings the current node up to date lazily, from the nearest ancestor already
//! computed, and rebuilds a perspective only when its own king moved since (from the refresh
//! cache's sums for that king square).

use super::arch::FeatureSet;
use super::backend::Backend;
use super::dims::AlignedVec;
use super::features::{self, KingView, Slot, feature_of, relative_square};
use super::forward::{DEFAULT_FV_SCALE, ForwardBuffers, scale_output};
use super::network::Network;
use super::refresh_cache::RefreshCache;
use super::transformer;
use crate::shogi::{Color, Move, Piece, PieceType, Position};

/// Both perspectives' transformer sums (the first half Black's, the second White's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    values: AlignedVec<i16>,
}

impl Accumulator {
    fn zeroed(half: usize) -> Accumulator {
        Accumulator { values: AlignedVec::zeroed(2 * half) }
    }

    fn half(&self) -> usize {
        self.values.len() / 2
    }

    /// The sums of `perspective` (the transformer's width).
    #[inline]
    pub fn values(&self, perspective: Color) -> &[i16] {
        let half = self.half();
        &self.values.as_slice()[perspective.index() * half..][..half]
    }

    #[inline]
    fn values_mut(&mut self, perspective: Color) -> &mut [i16] {
        let half = self.half();
        &mut self.values.as_mut_slice()[perspective.index() * half..][..half]
    }

    /// Computes both perspectives from scratch. `None` when `can_evaluate(pos)` fails.
    pub fn refreshed(backend: Backend, pos: &Position, net: &Network) -> Option<Accumulator> {
        let mut acc = Accumulator::zeroed(net.arch.half);
        for p in Color::ALL {
            refresh_from_biases(backend, pos, p, net, acc.values_mut(p))?;
        }
        Some(acc)
    }
}

/// Perspective `p`'s sums for `pos` from the biases and all its active features.
fn refresh_from_biases(backend: Backend, pos: &Position, p: Color, net: &Network, out: &mut [i16]) -> Option<()> {
    let active = features::active_features_of(net.arch.features, pos, p)?;
    transformer::update_accumulator(backend, net.ft_biases.as_slice(), out, net.ft_weights.as_slice(), &[], &active);
    Some(())
}

impl Network {
    /// Raw output of the network after the dense layers for an accumulator, from the side to
    /// move's point of view (for benchmarks and tests of the layers alone).
    /// (Its buffers are the calling thread's; the search's stacks keep their own.)
    /// `stack`: the layer stack (0 for classic networks; `layer_stack` of the position).
    pub fn propagate_accumulator(&self, backend: Backend, acc: &Accumulator, side_to_move: Color, stack: usize) -> i32 {
        thread_local! {
            static BUFFERS: std::cell::RefCell<ForwardBuffers> = std::cell::RefCell::new(ForwardBuffers::new());
        }
        BUFFERS.with_borrow_mut(|buffers| {
            self.propagate(backend, acc.values(side_to_move), acc.values(!side_to_move), stack, buffers)
        })
    }

    /// Evaluation of `pos` from the side to move's point of view, computed from scratch (no
    /// accumulator stack), as the reference's `e` command prints it. `None` when
    /// `can_evaluate(pos)` fails.
    pub fn evaluate(&self, pos: &Position, fv_scale: i32) -> Option<i32> {
        self.evaluate_with(Backend::detect(), pos, fv_scale)
    }

    /// `evaluate` with a chosen backend.
    pub fn evaluate_with(&self, backend: Backend, pos: &Position, fv_scale: i32) -> Option<i32> {
        let acc = Accumulator::refreshed(backend, pos, self)?;
        let raw = self.propagate_accumulator(backend, &acc, pos.side_to_move(), self.layer_stack(pos));
        Some(scale_output(raw, fv_scale))
    }
}

/// One changed piece: where it was and where it is (its features follow from each
/// perspective's king).
#[derive(Clone, Copy, Debug)]
struct PieceChange {
    removed: Slot,
    added: Slot,
}

impl Default for PieceChange {
    fn default() -> Self {
        let nothing = Slot::Hand(Color::Black, PieceType::Pawn, 0);
        PieceChange { removed: nothing, added: nothing }
    }
}

/// One ply of the stack.
#[derive(Clone)]
struct Node {
    acc: Accumulator,
    /// Whether `acc` is up to date, per perspective.
    computed: [bool; 2],
    /// The perspective's own king moved into this node.
    king_moved: [bool; 2],
    /// Relative square of each perspective's own king at this node.
    king: [u16; 2],
    /// What the move into this node changed (a null move changes nothing).
    changes: [PieceChange; 2],
    num_changes: u8,
    /// HalfKPE9: the active features of each perspective at this node, once listed (its
    /// features change with the attacks, not only with the moved pieces, so a node is brought
    /// up to date by the difference of two lists). Allocated at the first use, by HalfKPE9
    /// networks only.
    lists: Option<Box<[features::E9Features; 2]>>,
    listed: bool,
}

impl Node {
    fn new(half: usize) -> Node {
        Node {
            acc: Accumulator::zeroed(half),
            computed: [false; 2],
            king_moved: [false; 2],
            king: [0; 2],
            changes: [PieceChange::default(); 2],
            num_changes: 0,
            lists: None,
            listed: false,
        }
    }
}

/// Per-thread stack of accumulators following the search (see the module documentation of
/// `nnue` for the calling pattern). Allocates only when a path grows deeper than any before.
#[derive(Clone)]
pub struct AccumulatorStack {
    nodes: Vec<Node>,
    /// Number of nodes in use (the root is node 0); always at least 1.
    len: usize,
    backend: Backend,
    fv_scale: i32,
    /// Whether the root passed `can_evaluate` (kings and piece counts never change below it).
    evaluable: bool,
    /// Id of the network the computed accumulators belong to.
    network_id: u64,
    /// That network's feature set.
    features: FeatureSet,
    /// Sums last computed for each king square, to rebuild a perspective after a king move.
    refresh_cache: RefreshCache,
    /// The forward pass's buffers.
    buffers: ForwardBuffers,
}

impl Default for AccumulatorStack {
    fn default() -> Self {
        AccumulatorStack::new()
    }
}

impl AccumulatorStack {
    /// Room for this many plies without allocating (deeper paths grow the stack once).
    const INITIAL_CAPACITY: usize = 256;

    /// A stack using the fastest backend of this CPU and FV_SCALE 16.
    pub fn new() -> AccumulatorStack {
        AccumulatorStack::with_backend(Backend::detect())
    }

    pub fn with_backend(backend: Backend) -> AccumulatorStack {
        let mut nodes = Vec::with_capacity(Self::INITIAL_CAPACITY);
        nodes.resize_with(Self::INITIAL_CAPACITY, || Node::new(0));
        AccumulatorStack {
            nodes,
            len: 1,
            backend,
            fv_scale: DEFAULT_FV_SCALE,
            evaluable: false,
            network_id: 0,
            features: FeatureSet::HalfKp,
            refresh_cache: RefreshCache::new(),
            buffers: ForwardBuffers::new(),
        }
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Divisor of the network output (the reference's FV_SCALE option, 1..=128, default 16).
    pub fn set_fv_scale(&mut self, fv_scale: i32) {
        self.fv_scale = fv_scale.clamp(1, 128);
    }

    pub fn fv_scale(&self) -> i32 {
        self.fv_scale
    }

    /// Number of plies pushed above the root.
    pub fn depth(&self) -> usize {
        self.len - 1
    }

    /// Starts from a new root position; nothing is computed until `evaluate`.
    pub fn reset(&mut self, root: &Position) {
        self.len = 1;
        self.evaluable = features::can_evaluate(root);
        let node = &mut self.nodes[0];
        node.computed = [false; 2];
        node.king_moved = [true; 2];
        node.num_changes = 0;
        node.listed = false;
        for p in Color::ALL {
            node.king[p.index()] = features::king_bucket(root, p).unwrap_or(0) as u16;
        }
    }

    /// Whether the root given to `reset` can be evaluated (else `evaluate` returns `None`).
    pub fn is_evaluable(&self) -> bool {
        self.evaluable
    }

    fn next_node(&mut self) -> &mut Node {
        if self.len == self.nodes.len() {
            let half = self.nodes[0].acc.half();
            self.nodes.push(Node::new(half));
        }
        let (king, len) = (self.nodes[self.len - 1].king, self.len);
        self.len += 1;
        let node = &mut self.nodes[len];
        node.computed = [false; 2];
        node.king_moved = [false; 2];
        node.king = king;
        node.num_changes = 0;
        node.listed = false;
        node
    }

    /// Records move `m`, to be called with the position *before* `do_move(m)`; `m` must be
    /// legal there.
    pub fn push(&mut self, before: &Position, m: Move) {
        let us = before.side_to_move();
        let to = m.to();
        let node = self.next_node();
        if m.is_drop() {
            let pt = m.drop_kind();
            let nth = before.hand(us).count(pt).saturating_sub(1) as u8;
            node.changes[0] =
                PieceChange { removed: Slot::Hand(us, pt, nth), added: Slot::Board(Piece::new(us, pt), to) };
            node.num_changes = 1;
            return;
        }
        let from = m.from();
        let pc = before.piece_on(from);
        if pc.is_empty() {
            // Not a move of this position (a caller's mistake): record nothing rather than fail.
            return;
        }
        if pc.kind() == PieceType::King {
            // HalfKP and its kin key all of the mover's features by its king square: they are
            // recomputed. K+P only moves the king's own feature.
            node.king_moved[us.index()] = true;
            node.king[us.index()] = relative_square(us, to) as u16;
            node.changes[0] = PieceChange { removed: Slot::King(us, from), added: Slot::King(us, to) };
        } else {
            let moved = if m.is_promotion() { Piece::new(us, pc.kind().promote()) } else { pc };
            node.changes[0] = PieceChange { removed: Slot::Board(pc, from), added: Slot::Board(moved, to) };
        }
        let mut n = 1;
        let captured = before.piece_on(to);
        if !captured.is_empty() {
            let hand_kind = captured.kind().unpromote();
            let nth = before.hand(us).count(hand_kind) as u8;
            node.changes[1] = PieceChange { removed: Slot::Board(captured, to), added: Slot::Hand(us, hand_kind, nth) };
            n = 2;
        }
        node.num_changes = n;
    }

    /// Records a null move (nothing changes but the side to move).
    pub fn push_null(&mut self) {
        self.next_node();
    }

    /// Takes back the last `push` or `push_null` (at the root it does nothing).
    pub fn pop(&mut self) {
        if self.len > 1 {
            self.len -= 1;
        }
    }

    /// Evaluation of `pos` (the position the stack has reached) from the side to move's point
    /// of view, as the reference computes it. `None` when the root was not evaluable.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position, net: &Network) -> Option<i32> {
        self.evaluate_raw(pos, net).map(|raw| scale_output(raw, self.fv_scale))
    }

    /// The network output before the division by FV_SCALE.
    pub fn evaluate_raw(&mut self, pos: &Position, net: &Network) -> Option<i32> {
        let backend = self.backend;
        self.accumulator(pos, net)?;
        let acc = &self.nodes[self.len - 1].acc;
        let (us, them) = (acc.values(pos.side_to_move()), acc.values(!pos.side_to_move()));
        Some(net.propagate(backend, us, them, net.layer_stack(pos), &mut self.buffers))
    }

    /// The current node's accumulator, brought up to date.
    pub fn accumulator(&mut self, pos: &Position, net: &Network) -> Option<&Accumulator> {
        if !self.evaluable {
            return None;
        }
        if self.network_id != net.id {
            // Sums computed with another network are worthless, and its width may differ.
            let half = net.arch.half;
            for node in &mut self.nodes {
                node.computed = [false; 2];
                node.listed = false;
                if node.acc.half() != half {
                    node.acc = Accumulator::zeroed(half);
                }
            }
            self.network_id = net.id;
            self.features = net.arch.features;
        }
        for p in Color::ALL {
            self.bring_up_to_date(p, pos, net);
        }
        Some(&self.nodes[self.len - 1].acc)
    }

    fn bring_up_to_date(&mut self, p: Color, pos: &Position, net: &Network) {
        let pi = p.index();
        let top = self.len - 1;
        if self.nodes[top].computed[pi] {
            return;
        }
        debug_assert_eq!(Some(self.nodes[top].king[pi] as usize), features::king_bucket(pos, p));
        if self.features == FeatureSet::HalfKpE9 {
            return self.bring_up_to_date_by_lists(p, pos, net);
        }
        let refresh_on_king_move = self.features.refresh_on_king_move();
        // Nearest computed ancestor reachable without crossing a move of p's king (where that
        // changes all of p's features).
        let mut i = top;
        let source = loop {
            let node = &self.nodes[i];
            if node.computed[pi] {
                break Some(i);
            }
            if i == 0 || (refresh_on_king_move && node.king_moved[pi]) {
                break None;
            }
            i -= 1;
        };
        match source {
            Some(s) => {
                for j in s + 1..=top {
                    self.update_from_parent(j, p, net);
                }
            }
            None => {
                let backend = self.backend;
                let node = &mut self.nodes[top];
                let out = node.acc.values_mut(p);
                let done = if refresh_on_king_move {
                    self.refresh_cache.refresh(backend, pos, p, net, out)
                } else {
                    refresh_from_biases(backend, pos, p, net, out).is_some()
                };
                if !done {
                    // Only if the caller passes a position other than the stack's: stay defined.
                    out.fill(0);
                }
                node.computed[pi] = true;
            }
        }
    }

    /// `bring_up_to_date` for HalfKPE9: the node's features are listed (both perspectives at
    /// once), and the sums follow from the nearest computed ancestor's (without a move of p's
    /// king between) by the features that differ, or from the biases.
    fn bring_up_to_date_by_lists(&mut self, p: Color, pos: &Position, net: &Network) {
        let pi = p.index();
        let top = self.len - 1;
        let backend = self.backend;
        if !self.nodes[top].listed {
            let node = &mut self.nodes[top];
            let lists = node.lists.get_or_insert_with(Box::default);
            if features::e9_features(pos, lists).is_none() {
                // Only if the caller passes a position other than the stack's: stay defined.
                **lists = Default::default();
            }
            node.listed = true;
        }
        let mut i = top;
        let source = loop {
            let node = &self.nodes[i];
            if i != top && node.computed[pi] && node.listed {
                break Some(i);
            }
            if i == 0 || node.king_moved[pi] {
                break None;
            }
            i -= 1;
        };
        let (before, after) = self.nodes.split_at_mut(top);
        let node = &mut after[0];
        let mut removed = arrayvec::ArrayVec::<u32, { 2 * features::MAX_FEATURES }>::new();
        let mut added = arrayvec::ArrayVec::<u32, { 2 * features::MAX_FEATURES }>::new();
        let now = &node.lists.as_ref().expect("listed above")[pi];
        let from_ancestor = source.is_some_and(|s| {
            let Some(lists) = &before[s].lists else { return false };
            let then = &lists[pi];
            // Nine squares at a time: most of the board is as it was.
            for (was, is) in then.board.chunks_exact(9).zip(now.board.chunks_exact(9)) {
                if was == is {
                    continue;
                }
                for (&a, &b) in was.iter().zip(is) {
                    if a != b {
                        if a != features::NO_FEATURE {
                            removed.push(a);
                        }
                        if b != features::NO_FEATURE {
                            added.push(b);
                        }
                    }
                }
            }
            multiset_difference(&then.rest, &now.rest, &mut removed, &mut added);
            removed.len() + added.len() < features::MAX_ACTIVE
        });
        let weights = net.ft_weights.as_slice();
        match source {
            Some(s) if from_ancestor => {
                let src = before[s].acc.values(p);
                transformer::update_accumulator(backend, src, node.acc.values_mut(p), weights, &removed, &added);
            }
            _ => {
                let all: arrayvec::ArrayVec<u32, { 2 * features::MAX_FEATURES }> = now.all().collect();
                let biases = net.ft_biases.as_slice();
                transformer::update_accumulator(backend, biases, node.acc.values_mut(p), weights, &[], &all);
            }
        }
        node.computed[pi] = true;
    }

    /// Computes perspective `p` of node `j` from node `j - 1` and the changes between them.
    fn update_from_parent(&mut self, j: usize, p: Color, net: &Network) {
        let pi = p.index();
        let (before, after) = self.nodes.split_at_mut(j);
        let parent = &before[j - 1];
        let node = &mut after[0];
        let view = KingView::new(self.features, node.king[pi] as usize);
        let mut removed = arrayvec::ArrayVec::<u32, 2>::new();
        let mut added = arrayvec::ArrayVec::<u32, 2>::new();
        for change in &node.changes[..node.num_changes as usize] {
            if let Some(f) = feature_of(self.features, p, view, change.removed) {
                removed.push(f);
            }
            if let Some(f) = feature_of(self.features, p, view, change.added) {
                added.push(f);
            }
        }
        transformer::update_accumulator(
            self.backend,
            parent.acc.values(p),
            node.acc.values_mut(p),
            net.ft_weights.as_slice(),
            &removed,
            &added,
        );
        node.computed[pi] = true;
    }
}

/// What turns the multiset `from` into `to`: `removed` gets what `from` has more of, `added`
/// what `to` has more of (both lists unsorted, short).
fn multiset_difference<const N: usize>(
    from: &[u32],
    to: &[u32],
    removed: &mut arrayvec::ArrayVec<u32, N>,
    added: &mut arrayvec::ArrayVec<u32, N>,
) {
    let mut a: arrayvec::ArrayVec<u32, { features::MAX_FEATURES }> = from.iter().copied().collect();
    let mut b: arrayvec::ArrayVec<u32, { features::MAX_FEATURES }> = to.iter().copied().collect();
    a.sort_unstable();
    b.sort_unstable();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if j == b.len() || (i < a.len() && a[i] < b[j]) {
            removed.push(a[i]);
            i += 1;
        } else if i == a.len() || b[j] < a[i] {
            added.push(b[j]);
            j += 1;
        } else {
            i += 1;
            j += 1;
        }
    }
}
