//! The seeded random networks of YaneuraOu's reference evaluations (tests/data/nnue/arch),
//! written byte for byte as `make_net.py` and `make_sfnn.py` (numpy 2) write them, so that the
//! tests need neither Python nor files of up to 578 MB in the repository.
//!
//! numpy's `default_rng(seed)`: a `SeedSequence` hashes the seed into PCG64's 128-bit state and
//! increment; `integers` draws bounded values by Lemire's method from 32-bit outputs (8- and
//! 16-bit values several to one 32-bit output), `random` doubles from the top 53 bits of a
//! 64-bit output.

/// numpy's `SeedSequence` for a single small seed: the state words it generates.
fn seed_sequence(seed: u32, words: usize) -> Vec<u32> {
    const INIT_A: u32 = 0x43b0_d7e5;
    const MULT_A: u32 = 0x931e_8875;
    const INIT_B: u32 = 0x8b51_f9dd;
    const MULT_B: u32 = 0x58f3_8ded;
    const MIX_MULT_L: u32 = 0xca01_f9dd;
    const MIX_MULT_R: u32 = 0x4973_f715;
    let mut hash_const = INIT_A;
    let mut hashmix = |value: u32| {
        let mut v = value ^ hash_const;
        hash_const = hash_const.wrapping_mul(MULT_A);
        v = v.wrapping_mul(hash_const);
        v ^ (v >> 16)
    };
    let mix = |x: u32, y: u32| {
        let r = MIX_MULT_L.wrapping_mul(x).wrapping_sub(MIX_MULT_R.wrapping_mul(y));
        r ^ (r >> 16)
    };
    let entropy = [seed];
    let mut pool = [0u32; 4];
    for (i, p) in pool.iter_mut().enumerate() {
        *p = hashmix(entropy.get(i).copied().unwrap_or(0));
    }
    for src in 0..4 {
        for dst in 0..4 {
            if src != dst {
                let h = hashmix(pool[src]);
                pool[dst] = mix(pool[dst], h);
            }
        }
    }
    let mut hash_const = INIT_B;
    (0..words)
        .map(|i| {
            let mut v = pool[i % 4] ^ hash_const;
            hash_const = hash_const.wrapping_mul(MULT_B);
            v = v.wrapping_mul(hash_const);
            v ^ (v >> 16)
        })
        .collect()
}

/// numpy's `Generator(PCG64(seed))`, the draws the network scripts use.
pub struct NumpyRng {
    state: u128,
    inc: u128,
    /// The upper half of the last 64-bit output, kept for the next 32-bit draw.
    spare: Option<u32>,
}

const PCG_MULT: u128 = 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645;

