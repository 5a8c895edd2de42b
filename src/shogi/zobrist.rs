//! Zobrist keys, generated at compile time from a fixed seed.
//!
//! Board keys have bit 0 clear; the side to move toggles bit 0 (`SIDE`), so the low bit of a
//! position key tells whose turn it is. Hand keys are added once per piece held, so a change
//! of a count by one is one addition or subtraction.

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

pub const SIDE: u64 = 1;

const fn board_keys() -> [[u64; 81]; 32] {
    let mut out = [[0u64; 81]; 32];
    let mut state = 0x6a09_e667_f3bc_c908u64;
    let mut p = 0;
    while p < 32 {
        let mut s = 0;
        while s < 81 {
            let (ns, v) = splitmix(state);
            state = ns;
            out[p][s] = v & !1;
            s += 1;
        }
        p += 1;
    }
    out
}

const fn hand_keys() -> [[u64; 8]; 2] {
    let mut out = [[0u64; 8]; 2];
    let mut state = 0xbb67_ae85_84ca_a73bu64;
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 8 {
            let (ns, v) = splitmix(state);
            state = ns;
            out[c][k] = v & !1;
            k += 1;
        }
        c += 1;
    }
    out
}

/// Indexed by `Piece::index()` and square.
pub static BOARD: [[u64; 81]; 32] = board_keys();
/// Indexed by colour and hand kind (`PieceType as usize`, 1..=7).
pub static HAND: [[u64; 8]; 2] = hand_keys();
