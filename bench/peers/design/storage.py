# storage.py: the article's §4.2 code, transcribed. The only edits restore characters the
# article's formatting lost (`=`, `+`, `>`, quotes); the logic, queries and data layout are
# unchanged, including its known defects (vectors live only in this process).
import sqlite3
import numpy as np
import json
from datetime import datetime, timedelta
from uuid import uuid4


class MemoryStore:
    def __init__(self, db_path, vector_dim=768):
        self.conn = sqlite3.connect(db_path, check_same_thread=False)
        self.vector_dim = vector_dim
        self._init_tables()
        self.vectors = {}  # id -> np.array

    def _init_tables(self):
        self.conn.execute("""
            CREATE TABLE IF NOT EXISTS memories (
                id TEXT PRIMARY KEY,
                timestamp TEXT NOT NULL,
                session_id TEXT,
                memory_type TEXT NOT NULL,
                content TEXT NOT NULL,
                metadata TEXT,
                ttl INTEGER DEFAULT 0,
                access_count INTEGER DEFAULT 0
            )
        """)
        self.conn.execute("""
            CREATE INDEX IF NOT EXISTS idx_type ON memories(memory_type)
        """)
        self.conn.execute("""
            CREATE INDEX IF NOT EXISTS idx_timestamp ON memories(timestamp)
        """)
        self.conn.commit()

    def store(self, content, memory_type, session_id=None,
              metadata=None, ttl=0, embedding=None):
        mem_id = str(uuid4())
        ts = datetime.utcnow().isoformat()
        self.conn.execute(
            "INSERT INTO memories VALUES (?,?,?,?,?,?,?,?)",
            (mem_id, ts, session_id, memory_type, content,
             json.dumps(metadata or {}), ttl, 0)
        )
        self.conn.commit()
        if embedding is not None:
            self.vectors[mem_id] = np.array(embedding, dtype=np.float32)
        return mem_id

    def cleanup_expired(self):
        now = datetime.utcnow()
        rows = self.conn.execute(
            "SELECT id, timestamp, ttl FROM memories WHERE ttl > 0"
        ).fetchall()
        expired = []
        for row in rows:
            ts = datetime.fromisoformat(row[1])
            if now > ts + timedelta(seconds=row[2]):
                expired.append(row[0])
        for mem_id in expired:
            self.conn.execute("DELETE FROM memories WHERE id=?", (mem_id,))
            self.vectors.pop(mem_id, None)
        self.conn.commit()
        return len(expired)