impl NumpyRng {
    pub fn new(seed: u32) -> NumpyRng {
        let w = seed_sequence(seed, 8);
        let u64_at = |i: usize| w[i] as u64 | (w[i + 1] as u64) << 32;
        let init_state = (u64_at(0) as u128) << 64 | u64_at(2) as u128;
        let init_seq = (u64_at(4) as u128) << 64 | u64_at(6) as u128;
        let mut rng = NumpyRng { state: 0, inc: init_seq << 1 | 1, spare: None };
        rng.step();
        rng.state = rng.state.wrapping_add(init_state);
        rng.step();
        rng
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG_MULT).wrapping_add(self.inc);
    }

    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let x = (self.state >> 64) as u64 ^ self.state as u64;
        x.rotate_right((self.state >> 122) as u32)
    }

    fn next_u32(&mut self) -> u32 {
        if let Some(v) = self.spare.take() {
            return v;
        }
        let x = self.next_u64();
        self.spare = Some((x >> 32) as u32);
        x as u32
    }

    /// `random()`: a double in [0, 1).
    pub fn random(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `integers(low, high, n, dtype=int32)` (high exclusive).
    pub fn ints32(&mut self, low: i32, high: i32, n: usize) -> Vec<i32> {
        let rng = (high as i64 - 1 - low as i64) as u32;
        (0..n)
            .map(|_| {
                let v = if rng == u32::MAX { self.next_u32() } else { self.lemire32(rng) };
                (low as u32).wrapping_add(v) as i32
            })
            .collect()
    }

    fn lemire32(&mut self, rng: u32) -> u32 {
        let excl = rng as u64 + 1;
        let mut m = self.next_u32() as u64 * excl;
        let mut leftover = m as u32;
        if (leftover as u64) < excl {
            let threshold = ((u32::MAX - rng) as u64 % excl) as u32;
            while leftover < threshold {
                m = self.next_u32() as u64 * excl;
                leftover = m as u32;
            }
        }
        (m >> 32) as u32
    }

    /// `integers(low, high, n, dtype=int16)` or `int8` (`bits` 16 or 8), passing each value to
    /// `out`: several values come from each 32-bit output, with a buffer per call.
    pub fn small_ints(&mut self, bits: u32, low: i32, high: i32, n: usize, mut out: impl FnMut(i32)) {
        let mask = (1u32 << bits) - 1;
        let rng = (high - 1 - low) as u32 & mask;
        let excl = rng + 1;
        let (mut buf, mut left) = (0u32, 0u32);
        let mut draw = |rng_: &mut NumpyRng| {
            if left == 0 {
                buf = rng_.next_u32();
                left = 32 / bits - 1;
            } else {
                buf >>= bits;
                left -= 1;
            }
            buf & mask
        };
        for _ in 0..n {
            let v = if rng == mask {
                draw(self)
            } else {
                let mut m = draw(self) * excl;
                let mut leftover = m & mask;
                if leftover < excl {
                    let threshold = (mask - rng) % excl;
                    while leftover < threshold {
                        m = draw(self) * excl;
                        leftover = m & mask;
                    }
                }
                m >> bits
            };
            let signed = ((low as u32).wrapping_add(v) & mask) as i32;
            out(if signed > (mask >> 1) as i32 { signed - (mask as i32 + 1) } else { signed });
        }
    }
}

/// The shapes `make_net.py --arch` writes: (name, feature set, its hash, features, half width,
/// first and second hidden widths).
pub struct Shape {
    pub name: &'static str,
    feature_set: &'static str,
    feature_hash: u32,
    features: usize,
    half: usize,
    l1: usize,
    l2: usize,
}

const fn kp_hash() -> u32 {
    let (k, p) = (0xD3CE_E169u32, 0x764C_FB4Bu32);
    k ^ (p << 1) ^ (p >> 31)
}

pub const SHAPES: &[Shape] = &[
    Shape {
        name: "kp_256x2-32-32",
        feature_set: "K+P",
        feature_hash: kp_hash(),
        features: 1710,
        half: 256,
        l1: 32,
        l2: 32,
    },
    Shape {
        name: "halfkp_vm_256x2-32-32",
        feature_set: "HalfKP_vm(Friend)",
        feature_hash: 0x0B6B_1D9B ^ 1,
        features: 45 * 1548,
        half: 256,
        l1: 32,
        l2: 32,
    },
    Shape {
        name: "halfkp_512x2-16-32",
        feature_set: "HalfKP(Friend)",
        feature_hash: 0x5D69_D5B9 ^ 1,
        features: 81 * 1548,
        half: 512,
        l1: 16,
        l2: 32,
    },
    Shape {
        name: "halfkp_1024x2-8-32",
        feature_set: "HalfKP(Friend)",
        feature_hash: 0x5D69_D5B9 ^ 1,
        features: 81 * 1548,
        half: 1024,
        l1: 8,
        l2: 32,
    },
    Shape {
        name: "halfkp_1024x2-8-64",
        feature_set: "HalfKP(Friend)",
        feature_hash: 0x5D69_D5B9 ^ 1,
        features: 81 * 1548,
        half: 1024,
        l1: 8,
        l2: 64,
    },
    Shape {
        name: "halfkp_512x2-8-64",
        feature_set: "HalfKP(Friend)",
        feature_hash: 0x5D69_D5B9 ^ 1,
        features: 81 * 1548,
        half: 512,
        l1: 8,
        l2: 64,
    },
    Shape {
        name: "halfkp_768x2-16-64",
        feature_set: "HalfKP(Friend)",
        feature_hash: 0x5D69_D5B9 ^ 1,
        features: 81 * 1548,
        half: 768,
        l1: 16,
        l2: 64,
    },
    Shape {
        name: "halfkpe9_256x2-32-32",
        feature_set: "HalfKPE9(Friend)",
        feature_hash: 0x5D69_D5B9 ^ 1,
        features: 9 * 81 * 1548,
        half: 256,
        l1: 32,
        l2: 32,
    },
];

