//! The shape of a network, read from its file: the feature set, the transformer's width and
//! the widths of the dense layers after it, parsed from the architecture string in the header
//! and checked against the header's hashes (which YaneuraOu derives from the same shape).
//!
//! The classic YaneuraOu networks are all one chain: a feature transformer of `H` outputs per
//! perspective, both perspectives' outputs concatenated (`InputSlice[2H]`), then affine layers
//! each followed by a clipped ReLU, and a last affine layer of one output. `halfkp_256x2-32-32`
//! is `HalfKP`, `H` = 256, hidden widths `[32, 32]`.

use std::fmt;

/// The input features of a network (per perspective).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FeatureSet {
    /// HalfKP(Friend): own king square x BonaPiece of each non-king piece (81 x 1548 rows).
    HalfKp,
    /// HalfKP_vm(Friend): HalfKP with the king (and the board with it) mirrored onto files 1-5
    /// (45 x 1548 rows).
    HalfKpVm,
    /// K+P: the BonaPieces without a king factor, and each king's square (1548 + 2 x 81 rows).
    Kp,
    /// HalfKPE9(Friend): HalfKP once for each of 9 buckets of attack counts on the piece's
    /// square (9 x 81 x 1548 rows).
    HalfKpE9,
}

/// BonaPieces of the non-king pieces.
pub const FE_END: usize = 1548;

impl FeatureSet {
    pub const ALL: [FeatureSet; 4] = [FeatureSet::HalfKp, FeatureSet::HalfKpVm, FeatureSet::Kp, FeatureSet::HalfKpE9];

    /// The name in the architecture string.
    pub fn file_name(self) -> &'static str {
        match self {
            FeatureSet::HalfKp => "HalfKP(Friend)",
            FeatureSet::HalfKpVm => "HalfKP_vm(Friend)",
            FeatureSet::Kp => "K+P",
            FeatureSet::HalfKpE9 => "HalfKPE9(Friend)",
        }
    }

    /// The short name in architecture names (`halfkp_256x2-32-32`).
    pub fn short_name(self) -> &'static str {
        match self {
            FeatureSet::HalfKp => "halfkp",
            FeatureSet::HalfKpVm => "halfkp_vm",
            FeatureSet::Kp => "kp",
            FeatureSet::HalfKpE9 => "halfkpe9",
        }
    }

    /// Rows of the feature transformer's weights.
    pub fn rows(self) -> usize {
        match self {
            FeatureSet::HalfKp => 81 * FE_END,
            FeatureSet::HalfKpVm => 45 * FE_END,
            FeatureSet::Kp => FE_END + 2 * 81,
            FeatureSet::HalfKpE9 => 9 * 81 * FE_END,
        }
    }

    /// The hash YaneuraOu gives the feature set (HalfKPE9 keeps HalfKP's).
    pub fn hash(self) -> u32 {
        match self {
            FeatureSet::HalfKp | FeatureSet::HalfKpE9 => 0x5D69_D5B9 ^ 1,
            FeatureSet::HalfKpVm => 0x0B6B_1D9B ^ 1,
            FeatureSet::Kp => {
                // FeatureSet<K, P>: the head's hash combined with the tail's, rotated by one.
                let (k, p) = (0xD3CE_E169u32, 0x764C_FB4Bu32);
                k ^ p.rotate_left(1)
            }
        }
    }

    /// Whether a move of the perspective's own king changes all its features.
    pub fn refresh_on_king_move(self) -> bool {
        self != FeatureSet::Kp
    }
}

/// Widest transformer read (outputs per perspective).
pub const MAX_HALF: usize = 2048;
/// Widest hidden layer read.
pub const MAX_HIDDEN: usize = 256;
/// Most hidden layers read.
pub const MAX_HIDDEN_LAYERS: usize = 4;

/// A network's shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Architecture {
    pub features: FeatureSet,
    /// Transformer outputs per perspective (a multiple of 32, at most `MAX_HALF`).
    pub half: usize,
    /// Widths of the hidden layers, each followed by a clipped ReLU (the last layer, of one
    /// output, is not listed).
    pub hidden: Vec<usize>,
}

/// Why an architecture string does not describe a network hayate reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchError(pub String);

impl fmt::Display for ArchError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Rounds an input count up to the 32 bytes per row the file stores.
pub const fn padded_inputs(n: usize) -> usize {
    n.div_ceil(32) * 32
}

fn affine_hash(previous: u32, outputs: u32) -> u32 {
    0xCC03_DAE4u32.wrapping_add(outputs) ^ (previous >> 1) ^ (previous << 31)
}

fn clipped_relu_hash(previous: u32) -> u32 {
    0x538D_24C7u32.wrapping_add(previous)
}

impl Architecture {
    /// halfkp_256x2-32-32, the shape of most public networks and of hayate's own.
    pub fn standard() -> Architecture {
        Architecture { features: FeatureSet::HalfKp, half: 256, hidden: vec![32, 32] }
    }

