//! The encoder's CPU kernels: a matrix product against weights stored one row per output
//! (PyTorch's `Linear` layout), GELU, layer normalisation and softmax.
//!
//! SIMD comes from `pulp`'s runtime dispatch (AVX2 + FMA on x86-64, NEON on aarch64, scalar
//! elsewhere), so one safe build runs at full width on any CPU. Work is split over the calling
//! rayon pool; nothing here starts threads.
//!
//! Why not a general GEMM: both operands of every product here are row-major along the shared
//! dimension, so each output is a dot product of two contiguous rows. A register tile of
//! 4 inputs × 3 weight rows reads each operand once per 12 multiply-adds and needs no packing,
//! which the general routines spent a third of their time on for a single query (measured in
//! BENCHMARKS.md).

use pulp::{Arch, Simd, WithSimd};
use rayon::prelude::*;

/// Rows of the input per register tile.
const TILE_ROWS: usize = 4;
/// Weight rows (outputs) per register tile.
const TILE_COLS: usize = 3;
/// From this many input rows on, tasks split the rows; below it (a single query) they split
/// the outputs, so both cores work on a ten-token query too.
const SPLIT_ROWS_FROM: usize = 64;

/// `out[i][j] = bias[j] + Σₖ x[i][k] · w[j][k]`: `x` is m × k, `w` is n × k, `out` is m × n,
/// all row-major, with n = `bias.len()`.
pub(crate) fn linear(x: &[f32], w: &[f32], bias: &[f32], k: usize, out: &mut [f32]) {
    let n = bias.len();
    let m = x.len() / k;
    assert!(x.len() == m * k && w.len() == n * k && out.len() == m * n, "linear: shapes");
    if m == 0 || n == 0 {
        return;
    }
    let tasks = rayon::current_num_threads() * 4;
    if m >= SPLIT_ROWS_FROM {
        let rows = m.div_ceil(tasks).next_multiple_of(TILE_ROWS);
        out.par_chunks_mut(rows * n).zip(x.par_chunks(rows * k)).for_each(|(out, x)| {
            Arch::new().dispatch(Product { x, w, bias, k, out });
        });
    } else {
        let cols = n.div_ceil(tasks).next_multiple_of(TILE_COLS).max(TILE_COLS * 4);
        let blocks: Vec<(usize, Vec<f32>)> = (0..n)
            .step_by(cols)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|first| {
                let last = (first + cols).min(n);
                let mut block = vec![0f32; m * (last - first)];
                Arch::new().dispatch(Product {
                    x,
                    w: &w[first * k..last * k],
                    bias: &bias[first..last],
                    k,
                    out: &mut block,
                });
                (first, block)
            })
            .collect();
        for (first, block) in blocks {
            let width = block.len() / m;
            for (row, part) in out.chunks_exact_mut(n).zip(block.chunks_exact(width)) {
                row[first..first + width].copy_from_slice(part);
            }
        }
    }
}

/// One task's share of [`linear`]: all of `x`'s rows against all of `w`'s rows.
struct Product<'a> {
    x: &'a [f32],
    w: &'a [f32],
    bias: &'a [f32],
    k: usize,
    out: &'a mut [f32],
}

impl WithSimd for Product<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let Product { x, w, bias, k, out } = self;
        let (m, n) = (x.len() / k, bias.len());
        let mut j = 0;
        while j < n {
            let cols = (n - j).min(TILE_COLS);
            let mut i = 0;
            while i < m {
                let rows = (m - i).min(TILE_ROWS);
                match (rows, cols) {
                    (TILE_ROWS, TILE_COLS) => {
                        tile::<S, TILE_ROWS, TILE_COLS>(simd, x, w, bias, k, out, i, j);
                    }
                    (_, TILE_COLS) => {
                        for r in i..i + rows {
                            tile::<S, 1, TILE_COLS>(simd, x, w, bias, k, out, r, j);
                        }
                    }
                    (TILE_ROWS, _) => {
                        for c in j..j + cols {
                            tile::<S, TILE_ROWS, 1>(simd, x, w, bias, k, out, i, c);
                        }
                    }
                    _ => {
                        for r in i..i + rows {
                            for c in j..j + cols {
                                tile::<S, 1, 1>(simd, x, w, bias, k, out, r, c);
                            }
                        }
                    }
                }
                i += rows;
            }
            j += cols;
        }
    }
}