pub fn shape(name: &str) -> &'static Shape {
    SHAPES.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no shape {name}"))
}

fn pad32(n: usize) -> usize {
    n.div_ceil(32) * 32
}

fn affine_hash(prev: u32, out: u32) -> u32 {
    (0xCC03_DAE4u32.wrapping_add(out)) ^ (prev >> 1) ^ (prev << 31)
}

impl Shape {
    /// (outputs, inputs, padded inputs) of the three affine layers.
    fn layers(&self) -> [(usize, usize, usize); 3] {
        [(self.l1, 2 * self.half), (self.l2, self.l1), (1, self.l2)].map(|(o, i)| (o, i, pad32(i)))
    }

    fn ft_hash(&self) -> u32 {
        self.feature_hash ^ (2 * self.half) as u32
    }

    fn network_hash(&self) -> u32 {
        let mut h = 0xEC42_E90Du32 ^ (2 * self.half) as u32;
        h = affine_hash(h, self.l1 as u32);
        h = 0x538D_24C7u32.wrapping_add(h);
        h = affine_hash(h, self.l2 as u32);
        h = 0x538D_24C7u32.wrapping_add(h);
        affine_hash(h, 1)
    }

    pub fn architecture(&self) -> String {
        let (half, l1, l2) = (self.half, self.l1, self.l2);
        format!(
            "Features={}[{}->{half}x2],Network=AffineTransform[1<-{l2}](ClippedReLU[{l2}](AffineTransform[{l2}<-{l1}](\
             ClippedReLU[{l1}](AffineTransformSparseInput[{l1}<-{}](InputSlice[{}(0:{})])))))",
            self.feature_set,
            self.features,
            2 * half,
            2 * half,
            2 * half
        )
    }