    /// The usual name: `halfkp_256x2-32-32`.
    pub fn name(&self) -> String {
        let widths: Vec<String> = self.hidden.iter().map(|w| w.to_string()).collect();
        format!("{}_{}x2-{}", self.features.short_name(), self.half, widths.join("-"))
    }

    /// The architecture string YaneuraOu writes for this shape.
    pub fn file_string(&self) -> String {
        let t = 2 * self.half;
        let mut net = format!("InputSlice[{t}({}:{t})]", 0);
        let mut inputs = t;
        for (i, &w) in self.hidden.iter().enumerate() {
            let kind = if i == 0 { "AffineTransformSparseInput" } else { "AffineTransform" };
            net = format!("ClippedReLU[{w}]({kind}[{w}<-{inputs}]({net}))");
            inputs = w;
        }
        net = format!("AffineTransform[1<-{inputs}]({net})");
        format!("Features={}[{}->{}x2],Network={net}", self.features.file_name(), self.features.rows(), self.half)
    }

    /// Part hash of the feature transformer.
    pub fn transformer_hash(&self) -> u32 {
        self.features.hash() ^ (2 * self.half) as u32
    }

    /// Part hash of the layers after the transformer.
    pub fn network_hash(&self) -> u32 {
        let mut h = 0xEC42_E90Du32 ^ (2 * self.half) as u32;
        for &w in &self.hidden {
            h = clipped_relu_hash(affine_hash(h, w as u32));
        }
        affine_hash(h, 1)
    }

    /// The hash in the file header.
    pub fn file_hash(&self) -> u32 {
        self.transformer_hash() ^ self.network_hash()
    }

    /// (outputs, inputs) of each affine layer, the last one included.
    pub fn layers(&self) -> Vec<(usize, usize)> {
        let mut inputs = 2 * self.half;
        let mut v = Vec::new();
        for &w in &self.hidden {
            v.push((w, inputs));
            inputs = w;
        }
        v.push((1, inputs));
        v
    }

    /// Bytes after the header string: the two part hashes and every parameter.
    pub fn parameter_bytes(&self) -> usize {
        let transformer = 2 * self.half * (1 + self.features.rows());
        let layers: usize = self.layers().iter().map(|&(o, i)| 4 * o + o * padded_inputs(i)).sum();
        4 + transformer + 4 + layers
    }

