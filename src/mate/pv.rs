//! The main line of a proven mate.
//!
//! Walking down from the root, the attacker plays a check with the shortest proven mate and
//! the defender the reply that holds out longest. In exact mode the root's mate length is known
//! to be the shortest possible, and so is every length on the way: a reply qualifies when the
//! table (or a bounded search) shows no mate within two plies less than the node's own length,
//! so the line has exactly the root's length. Ties go to board moves over drops, which keeps
//! pointless drops (attacker sacrifices, defender interpositions that only lose a piece) out of
//! the line when something else is as good.

use super::checks::generate_checks;
use super::dfpn::Dfpn;
use super::table::Known;
use crate::shogi::{Move, MoveList, Position, generate_legal};

/// The line of a mate in `len` plies from `root` (an attacker node). `exact`: `len` is the
/// shortest mate. None when the budget ran out before the line was complete.
pub(super) fn extract(s: &mut Dfpn, root: &mut Position, len: u16, exact: bool) -> Option<Vec<Move>> {
    s.reset_path(root);
    let mut line = Vec::with_capacity(len as usize);
    let mut rem = len;
    let mut attacker = true;
    let complete = loop {
        if line.len() > len as usize {
            break false; // lengths only shrink along the line; this would be a table fault
        }
        let mut list = MoveList::new();
        if attacker {
            generate_checks(root, &mut list);
        } else {
            generate_legal(root, &mut list);
        }
        let pick = if attacker {
            pick_attack(s, root, &list, rem)
        } else if list.is_empty() {
            break true;
        } else {
            pick_defence(s, root, &list, rem, exact)
        };
        let Some((m, child_len)) = pick else { break false };
        line.push(m);
        s.enter(root, m);
        rem = child_len;
        attacker = !attacker;
    };
    for &m in line.iter().rev() {
        s.leave(root, m);
    }
    complete.then_some(line)
}

/// Among `list` (the checks), the one with the shortest proven mate within `rem` plies, and
/// that mate's length from the position after it.
fn pick_attack(s: &mut Dfpn, pos: &mut Position, list: &MoveList, rem: u16) -> Option<(Move, u16)> {
    if rem == 0 {
        return None;
    }
    let known = list
        .iter()
        .filter_map(|&m| match s.lookup_after(pos, m, rem - 1) {
            Some(Known::Proven { len }) => Some((len, m.is_drop(), m)),
            _ => None,
        })
        .min_by_key(|&(len, drop, _)| (len, drop));
    if let Some((len, _, m)) = known {
        return Some((m, len));
    }
    // Lost from the table (replaced) or proven only at a longer length: search, most
    // promising first.
    let estimate = |s: &Dfpn, pos: &Position, m: Move| match s.lookup_after(pos, m, rem - 1) {
        Some(Known::Open { pn, .. }) => pn,
        Some(Known::Disproven { .. }) => u32::MAX,
        _ => 1,
    };
    let mut checks: Vec<(u32, bool, Move)> = list.iter().map(|&m| (estimate(s, pos, m), m.is_drop(), m)).collect();
    checks.sort_by_key(|&(estimate, drop, _)| (estimate, drop));
    for (estimate, _, m) in checks {
        if estimate == u32::MAX {
            continue;
        }
        s.enter(pos, m);
        let v = s.prove(pos, false, rem - 1);
        s.leave(pos, m);
        if v.is_proven() {
            return Some((m, v.len));
        }
        if s.aborted() {
            return None;
        }
    }
    None
}

/// The defender's longest-resisting reply and the mate length after it.
fn pick_defence(s: &mut Dfpn, pos: &mut Position, list: &MoveList, rem: u16, exact: bool) -> Option<(Move, u16)> {
    if rem < 2 {
        return None;
    }
    let mut replies: Vec<Move> = list.iter().copied().collect();
    replies.sort_by_key(|m| m.is_drop());
    if exact {
        // Every reply is mated within rem - 1; the longest ones have no mate within rem - 3.
        if rem < 4 {
            return replies.first().map(|&m| (m, rem - 1));
        }
        for &m in &replies {
            let holds = match s.lookup_after(pos, m, rem - 3) {
                Some(Known::Disproven { .. }) => true,
                Some(Known::Proven { .. }) => false,
                _ => {
                    s.enter(pos, m);
                    let v = s.prove(pos, true, rem - 3);
                    s.leave(pos, m);
                    if s.aborted() && !v.is_settled() {
                        return None;
                    }
                    v.is_disproven()
                }
            };
            if holds {
                return Some((m, rem - 1));
            }
        }
        return None;
    }
    let mut best: Option<(u16, bool, Move)> = None;
    for &m in &replies {
        let len = match s.lookup_after(pos, m, rem - 1) {
            Some(Known::Proven { len }) => len,
            _ => {
                s.enter(pos, m);
                let v = s.prove(pos, true, rem - 1);
                s.leave(pos, m);
                if !v.is_proven() {
                    return None;
                }
                v.len
            }
        };
        // Longest first; among equals a board move (the list is sorted so drops come last).
        if best.is_none_or(|(l, _, _)| len > l) {
            best = Some((len, m.is_drop(), m));
        }
    }
    best.map(|(len, _, m)| (m, len))
}