/// R × C outputs starting at row `i`, column `j`, accumulated in R·C vector registers.
#[inline(always)]
#[allow(clippy::too_many_arguments, reason = "an inlined inner kernel, not an API")]
fn tile<S: Simd, const R: usize, const C: usize>(
    simd: S,
    x: &[f32],
    w: &[f32],
    bias: &[f32],
    k: usize,
    out: &mut [f32],
    i: usize,
    j: usize,
) {
    let n = bias.len();
    let xs: [(&[S::f32s], &[f32]); R] =
        std::array::from_fn(|r| S::as_simd_f32s(&x[(i + r) * k..(i + r + 1) * k]));
    let ws: [(&[S::f32s], &[f32]); C] =
        std::array::from_fn(|c| S::as_simd_f32s(&w[(j + c) * k..(j + c + 1) * k]));
    let len = xs[0].0.len();
    let xv: [&[S::f32s]; R] = std::array::from_fn(|r| &xs[r].0[..len]);
    let wv: [&[S::f32s]; C] = std::array::from_fn(|c| &ws[c].0[..len]);
    let mut acc = [[simd.splat_f32s(0.0); C]; R];
    for p in 0..len {
        let wp: [S::f32s; C] = std::array::from_fn(|c| wv[c][p]);
        for r in 0..R {
            let xp = xv[r][p];
            for c in 0..C {
                acc[r][c] = simd.mul_add_f32s(xp, wp[c], acc[r][c]);
            }
        }
    }
    for r in 0..R {
        for c in 0..C {
            let tail: f32 = xs[r].1.iter().zip(ws[c].1).map(|(a, b)| a * b).sum();
            out[(i + r) * n + j + c] = simd.reduce_sum_f32s(acc[r][c]) + tail + bias[j + c];
        }
    }
}

/// Dot product of two equally long rows.
#[inline(always)]
pub(crate) fn dot<S: Simd>(simd: S, a: &[f32], b: &[f32]) -> f32 {
    let (ah, at) = S::as_simd_f32s(a);
    let (bh, bt) = S::as_simd_f32s(b);
    let mut acc = [simd.splat_f32s(0.0); 2];
    let pairs = ah.chunks_exact(2).zip(bh.chunks_exact(2));
    for (x, y) in pairs {
        acc[0] = simd.mul_add_f32s(x[0], y[0], acc[0]);
        acc[1] = simd.mul_add_f32s(x[1], y[1], acc[1]);
    }
    if ah.len() % 2 == 1 {
        let last = ah.len() - 1;
        acc[0] = simd.mul_add_f32s(ah[last], bh[last], acc[0]);
    }
    let tail: f32 = at.iter().zip(bt).map(|(x, y)| x * y).sum();
    simd.reduce_sum_f32s(simd.add_f32s(acc[0], acc[1])) + tail
}

/// `acc += scale · row`.
#[inline(always)]
pub(crate) fn axpy<S: Simd>(simd: S, scale: f32, row: &[f32], acc: &mut [f32]) {
    let (rh, rt) = S::as_simd_f32s(row);
    let (ah, at) = S::as_mut_simd_f32s(acc);
    let s = simd.splat_f32s(scale);
    for (a, r) in ah.iter_mut().zip(rh) {
        *a = simd.mul_add_f32s(s, *r, *a);
    }
    for (a, r) in at.iter_mut().zip(rt) {
        *a += scale * r;
    }
}

/// The activations a BERT config may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Activation {
    /// `x · Φ(x)` with the exact error function (`"gelu"`).
    Gelu,
    /// The tanh approximation (`"gelu_new"`, `"gelu_pytorch_tanh"`, `"gelu_fast"`).
    GeluTanh,
    /// `max(x, 0)`.
    Relu,
}

