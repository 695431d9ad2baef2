#!/usr/bin/env python3
"""pgvector HNSW recall@10 against the exact scan, at several hnsw.ef_search values.

Reads the vector file of bench/real_vectors.py (little-endian f32 rows of DIMS; the last QUERIES
rows are queries), loads the passages into a fresh table of PostgreSQL (pgvector), builds an
HNSW index (`USING hnsw (… vector_cosine_ops)`, with pgvector's defaults m 16, ef_construction
64, or `--with 'm = 16, ef_construction = 128'` as rearview builds it), and for each ef_search
asks every query for its 10 nearest, through the index (sequential scans off) and by the exact
scan (index scans off), in one statement each. Prints one JSON line.

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


def rows(path):
    data = open(path, "rb").read()
    width = DIMS * 4
    for i in range(0, len(data) - width + 1, width):
        yield struct.unpack_from(f"<{DIMS}f", data, i)


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
    args = p.parse_args()
    all_rows = list(rows(args.vectors))
    passages, queries = all_rows[: -args.queries], all_rows[-args.queries:]
    schema = f"hnsw_bench_{uuid.uuid4().hex[:12]}"
    t = f"{schema}.v"
    psql(args, f"CREATE EXTENSION IF NOT EXISTS vector; CREATE SCHEMA {schema}; "
               f"CREATE TABLE {t} (id int PRIMARY KEY, e vector({DIMS})); "
               f"CREATE TABLE {schema}.q (id int PRIMARY KEY, e vector({DIMS}));")
    try:
        copy = "".join(f"{i}\t{literal(v)}\n" for i, v in enumerate(passages))
        psql(args, f"COPY {t} FROM STDIN", stdin=copy)
        copy = "".join(f"{i}\t{literal(v)}\n" for i, v in enumerate(queries))
        psql(args, f"COPY {schema}.q FROM STDIN", stdin=copy)
        started = time.monotonic()
        params = f" WITH ({args.params})" if args.params else ""
        psql(args, f"CREATE INDEX ON {t} USING hnsw (e vector_cosine_ops){params}; ANALYZE {t};")
        build = time.monotonic() - started
        ask = (f"SELECT q.id, array(SELECT v.id FROM {t} v ORDER BY v.e <=> q.e LIMIT 10) "
               f"FROM {schema}.q q ORDER BY q.id")

        def answers(settings):
            started = time.monotonic()
            out = psql(args, f"BEGIN; {settings} {ask}; COMMIT;")
            took = time.monotonic() - started
            found = {}
            for line in out.splitlines():
                qid, ids = line.split("|", 1)
                found[int(qid)] = set(int(x) for x in ids.strip("{}").split(",") if x)
            return found, took

        exact, exact_secs = answers("SET LOCAL enable_indexscan = off;")
        result = {"index_with": args.params or "pgvector defaults (m 16, ef_construction 64)",
                  "passages": len(passages), "queries": len(queries), "build_secs": build,
                  "exact_ms_per_query": exact_secs * 1e3 / len(queries), "ef_search": {}}
        for ef in [int(x) for x in args.ef.split(",")]:
            # Index scans only: past some ef_search the planner prefers the exact scan.
            got, secs = answers(f"SET LOCAL enable_seqscan = off; SET LOCAL hnsw.ef_search = {ef};")
            recall = sum(len(got[q] & exact[q]) for q in exact) / sum(len(exact[q]) for q in exact)
            result["ef_search"][ef] = {"recall_at_10": recall,
                                       "ms_per_query": secs * 1e3 / len(queries)}
        print(json.dumps(result))
    finally:
        psql(args, f"DROP SCHEMA {schema} CASCADE")


if __name__ == "__main__":
    main()
