#!/usr/bin/env python3
"""Synthetic vectors with the spectrum of real ones, for vector-index benchmarks past the size of
any real set we can embed.

Reads a vector file of bench/real_vectors.py (little-endian f32 rows of 384; the last QUERIES rows
are real query vectors), fits a Gaussian to its passages (their mean and full covariance, so the
samples keep the real vectors' anisotropy and the way their variance falls off across
dimensions), draws N unit vectors from it, and writes them followed by the same real queries: a
file bench/pg_hnsw_recall.py reads.

    python3 bench/spectrum_vectors.py REAL.f32 OUT.f32 --size 1000000 [--queries 300]

What this stands in for: a million distinct memories embedded by multilingual-e5-small, which
would take this VM's model hours to embed from text we do not have (the shared data hold ~32k
distinct messages). What it is not: real. A Gaussian has no topics; locally it is as
high-dimensional as the covariance allows, which makes it harder for a graph index than real
text, not easier. It has no near-copies either (the scale bench's corpus, which repeats its texts
with a counter suffix, has ~34 of each at 1M). Needs numpy (not a dependency of the project).
"""
import argparse
import sys

import numpy as np

DIMS = 384


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("real")
    p.add_argument("out")
    p.add_argument("--size", type=int, default=1_000_000)
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--seed", type=int, default=42)
    args = p.parse_args()
    rows = np.fromfile(args.real, dtype="<f4").reshape(-1, DIMS)
    passages, queries = rows[: -args.queries], rows[-args.queries:]
    mean = passages.mean(axis=0)
    cov = np.cov(passages, rowvar=False)
    # Sample through the eigendecomposition (covariance is symmetric, possibly singular).
    values, vectors = np.linalg.eigh(cov)
    scale = vectors * np.sqrt(np.clip(values, 0, None))
    rng = np.random.default_rng(args.seed)
    with open(args.out, "wb") as out:
        left = args.size
        while left:
            n = min(left, 100_000)
            sample = mean + rng.standard_normal((n, DIMS)) @ scale.T
            sample /= np.linalg.norm(sample, axis=1, keepdims=True)
            sample.astype("<f4").tofile(out)
            left -= n
        queries.astype("<f4").tofile(out)
    top = np.sort(values)[::-1]
    share = top.cumsum() / top.sum()
    print(f"{args.size} samples + {len(queries)} real queries -> {args.out}; "
          f"variance in the top 10 / 50 / 100 directions: "
          f"{share[9]:.2f} / {share[49]:.2f} / {share[99]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