/// Applies `act` to every element, in parallel chunks.
pub(crate) fn activate(values: &mut [f32], act: Activation) {
    values
        .par_chunks_mut(16 * 1024)
        .for_each(|chunk| Arch::new().dispatch(Activate { chunk, act }));
}

/// One chunk of [`activate`]. A `WithSimd` type rather than a closure: its body is inlined into
/// the dispatched, feature-enabled function, so the element loop vectorises.
struct Activate<'a> {
    chunk: &'a mut [f32],
    act: Activation,
}

impl WithSimd for Activate<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, _simd: S) {
        match self.act {
            Activation::Gelu => self.chunk.iter_mut().for_each(|v| *v = gelu_erf(*v)),
            Activation::GeluTanh => self.chunk.iter_mut().for_each(|v| *v = gelu_tanh(*v)),
            Activation::Relu => self.chunk.iter_mut().for_each(|v| *v = v.max(0.0)),
        }
    }
}

/// `x ← LayerNorm(x + residual)` (or of `x` alone) row by row, rows of `gamma.len()`,
/// population variance.
pub(crate) fn layer_norm(
    x: &mut [f32],
    residual: Option<&[f32]>,
    gamma: &[f32],
    beta: &[f32],
    eps: f32,
) {
    const ROWS: usize = 16;
    let h = gamma.len();
    x.par_chunks_mut(h * ROWS).enumerate().for_each(|(chunk, x)| {
        let residual = residual.map(|r| &r[chunk * h * ROWS..][..x.len()]);
        Arch::new().dispatch(Normalise { x, residual, gamma, beta, eps });
    });
}

/// One chunk of rows of [`layer_norm`].
struct Normalise<'a> {
    x: &'a mut [f32],
    residual: Option<&'a [f32]>,
    gamma: &'a [f32],
    beta: &'a [f32],
    eps: f32,
}

impl WithSimd for Normalise<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, _simd: S) {
        let Normalise { x, residual, gamma, beta, eps } = self;
        let h = gamma.len();
        for (i, row) in x.chunks_exact_mut(h).enumerate() {
            if let Some(residual) = residual {
                row.iter_mut().zip(&residual[i * h..][..h]).for_each(|(v, r)| *v += r);
            }
            normalise(row, gamma, beta, eps);
        }
    }
}

/// LayerNorm of one row in place.
#[inline(always)]
fn normalise(row: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let h = row.len() as f32;
    let mean = lane_sum(row, |v| v) / h;
    let var = lane_sum(row, |v| (v - mean) * (v - mean)) / h;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
        *v = (*v - mean) * inv * g + b;
    }
}

/// `Σ f(v)` in eight independent lanes, so it vectorises (a plain fold may not be reordered).
#[inline(always)]
fn lane_sum(values: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let mut lanes = [0f32; 8];
    let chunks = values.chunks_exact(8);
    let rest: f32 = chunks.remainder().iter().map(|&v| f(v)).sum();
    for chunk in chunks {
        for (lane, &v) in lanes.iter_mut().zip(chunk) {
            *lane += f(v);
        }
    }
    lanes.iter().sum::<f32>() + rest
}

/// Softmax of one row in place.
#[inline(always)]
pub(crate) fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    row.iter_mut().for_each(|v| *v = exp(*v - max));
    let sum = lane_sum(row, |v| v);
    let inv = 1.0 / sum;
    row.iter_mut().for_each(|v| *v *= inv);
}