    /// The file `make_net.py OUT --seed SEED --density DENSITY --arch NAME` writes.
    pub fn write(&self, seed: u32, density: f64) -> Vec<u8> {
        let mut rng = NumpyRng::new(seed);
        let text = self.architecture();
        let (fth, neth) = (self.ft_hash(), self.network_hash());
        let total = self.features * self.half;
        let mut out = Vec::with_capacity(64 + text.len() + 2 * total + 2 * self.half + 100_000);
        for v in [0x7AF3_2F16, fth ^ neth, text.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(&fth.to_le_bytes());
        rng.small_ints(16, -20, 60, self.half, |v| out.extend_from_slice(&(v as i16).to_le_bytes()));
        let spread = if density >= 1.0 { 24 } else { 64 };
        let weights_at = out.len();
        rng.small_ints(16, -spread, spread + 1, total, |v| out.extend_from_slice(&(v as i16).to_le_bytes()));
        if density < 1.0 {
            for i in 0..total {
                if rng.random() >= density {
                    out[weights_at + 2 * i] = 0;
                    out[weights_at + 2 * i + 1] = 0;
                }
            }
        }
        out.extend_from_slice(&neth.to_le_bytes());
        let fan_in = [512.0f64, 32.0, 32.0];
        for ((o, i, padded), reference) in self.layers().into_iter().zip(fan_in) {
            let bound = (40.0 * (reference / i as f64).sqrt()).round_ties_even() as i32;
            for b in rng.ints32(-3000, 3000, o) {
                out.extend_from_slice(&b.to_le_bytes());
            }
            let mut row = Vec::with_capacity(i);
            let mut rows = Vec::with_capacity(o);
            rng.small_ints(8, -bound, bound + 1, o * i, |v| {
                row.push(v as i8 as u8);
                if row.len() == i {
                    rows.push(std::mem::take(&mut row));
                }
            });
            for r in rows {
                out.extend_from_slice(&r);
                out.resize(out.len() + padded - i, 0);
            }
        }
        out
    }
}

/// `make_sfnn.py`'s signed LEB128 block: the magic, the byte count, the values (one byte each
/// where every value fits one, as the script's fast path writes them).
fn sleb128_block(values: &[i16], out: &mut Vec<u8>) {
    out.extend_from_slice(b"COMPRESSED_LEB128");
    let mut payload = Vec::with_capacity(values.len());
    for &v in values {
        let v = v as i32;
        let n = if (-64..64).contains(&v) {
            1
        } else if (-8192..8192).contains(&v) {
            2
        } else {
            3
        };
        for k in 0..n {
            let more = if k < n - 1 { 0x80 } else { 0 };
            payload.push(((v >> (7 * k)) & 0x7F) as u8 | more);
        }
    }
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&payload);
}

/// The file `make_sfnn.py OUT --seed SEED --density DENSITY` writes (the SFNN
/// halfkahm2_1536_15_32_k3k3 shape; 112,831,072 bytes at density 1/32).
pub fn write_sfnn(seed: u32, density: f64) -> Vec<u8> {
    const FEATURES: usize = 5 * 9 * 1629;
    const FT: usize = 1536;
    const ARCH: &str =
        "ModelType=SFNNWithoutPsqt;Features=HalfKA_hm2(Friend)[73305->1536x2],Network=SFNN-1536{LayerStack=9}";
    let mut rng = NumpyRng::new(seed);
    let total = FEATURES * FT;
    let mut out = Vec::with_capacity(total + 300_000);
    for v in [0x7AF3_2F16, 0x3C20_3B32, ARCH.len() as u32, 0x5F13_4AB8] {
        out.extend_from_slice(&v.to_le_bytes());
        if v == ARCH.len() as u32 {
            out.extend_from_slice(ARCH.as_bytes());
        }
    }
    let mut biases = Vec::with_capacity(FT);
    rng.small_ints(16, 20, 80, FT, |v| biases.push(v as i16));
    sleb128_block(&biases, &mut out);
    // The weights all fit one byte of LEB128 (|w| <= 24): the script's fast path.
    let spread = if density >= 1.0 { 8 } else { 24 };
    out.extend_from_slice(b"COMPRESSED_LEB128");
    out.extend_from_slice(&(total as u32).to_le_bytes());
    let weights_at = out.len();
    rng.small_ints(16, -spread, spread + 1, total, |v| out.push((v & 0x7F) as u8));
    if density < 1.0 {
        for w in &mut out[weights_at..] {
            if rng.random() >= density {
                *w = 0;
            }
        }
    }
    for _ in 0..9 {
        out.extend_from_slice(&0x6333_718Au32.to_le_bytes());
        for (outputs, inputs, padded, bound) in [(16, FT, FT, 8), (32, 30, 32, 32), (1, 32, 32, 40)] {
            for b in rng.ints32(-2000, 2000, outputs) {
                out.extend_from_slice(&b.to_le_bytes());
            }
            let mut n = 0;
            rng.small_ints(8, -bound, bound + 1, outputs * inputs, |v| {
                out.push(v as i8 as u8);
                n += 1;
                if n % inputs == 0 {
                    out.resize(out.len() + padded - inputs, 0);
                }
            });
        }
    }
    out
}