    /// Parses an architecture string as YaneuraOu writes it. Only the shapes hayate evaluates
    /// parse; the error names what was found.
    pub fn parse(text: &str) -> Result<Architecture, ArchError> {
        let err = |why: &str| ArchError(format!("{why} in architecture \"{}\"", shorten(text)));
        let rest = text.strip_prefix("Features=").ok_or_else(|| err("no \"Features=\""))?;
        let open = rest.find('[').ok_or_else(|| err("no feature dimensions"))?;
        let name = &rest[..open];
        let features = FeatureSet::ALL
            .into_iter()
            .find(|f| f.file_name() == name)
            .ok_or_else(|| err(&format!("feature set \"{name}\" not read (hayate reads {})", feature_sets_read())))?;
        let close = rest.find(']').ok_or_else(|| err("unclosed feature dimensions"))?;
        let dims = &rest[open + 1..close];
        let (rows, width) = dims.split_once("->").ok_or_else(|| err("feature dimensions without \"->\""))?;
        let half_text = width.strip_suffix("x2").ok_or_else(|| err("transformer width without \"x2\""))?;
        let rows: usize = rows.parse().map_err(|_| err("feature count not a number"))?;
        let half: usize = half_text.parse().map_err(|_| err("transformer width not a number"))?;
        if rows != features.rows() {
            return Err(err(&format!("{rows} rows for {name} (it has {})", features.rows())));
        }
        if half == 0 || half > MAX_HALF || !half.is_multiple_of(32) {
            return Err(err(&format!("transformer width {half} (hayate reads multiples of 32 up to {MAX_HALF})")));
        }
        let net = rest[close + 1..].strip_prefix(",Network=").ok_or_else(|| err("no \",Network=\""))?;
        // The layers, outermost first: "Name[dims](inner)".
        let mut layers = Vec::new();
        let mut s = net;
        loop {
            let open = s.find('[').ok_or_else(|| err("layer without dimensions"))?;
            let close = s.find(']').ok_or_else(|| err("unclosed layer dimensions"))?;
            if close < open {
                return Err(err("malformed layer"));
            }
            layers.push((&s[..open], &s[open + 1..close]));
            s = &s[close + 1..];
            match s.strip_prefix('(') {
                Some(inner) => s = inner,
                None => break,
            }
        }
        if !s.chars().all(|c| c == ')') || s.len() != layers.len() - 1 {
            return Err(err("unbalanced parentheses"));
        }
        layers.reverse();
        let t = 2 * half;
        match layers.first() {
            Some(&("InputSlice", d)) if d == format!("{t}(0:{t})") => {}
            _ => return Err(err(&format!("network input other than InputSlice[{t}(0:{t})]"))),
        }
        let mut hidden = Vec::new();
        let mut inputs = t;
        let mut i = 1;
        while i < layers.len() {
            let (kind, d) = layers[i];
            if kind != "AffineTransform" && kind != "AffineTransformSparseInput" {
                return Err(err(&format!("layer \"{kind}\" not read")));
            }
            let (o, inp) = d.split_once("<-").ok_or_else(|| err("affine layer without \"<-\""))?;
            let (o, inp): (usize, usize) = match (o.parse(), inp.parse()) {
                (Ok(o), Ok(i)) => (o, i),
                _ => return Err(err("affine dimensions not numbers")),
            };
            if inp != inputs {
                return Err(err(&format!("affine layer of {inp} inputs after {inputs} outputs")));
            }
            if i == layers.len() - 1 {
                if o != 1 {
                    return Err(err(&format!("last layer of {o} outputs (hayate reads 1)")));
                }
                break;
            }
            match layers.get(i + 1) {
                Some(&("ClippedReLU", w)) if w == o.to_string() => {}
                _ => return Err(err(&format!("affine layer of {o} outputs not followed by ClippedReLU[{o}]"))),
            }
            if o == 0 || o > MAX_HIDDEN {
                return Err(err(&format!("hidden layer of {o} (hayate reads 1 to {MAX_HIDDEN})")));
            }
            hidden.push(o);
            inputs = o;
            i += 2;
        }
        if i >= layers.len() {
            return Err(err("no output layer"));
        }
        if hidden.is_empty() || hidden.len() > MAX_HIDDEN_LAYERS {
            return Err(err(&format!("{} hidden layers (hayate reads 1 to {MAX_HIDDEN_LAYERS})", hidden.len())));
        }
        Ok(Architecture { features, half, hidden })
    }
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The feature sets read, for error messages.
pub fn feature_sets_read() -> String {
    FeatureSet::ALL.iter().map(|f| f.file_name()).collect::<Vec<_>>().join(", ")
}

/// What hayate reads, for error messages.
pub fn shapes_read() -> String {
    format!(
        "the feature sets {} with any transformer width up to {MAX_HALF} (a multiple of 32) and 1 to \
         {MAX_HIDDEN_LAYERS} clipped-ReLU hidden layers of up to {MAX_HIDDEN}, e.g. halfkp_256x2-32-32, \
         halfkp_1024x2-8-32, kp_256x2-32-32",
        feature_sets_read()
    )
}

/// At most 120 characters of a string from a file, for messages.
pub fn shorten(s: &str) -> String {
    let mut t: String = s.chars().filter(|c| !c.is_control()).take(120).collect();
    if s.chars().count() > 120 {
        t.push_str("...");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_shape_has_the_known_hashes_and_size() {
        let a = Architecture::standard();
        assert_eq!(a.transformer_hash(), 0x5D69_D7B8);
        assert_eq!(a.network_hash(), 0x6333_7156);
        assert_eq!(a.file_hash(), 0x3E5A_A6EE);
        assert_eq!(a.file_string().len(), 189);
        assert_eq!(12 + 189 + a.parameter_bytes(), 64_217_077);
        assert_eq!(Architecture::parse(&a.file_string()), Ok(a.clone()));
        assert_eq!(a.name(), "halfkp_256x2-32-32");
    }

    #[test]
    fn other_shapes_round_trip_and_hash_as_the_reference_does() {
        // (shape, transformer hash, network hash) as YaneuraOu's editions compute them.
        let cases = [
            (FeatureSet::Kp, 256, vec![32, 32], 0x3F57_15FF, 0x6333_7156),
            (FeatureSet::HalfKpVm, 256, vec![32, 32], 0x0B6B_1F9A, 0x6333_7156),
            (FeatureSet::HalfKp, 512, vec![16, 32], 0x5D69_D1B8, 0x6333_76CA),
            (FeatureSet::HalfKp, 1024, vec![8, 32], 0x5D69_DDB8, 0x6333_6A54),
            (FeatureSet::HalfKp, 1024, vec![8, 64], 0x5D69_DDB8, 0x6333_6A24),
        ];
        for (features, half, hidden, ft, net) in cases {
            let a = Architecture { features, half, hidden };
            assert_eq!((a.transformer_hash(), a.network_hash()), (ft, net), "{a}");
            assert_eq!(Architecture::parse(&a.file_string()), Ok(a.clone()));
        }
    }

    #[test]
    fn strings_of_other_shapes_are_refused_with_what_was_found() {
        let std = Architecture::standard().file_string();
        for (bad, says) in [
            (std.replace("HalfKP(Friend)", "HalfKA(Friend)"), "HalfKA"),
            (std.replace("256x2", "100x2"), "100"),
            (std.replace("125388", "125389"), "125389"),
            (std.replace("ClippedReLU[32](AffineTransform[32<-32]", "X[32](AffineTransform[32<-32]"), "ClippedReLU"),
            (std.replace("AffineTransform[1<-32]", "AffineTransform[2<-32]"), "2 outputs"),
            (std[..50].to_string(), "architecture"),
            ("ModelType=SFNNWithoutPsqt;Features=HalfKA_hm2(Friend)[73305->1536x2]".to_string(), "Features="),
            (String::new(), "Features="),
        ] {
            let e = Architecture::parse(&bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
