//! The seeded random numbers of data generation and training.

/// A seeded random number generator (splitmix64): the same games for the same seed.
pub struct Rng(pub u64);

impl Rng {
    /// The generator of game `game` of a run seeded with `seed`.
    pub fn new(seed: u64, game: u64) -> Rng {
        let mut r = Rng(seed ^ game.wrapping_mul(0xd1b5_4a32_d192_ed03));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}
