//! Search limits and time allocation.
//!
//! Clock conventions are USI's as YaneuraOu and cshogi read them: `btime`/`wtime` are the time
//! left now, the increment (`binc`/`winc`) comes after this move; `byoyomi` is the per-move
//! allowance once the main time is spent (or alongside it).

use crate::shogi::Color;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Remaining main time per colour (ms), if given.
    pub time: [Option<u64>; 2],
    /// Fischer increment per colour (ms).
    pub inc: [u64; 2],
    /// Byoyomi per colour (ms).
    pub byoyomi: [u64; 2],
    pub movetime: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
}

impl Limits {
    /// Whether the clock (rather than a fixed limit) decides when to stop.
    pub fn uses_clock(&self) -> bool {
        self.time.iter().any(Option::is_some) || self.byoyomi.iter().any(|&b| b > 0)
    }

    /// A fixed limit that must be reached before answering (unless forced or mate).
    pub fn has_fixed_limit(&self) -> bool {
        self.movetime.is_some() || self.depth.is_some() || self.nodes.is_some()
    }

    /// The limits of a pondering search once `ponderhit` came: new clock values replace the
    /// old.
    pub fn after_ponderhit(&self, new: Option<&Limits>) -> Limits {
        let mut limits = self.clone();
        if let Some(l) = new {
            limits.time = l.time;
            limits.inc = l.inc;
            limits.byoyomi = l.byoyomi;
        }
        limits.ponder = false;
        limits
    }
}

/// Time options of the engine.
#[derive(Clone, Copy, Debug)]
pub struct TimeOptions {
    /// Kept in reserve on every move for transmission and GUI overhead (ms).
    pub network_delay: u64,
    /// Never plan to think less than this (ms), clock permitting.
    pub minimum_thinking_time: u64,
}

/// Planned thinking time for one move (ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimePlan {
    /// Stop starting new iterations after this (scaled by how unstable the best move is).
    pub optimum: u64,
    /// Never think longer than this.
    pub maximum: u64,
}

/// Decides the time for a move of `us` at game ply `ply`. `None` when no clock limit applies.
pub fn plan(limits: &Limits, us: Color, ply: u32, opts: &TimeOptions) -> Option<TimePlan> {
    if let Some(mt) = limits.movetime {
        return Some(TimePlan { optimum: mt, maximum: mt });
    }
    if !limits.uses_clock() {
        return None;
    }
    let c = us.index();
    let time = limits.time[c].unwrap_or(0);
    let inc = limits.inc[c];
    let byo = limits.byoyomi[c];
    let delay = opts.network_delay;
    // The most we can use on this move without losing on time.
    let hard = (time + byo).saturating_sub(delay).max(1);
    // Expected number of our moves still to play, shrinking as the game goes on.
    let moves_left = (60u64.saturating_sub(ply as u64 / 4)).max(16);
    let (mut optimum, mut maximum) = if byo > 0 {
        // Byoyomi: the byoyomi itself is free to spend in full; main time is spread out.
        let base = byo + time / moves_left;
        (base, (byo + time / 4).min(hard))
    } else if inc > 0 {
        // Fischer: this move's increment comes after it, so most of it can be spent now.
        let base = time / moves_left + inc * 9 / 10;
        (base, (base * 4).min(time / 3 + inc / 2))
    } else {
        let base = time / (moves_left + 10);
        (base, (base * 4).min(time / 5))
    };
    let min_think = opts.minimum_thinking_time;
    optimum = optimum.max(min_think);
    maximum = maximum.max(optimum).min(hard);
    optimum = optimum.min(maximum);
    if byo > 0 && time == 0 {
        // Pure byoyomi: unused time is lost, so think for all of it.
        optimum = maximum;
    }
    Some(TimePlan { optimum: optimum.max(1), maximum: maximum.max(1) })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTS: TimeOptions = TimeOptions { network_delay: 100, minimum_thinking_time: 20 };

    #[test]
    fn pure_byoyomi_uses_all_but_the_delay() {
        let l = Limits { time: [Some(0), Some(0)], byoyomi: [1000, 1000], ..Default::default() };
        assert_eq!(plan(&l, Color::Black, 50, &OPTS), Some(TimePlan { optimum: 900, maximum: 900 }));
    }

    #[test]
    fn never_exceeds_the_clock() {
        for time in [0u64, 1, 50, 150, 1000, 60_000, 3_600_000] {
            for inc in [0u64, 100, 10_000] {
                for byo in [0u64, 100, 10_000] {
                    let l = Limits {
                        time: [Some(time), Some(time)],
                        inc: [inc; 2],
                        byoyomi: [byo; 2],
                        ..Default::default()
                    };
                    let p = plan(&l, Color::White, 80, &OPTS).unwrap();
                    assert!(p.optimum <= p.maximum, "{l:?} {p:?}");
                    assert!(p.maximum <= (time + byo).saturating_sub(100).max(1), "{l:?} {p:?}");
                }
            }
        }
    }

    #[test]
    fn fischer_spends_about_the_increment() {
        let l = Limits { time: [Some(10_000), Some(10_000)], inc: [1000, 1000], ..Default::default() };
        let p = plan(&l, Color::Black, 100, &OPTS).unwrap();
        assert!(p.optimum >= 900 && p.optimum <= 2000, "{p:?}");
    }

    #[test]
    fn fixed_movetime() {
        let l = Limits { movetime: Some(500), ..Default::default() };
        assert_eq!(plan(&l, Color::Black, 1, &OPTS), Some(TimePlan { optimum: 500, maximum: 500 }));
        assert_eq!(plan(&Limits { depth: Some(5), ..Default::default() }, Color::Black, 1, &OPTS), None);
    }
}
