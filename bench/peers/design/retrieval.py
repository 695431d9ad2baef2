# retrieval.py: the article's §4.3 code, transcribed like storage.py (only lost characters
# restored). The formula: 0.7 * cosine + 0.3 * min(bm25 / 10, 1), times exp(-0.01 * days_ago),
# times (1 + 0.1 * log(1 + access_count)); top-k; access counts bumped one commit per result.
import numpy as np
from rank_bm25 import BM25Okapi
from datetime import datetime
import math


class MemoryRetriever:
    def __init__(self, store, embedder):
        self.store = store
        self.embedder = embedder
        self.bm25 = None
        self.bm25_ids = []
        self._build_bm25_index()

    def _build_bm25_index(self):
        rows = self.store.conn.execute(
            "SELECT id, content FROM memories"
        ).fetchall()
        self.bm25_ids = [r[0] for r in rows]
        corpus = [r[1].lower().split() for r in rows]
        if corpus:
            self.bm25 = BM25Okapi(corpus)

    def retrieve(self, query, top_k=5, memory_type=None):
        # 向量检索
        query_vec = self.embedder.encode(query)
        vec_scores = {}
        for mem_id, vec in self.store.vectors.items():
            sim = np.dot(query_vec, vec) / (
                np.linalg.norm(query_vec) * np.linalg.norm(vec) + 1e-8
            )
            vec_scores[mem_id] = float(sim)

        # 关键词检索
        kw_scores = {}
        if self.bm25:
            tokens = query.lower().split()
            scores = self.bm25.get_scores(tokens)
            for i, mem_id in enumerate(self.bm25_ids):
                kw_scores[mem_id] = float(scores[i])

        # 合并
        all_ids = set(vec_scores.keys()) | set(kw_scores.keys())
        combined = {}
        for mem_id in all_ids:
            v = vec_scores.get(mem_id, 0)
            k = kw_scores.get(mem_id, 0)
            # 归一化后加权
            combined[mem_id] = 0.7 * v + 0.3 * min(k / 10.0, 1.0)

        # 时间衰减和热度加权
        now = datetime.utcnow()
        final = {}
        for mem_id, score in combined.items():
            row = self.store.conn.execute(
                "SELECT timestamp, access_count, memory_type FROM memories WHERE id=?",
                (mem_id,)
            ).fetchone()
            if not row:
                continue
            if memory_type and row[2] != memory_type:
                continue
            ts = datetime.fromisoformat(row[0])
            days_ago = (now - ts).total_seconds() / 86400
            decay = math.exp(-0.01 * days_ago)
            heat = math.log(1 + row[1])
            final[mem_id] = score * decay * (1 + 0.1 * heat)

        # 排序取Top-K
        sorted_ids = sorted(final.keys(), key=lambda x: final[x], reverse=True)
        results = []
        for mem_id in sorted_ids[:top_k]:
            row = self.store.conn.execute(
                "SELECT id, timestamp, content, memory_type, metadata FROM memories WHERE id=?",
                (mem_id,)
            ).fetchone()
            results.append({
                "id": row[0], "timestamp": row[1], "content": row[2],
                "memory_type": row[3], "metadata": row[4], "score": final[mem_id]
            })
            # 更新访问计数
            self.store.conn.execute(
                "UPDATE memories SET access_count = access_count + 1 WHERE id=?",
                (mem_id,)
            )
        self.store.conn.commit()
        return results
