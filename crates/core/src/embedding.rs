//! Embedding vectors.

use crate::InputError;

/// A unit-length embedding vector.
///
/// Construction rejects vectors that cannot take part in cosine similarity: empty ones, ones with
/// a NaN or infinite component, and ones whose norm is below `1e-6`. The design (§5.2) lost its
/// ranking to an all-zero vector from a failed model load, which made every cosine NaN; we refuse
/// such a vector loudly instead. Because every stored vector is normalised, cosine similarity is a
/// plain dot product.
#[derive(Debug, Clone, PartialEq)]
pub struct Embedding(Vec<f32>);

impl Embedding {
    /// Smallest norm we accept before normalising.
    pub const MIN_NORM: f32 = 1e-6;

    /// Normalises `values` to unit length, or says why it cannot.
    pub fn new(values: Vec<f32>) -> Result<Self, InputError> {
        if values.is_empty() {
            return Err(InputError::new("embedding", "vector is empty"));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(InputError::new("embedding", "vector has a NaN or infinite component"));
        }
        let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm < Self::MIN_NORM {
            return Err(InputError::new(
                "embedding",
                format!(
                    "vector norm {norm:e} is below {:e}; the model produced a zero vector",
                    Self::MIN_NORM
                ),
            ));
        }
        Ok(Self(values.into_iter().map(|v| v / norm).collect()))
    }

    /// Wraps a vector that is already unit length (as read back from a store), to within what
    /// rounding to half precision can change (each component by at most 2⁻¹¹ of itself).
    ///
    /// Still rejects degenerate vectors, so corrupted rows cannot poison the index.
    pub fn from_normalized(values: Vec<f32>) -> Result<Self, InputError> {
        let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
        if (norm - 1.0).abs() < 1e-3 && values.iter().all(|v| v.is_finite()) {
            // Already unit length: keep the exact bits so a round trip is lossless.
            return Ok(Self(values));
        }
        Self::new(values)
    }

    /// This vector as stores keep it: each component rounded to IEEE half precision (binary16),
    /// which halves the bytes a vector costs on disk. Each component moves by at most 2⁻¹¹ of
    /// itself (or by 3e-8, below half precision's normal range), so a cosine by at most 5e-4, and by about 1e-5 when the rounding errors of
    /// 384 components cancel, as they do for real embeddings; the norm stays
    /// within `from_normalized`'s tolerance, so reading the rounded values back keeps their bits.
    /// Rounding a vector before it is first stored or indexed makes what a server ranks by the
    /// same before and after a restart.
    pub fn to_half_precision(&self) -> Embedding {
        Embedding(self.0.iter().map(|&v| half::f16::from_f32(v).to_f32()).collect())
    }

    /// This vector as the bytes stores and saved graphs keep: [`half_bytes`] of its components.
    pub fn to_half_bytes(&self) -> Vec<u8> {
        half_bytes(&self.0)
    }

    /// The components.
    pub fn as_slice(&self) -> &[f32] {
        &self.0
    }

    /// Number of dimensions.
    pub fn dimensions(&self) -> usize {
        self.0.len()
    }

    /// Cosine similarity with another unit vector of the same length. In [-1, 1].
    pub fn cosine(&self, other: &Embedding) -> f32 {
        dot(&self.0, &other.0)
    }

    /// Consumes the embedding, returning its components.
    pub fn into_vec(self) -> Vec<f32> {
        self.0
    }
}

/// `values` as little-endian IEEE half precision, two bytes each: how the SQLite store keeps a
/// vector and how a saved vector graph holds it.
pub fn half_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|&v| half::f16::from_f32(v).to_le_bytes()).collect()
}

/// Dot product of two equal-length slices, written so the compiler vectorises it.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    // Eight independent accumulators let LLVM use SIMD lanes without reassociating floats.
    let mut acc = [0.0f32; 8];
    let chunks_a = a.chunks_exact(8);
    let chunks_b = b.chunks_exact(8);
    let (rest_a, rest_b) = (chunks_a.remainder(), chunks_b.remainder());
    for (ca, cb) in chunks_a.zip(chunks_b) {
        for lane in 0..8 {
            acc[lane] += ca[lane] * cb[lane];
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for (x, y) in rest_a.iter().zip(rest_b) {
        sum += x * y;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_degenerate_vectors() {
        assert!(Embedding::new(vec![]).is_err());
        assert!(Embedding::new(vec![0.0; 8]).is_err());
        assert!(Embedding::new(vec![1e-9, 0.0]).is_err());
        assert!(Embedding::new(vec![f32::NAN, 1.0]).is_err());
        assert!(Embedding::new(vec![f32::INFINITY, 1.0]).is_err());
    }

    #[test]
    fn normalises_to_unit_length() {
        let e = Embedding::new(vec![3.0, 4.0]).unwrap();
        assert_eq!(e.as_slice(), &[0.6, 0.8]);
        assert!((e.cosine(&e) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn half_precision_keeps_cosines_and_reads_back_bit_for_bit() {
        // A skewed vector and the worst case for the norm: every component rounded the same way.
        let skewed = Embedding::new((0..384).map(|i| (i * 37 % 101) as f32 - 50.0).collect());
        let flat = Embedding::new(vec![1.0; 384]);
        for e in [skewed.unwrap(), flat.unwrap()] {
            let half = e.to_half_precision();
            assert_ne!(half, e, "rounding changed the components");
            assert!((half.cosine(&e) - 1.0).abs() < 5e-4, "cosine {}", half.cosine(&e));
            assert_eq!(half.to_half_precision(), half, "rounding is idempotent");
            let back = Embedding::from_normalized(half.as_slice().to_vec()).unwrap();
            assert_eq!(back, half, "a stored half-precision vector reads back unchanged");
        }
    }

    #[test]
    fn dot_matches_naive_sum_for_odd_lengths() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..19).map(|i| 1.0 - i as f32 * 0.1).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-4);
    }
}