/// `eˣ` without branches, so it vectorises: 2ⁿ · p(r) with r = x − n·ln 2, |r| ≤ ln 2 / 2,
/// and a degree-6 Taylor polynomial (relative error < 2·10⁻⁷ over the clamped range).
#[inline(always)]
fn exp(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Adding and removing 1.5·2²³ rounds to the nearest integer with plain arithmetic (no
    // `floor`, which is a library call where SSE4.1 is not enabled).
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0 / 720.0;
    let p = p * r + 1.0 / 120.0;
    let p = p * r + 1.0 / 24.0;
    let p = p * r + 1.0 / 6.0;
    let p = p * r + 0.5;
    let p = p * r + 1.0;
    let p = p * r + 1.0;
    p * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

/// `erf(x)` by Abramowitz & Stegun 7.1.26 (absolute error ≤ 1.5·10⁻⁷), branch-free.
#[inline(always)]
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = ((((1.061_405_4 * t - 1.453_152) * t + 1.421_413_8) * t - 0.284_496_72) * t
        + 0.254_829_6)
        * t;
    (1.0 - poly * exp(-a * a)).copysign(x)
}

/// GELU with the exact error function, as BERT's `"gelu"`.
#[inline(always)]
fn gelu_erf(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// GELU's tanh approximation, as `"gelu_new"`.
#[inline(always)]
fn gelu_tanh(x: f32) -> f32 {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    let u = SQRT_2_OVER_PI * (x + 0.044_715 * x * x * x);
    // tanh(u) = 1 − 2 / (e²ᵘ + 1), exact at both ends thanks to exp's clamp.
    let tanh = 1.0 - 2.0 / (exp(2.0 * u) + 1.0);
    0.5 * x * (1.0 + tanh)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_matches_a_naive_product_for_every_tile_shape() {
        // Sizes that leave remainders in every direction, on both the row and column split.
        for (m, n, k) in [(1, 1, 1), (3, 5, 7), (5, 7, 19), (13, 16, 33), (70, 11, 40)] {
            let x: Vec<f32> = (0..m * k).map(|i| ((i * 7 % 13) as f32 - 6.0) / 5.0).collect();
            let w: Vec<f32> = (0..n * k).map(|i| ((i * 5 % 11) as f32 - 5.0) / 4.0).collect();
            let bias: Vec<f32> = (0..n).map(|j| j as f32 / 3.0).collect();
            let mut out = vec![f32::NAN; m * n];
            linear(&x, &w, &bias, k, &mut out);
            for i in 0..m {
                for j in 0..n {
                    let want: f32 =
                        bias[j] + (0..k).map(|p| x[i * k + p] * w[j * k + p]).sum::<f32>();
                    let got = out[i * n + j];
                    assert!(
                        (got - want).abs() <= 1e-4 * want.abs().max(1.0),
                        "{m}x{n}x{k} [{i},{j}]: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn exp_and_erf_are_accurate_over_the_range_that_matters() {
        for i in -8000..=8000 {
            let x = i as f32 / 100.0;
            let (got, want) = (exp(x), x.exp());
            assert!((got - want).abs() <= 4e-7 * want, "exp({x}) = {got}, want {want}");
        }
        // Reference erf values (Abramowitz & Stegun table 7.1).
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (2.0, 0.995_322_3),
            (-1.0, -0.842_700_8),
            (4.0, 1.0),
        ] {
            assert!((erf(x) - want).abs() < 3e-7, "erf({x}) = {}, want {want}", erf(x));
        }
        assert!((gelu_erf(1.0) - 0.841_344_7).abs() < 1e-6);
        assert!((gelu_tanh(1.0) - 0.841_192).abs() < 1e-5);
        assert_eq!(gelu_erf(-20.0), -0.0);
    }

    #[test]
    fn softmax_and_layer_norm_are_normalised() {
        let mut row = vec![1.0f32, 2.0, 3.0, -50.0, 0.5];
        softmax(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[2] > row[1] && row[1] > row[0] && row[3] < 1e-20);
        let mut x: Vec<f32> = (0..24).map(|i| i as f32).collect();
        let residual = vec![1.0f32; 24];
        let (gamma, beta) = (vec![2.0f32; 12], vec![0.5f32; 12]);
        layer_norm(&mut x, Some(&residual), &gamma, &beta, 1e-12);
        for row in x.chunks(12) {
            let mean = row.iter().sum::<f32>() / 12.0;
            let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / 12.0;
            assert!((mean - 0.5).abs() < 1e-5 && (var - 4.0).abs() < 1e-4, "{mean} {var}");
        }
    }
}
