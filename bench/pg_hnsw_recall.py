#!/usr/bin/env python3
"""pgvector HNSW recall@10 against the exact scan, at several hnsw.ef_search values.

Reads the vector file of bench/real_vectors.py (little-endian f32 rows of DIMS; the last QUERIES
rows are queries), loads the passages into a fresh table of PostgreSQL (pgvector), builds an
HNSW index (`USING hnsw (… vector_cosine_ops)`, with pgvector's defaults m 16, ef_construction
64, or `--with 'm = 16, ef_construction = 128'` as rearview builds it), and for each ef_search
asks every query for its 10 nearest, through the index (sequential scans off) and by the exact
scan (index scans off), in one statement each. Recall is counted two ways: the exact top 10's
own rows found (`recall_at_10`), and answers as near as the exact 10th (`by_distance`: cosine
distance within 1e-3 of it, relative: stricter than ann-benchmarks' k-nn rule, 1e-3 absolute),
which differ where rows tie.
Prints one JSON line.

    python3 bench/pg_hnsw_recall.py VECTORS.f32 --psql "$REARVIEW_PG_BIN/psql" --url "$URL"

The table lives in a schema of its own, dropped at the end.
"""
import argparse
import json
import struct
import subprocess
import sys
import time
import uuid

DIMS = 384


class Rows:
    """The file's rows, read as they are asked for (a million rows as Python tuples would take
    over 10 GB)."""

    def __init__(self, data, start=0, stop=None):
        self.data, self.start = data, start
        self.stop = len(data) // (DIMS * 4) if stop is None else stop

    def __len__(self):
        return self.stop - self.start

    def __getitem__(self, part):
        if isinstance(part, slice):
            first, last, step = part.indices(len(self))
            if step != 1:
                raise ValueError("Rows slices take no step")
            return Rows(self.data, self.start + first, self.start + max(first, last))
        if part < 0:
            part += len(self)
        if not 0 <= part < len(self):
            raise IndexError(part)
        return struct.unpack_from(f"<{DIMS}f", self.data, (self.start + part) * DIMS * 4)

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def rows(path):
    return Rows(open(path, "rb").read())


def literal(v):
    return "[" + ",".join(f"{x:.7g}" for x in v) + "]"


def psql(args, sql, stdin=None):
    cmd = [args.psql, args.url, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql]
    out = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"psql failed: {out.stderr.strip()}")
    return out.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("vectors")
    p.add_argument("--psql", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--ef", default="40,100,200,400,800")
    p.add_argument("--with", dest="params", default="",
                   help="index parameters, e.g. 'm = 16, ef_construction = 128' (default: pgvector's)")
    p.add_argument("--ask", type=int, default=0,
                   help="ask only the first N queries (each is an exact scan: ~1 s at 1M)")
    p.add_argument("--build-memory", default="",
                   help="maintenance_work_mem for the build, e.g. '4GB' (default: the server's)")
    args = p.parse_args()
    all_rows = rows(args.vectors)
    passages, queries = all_rows[: -args.queries], all_rows[-args.queries:]
    if args.ask:
        queries = queries[: args.ask]
    schema = f"hnsw_bench_{uuid.uuid4().hex[:12]}"
    t = f"{schema}.v"
    psql(args, f"CREATE EXTENSION IF NOT EXISTS vector; CREATE SCHEMA {schema}; "
               f"CREATE TABLE {t} (id int PRIMARY KEY, e vector({DIMS})); "
               f"CREATE TABLE {schema}.q (id int PRIMARY KEY, e vector({DIMS}));")
    try:
        for start in range(0, len(passages), 50_000):
            chunk = enumerate(passages[start:start + 50_000], start)
            psql(args, f"COPY {t} FROM STDIN", stdin="".join(f"{i}\t{literal(v)}\n" for i, v in chunk))
        copy = "".join(f"{i}\t{literal(v)}\n" for i, v in enumerate(queries))
        psql(args, f"COPY {schema}.q FROM STDIN", stdin=copy)
        started = time.monotonic()
        params = f" WITH ({args.params})" if args.params else ""
        memory = f"SET maintenance_work_mem = '{args.build_memory}'; " if args.build_memory else ""
        psql(args, f"{memory}CREATE INDEX ON {t} USING hnsw (e vector_cosine_ops){params}; ANALYZE {t};")
        build = time.monotonic() - started
        ask = (f"SELECT q.id, array_agg(n.id), max(n.d) FROM {schema}.q q CROSS JOIN LATERAL "
               f"(SELECT v.id, v.e <=> q.e AS d FROM {t} v ORDER BY v.e <=> q.e LIMIT 10) n "
               f"GROUP BY q.id ORDER BY q.id")

        def answers(settings):
            started = time.monotonic()
            out = psql(args, f"BEGIN; {settings} {ask}; COMMIT;")
            took = time.monotonic() - started
            found, tenth = {}, {}
            for line in out.splitlines():
                qid, ids, farthest = line.split("|")
                found[int(qid)] = set(int(x) for x in ids.strip("{}").split(",") if x)
                tenth[int(qid)] = float(farthest)
            return found, tenth, took

        exact, exact_tenth, exact_secs = answers("SET LOCAL enable_indexscan = off;")
        result = {"index_with": args.params or "pgvector defaults (m 16, ef_construction 64)",
                  "passages": len(passages), "queries": len(queries), "build_secs": build,
                  "exact_ms_per_query": exact_secs * 1e3 / len(queries), "ef_search": {}}
        for ef in [int(x) for x in args.ef.split(",")]:
            # Index scans only: past some ef_search the planner prefers the exact scan.
            settings = f"SET LOCAL enable_seqscan = off; SET LOCAL hnsw.ef_search = {ef};"
            got, _, secs = answers(settings)
            near = distances_within(args, t, schema, got, exact_tenth)
            total = sum(len(exact[q]) for q in exact)
            # A question the index answered with nothing is missing from `got`.
            recall = sum(len(got.get(q, set()) & exact[q]) for q in exact) / total
            result["ef_search"][ef] = {"recall_at_10": recall, "by_distance": near / total,
                                       "ms_per_query": secs * 1e3 / len(queries)}
            print(f"ef_search {ef}: recall@10 {recall:.3f}, by distance {near / total:.3f}",
                  file=sys.stderr)
        print(json.dumps(result))
    finally:
        psql(args, f"DROP SCHEMA {schema} CASCADE")


def distances_within(args, t, schema, got, tenth):
    """How many of the index's answers lie within 1e-3 (relative) of the exact 10th distance."""
    pairs = ",".join(f"({q},{i})" for q, ids in got.items() for i in ids)
    if not pairs:
        return 0
    out = psql(args, f"SELECT a.q, v.e <=> q.e FROM (VALUES {pairs}) AS a(q, id) "
                     f"JOIN {t} v ON v.id = a.id JOIN {schema}.q q ON q.id = a.q")
    near = 0
    for line in out.splitlines():
        q, d = line.split("|")
        near += float(d) <= tenth[int(q)] * (1 + 1e-3)
    return near


if __name__ == "__main__":
    main()
