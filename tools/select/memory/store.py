"""Repository memory in SQLite: files, tests, summaries, embeddings, traces, op index.

Everything expensive is keyed by a content hash, so rebuilding after an edit touches only
what changed: embeddings by the hash of the embedded text, traces by (test hash, variant,
OpInfo definition hash, torch version).
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, content_hash TEXT NOT NULL, summary TEXT NOT NULL,
    features TEXT NOT NULL, import_error TEXT);
CREATE TABLE IF NOT EXISTS tests (
    test_id TEXT PRIMARY KEY, file TEXT NOT NULL, cls TEXT NOT NULL, name TEXT NOT NULL,
    lineno INTEGER NOT NULL, kind TEXT NOT NULL, op_list TEXT NOT NULL, decorators TEXT NOT NULL,
    dtypes TEXT NOT NULL, features TEXT NOT NULL, device_generic INTEGER NOT NULL,
    content_hash TEXT NOT NULL, summary TEXT NOT NULL, embed_hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS tests_by_file ON tests(file);
CREATE TABLE IF NOT EXISTS embeddings (embed_hash TEXT PRIMARY KEY, model TEXT NOT NULL, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS variants (
    test_id TEXT NOT NULL, variant TEXT NOT NULL, dtypes TEXT NOT NULL, trace_key TEXT NOT NULL,
    aten TEXT, device TEXT NOT NULL, restrictions TEXT NOT NULL,
    PRIMARY KEY (test_id, variant));
CREATE TABLE IF NOT EXISTS traces (
    trace_key TEXT PRIMARY KEY, unit_key TEXT NOT NULL, dtype TEXT, status TEXT NOT NULL, ops TEXT NOT NULL,
    kernel_ops TEXT NOT NULL, kernel_dtypes TEXT NOT NULL, compare_ops TEXT NOT NULL, error TEXT NOT NULL,
    note TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS traces_by_unit ON traces(unit_key);
CREATE TABLE IF NOT EXISTS op_index (op TEXT NOT NULL, test_id TEXT NOT NULL, variant TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS op_index_by_op ON op_index(op);
"""


# Bump when the variants/traces tables change shape: they are dropped and rebuilt (a cache).
SCHEMA_VERSION = "3"  # 3: a dead trace worker's status is "crashed" (was "crash")
_DERIVED = ("variants", "traces", "op_index")


@dataclass(frozen=True)
class TraceRow:
    """One traced CPU execution of a unit at one dtype."""

    dtype: str | None
    status: str
    ops: tuple[str, ...]
    kernel_ops: tuple[str, ...]
    kernel_dtypes: dict[str, tuple[str, ...]]  # kernel op -> dtypes it saw
    compare_ops: tuple[str, ...]
    error: str
    note: str = ""


def unit_key_of(trace_key: str) -> tuple[str, str | None]:
    """``<unit key>|<dtype>`` -> (unit key, dtype or None)."""
    unit, _, dtype = trace_key.partition("|")
    return unit, dtype or None


@dataclass(frozen=True)
class VariantRow:
    """One unit the selection decides on: a test, the op/module it is parametrised with."""

    test_id: str
    variant: str
    dtypes: tuple[str, ...]
    trace_key: str
    status: str | None
    ops: tuple[str, ...]
    kernel_ops: tuple[str, ...]  # the subset a device must implement itself
    compare_ops: tuple[str, ...]
    error: str
    aten: str | None = None  # OpInfo.aten_name (op variants)
    device: tuple[tuple[str, tuple[str, ...]], ...] = ()  # what the device generates: (name template, dtypes)
    restrictions: dict = None  # class-level only_for / except_for
    traces: tuple[TraceRow, ...] = ()  # one per traced dtype

    @property
    def unit_id(self) -> str:
        return f"{self.test_id}[{self.variant}]" if self.variant else self.test_id


def _trace_order(trace: TraceRow) -> tuple:
    preferred = ("float32", "float16", "bfloat16", "int64", "int32", "bool")
    return (preferred.index(trace.dtype) if trace.dtype in preferred else len(preferred), str(trace.dtype))


class Memory:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # trace workers report from threads; every write goes through one lock (see memory.py)
        self.db = sqlite3.connect(str(self.path), check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self._migrate()
        self.db.executescript(SCHEMA)
        self.set_meta("schema_version", SCHEMA_VERSION)

    def _migrate(self) -> None:
        have = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" not in have:
            return
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is not None and row[0] == SCHEMA_VERSION:
            return
        with self.db:
            for table in _DERIVED:
                self.db.execute(f"DROP TABLE IF EXISTS {table}")
            self.db.execute("DELETE FROM meta WHERE key LIKE 'traced:%'")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self.db:
            yield self.db

    # -- meta ------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- files and tests -------------------------------------------------------------------
    def file_hash(self, path: str) -> str | None:
        row = self.db.execute("SELECT content_hash FROM files WHERE path=?", (path,)).fetchone()
        return None if row is None else row[0]

    def file_paths(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT path FROM files ORDER BY path")]

    def keep_previous(self) -> Path:
        """A consistent copy of the memory in ``<name>.prev`` (before it drops files)."""
        dest = self.path.with_name(self.path.name + ".prev")
        tmp = dest.with_name(dest.name + ".tmp")
        tmp.unlink(missing_ok=True)
        with sqlite3.connect(str(tmp)) as out:
            self.db.backup(out)
        out.close()
        os.replace(tmp, dest)
        return dest

    def forget_file(self, path: str) -> None:
        with self.db:
            ids = [r[0] for r in self.db.execute("SELECT test_id FROM tests WHERE file=?", (path,))]
            self.db.executemany("DELETE FROM variants WHERE test_id=?", [(i,) for i in ids])
            self.db.execute("DELETE FROM tests WHERE file=?", (path,))
            self.db.execute("DELETE FROM files WHERE path=?", (path,))

    def put_file(
        self,
        path: str,
        content_hash: str,
        summary: str,
        features: Iterable[str],
        tests: list[dict],
        import_error: str | None = None,
    ) -> None:
        with self.db:
            old = {r[0] for r in self.db.execute("SELECT test_id FROM tests WHERE file=?", (path,))}
            gone = old - {t["test_id"] for t in tests}
            self.db.executemany("DELETE FROM variants WHERE test_id=?", [(i,) for i in gone])
            self.db.execute("DELETE FROM tests WHERE file=?", (path,))
            self.db.execute(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)",
                (path, content_hash, summary, json.dumps(sorted(features)), import_error),
            )
            self.db.executemany(
                "INSERT INTO tests VALUES (:test_id, :file, :cls, :name, :lineno, :kind, :op_list, :decorators,"
                " :dtypes, :features, :device_generic, :content_hash, :summary, :embed_hash)",
                tests,
            )

    def set_import_error(self, path: str, error: str | None) -> None:
        with self.db:
            self.db.execute("UPDATE files SET import_error=? WHERE path=?", (error, path))

    def tests(self, file: str | None = None) -> list[sqlite3.Row]:
        query, args = "SELECT * FROM tests", ()
        if file is not None:
            query, args = query + " WHERE file=?", (file,)
        return list(self.db.execute(query + " ORDER BY test_id", args))

    def files(self) -> list[sqlite3.Row]:
        return list(self.db.execute("SELECT * FROM files ORDER BY path"))

    # -- embeddings ------------------------------------------------------------------------
    def missing_embeddings(self) -> list[sqlite3.Row]:
        return list(
            self.db.execute(
                "SELECT DISTINCT t.embed_hash, t.test_id FROM tests t LEFT JOIN embeddings e"
                " ON t.embed_hash=e.embed_hash WHERE e.embed_hash IS NULL GROUP BY t.embed_hash"
            )
        )

    def put_embeddings(self, model: str, rows: list[tuple[str, bytes]]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)", [(h, model, blob) for h, blob in rows]
            )

    def vectors_by_hash(self, hashes: list[str]) -> dict[str, bytes]:
        found = {}
        for i in range(0, len(hashes), 500):
            chunk = hashes[i : i + 500]
            marks = ",".join("?" * len(chunk))
            found.update(
                {
                    r[0]: r[1]
                    for r in self.db.execute(
                        f"SELECT embed_hash, vector FROM embeddings WHERE embed_hash IN ({marks})", chunk
                    )
                }
            )
        return found

    def embedding_rows(self) -> list[tuple[str, bytes]]:
        return [
            (r[0], r[1])
            for r in self.db.execute(
                "SELECT t.test_id, e.vector FROM tests t JOIN embeddings e ON t.embed_hash=e.embed_hash ORDER BY t.test_id"
            )
        ]

    # -- variants and traces ---------------------------------------------------------------
    def known_trace_keys(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT trace_key FROM traces")}

    def put_variants(self, file: str, items: list[dict]) -> None:
        with self.db:
            ids = [r[0] for r in self.db.execute("SELECT test_id FROM tests WHERE file=?", (file,))]
            self.db.executemany("DELETE FROM variants WHERE test_id=?", [(i,) for i in ids])
            self.db.executemany(
                "INSERT OR REPLACE INTO variants VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        f"{file}::{i['cls']}::{i['test']}",
                        i["variant"],
                        json.dumps(i["dtypes"]),
                        i["key"],
                        i.get("aten"),
                        json.dumps(i.get("device", [])),
                        json.dumps(i.get("restrictions", {})),
                    )
                    for i in items
                ],
            )

    def put_trace(
        self,
        key: str,
        status: str,
        dtype: str | None,
        ops: list[str],
        kernel_ops: list[str],
        compare_ops: list[str],
        error: str,
        kernel_dtypes: dict | None = None,
        note: str = "",
    ) -> None:
        unit, keyed_dtype = unit_key_of(key)
        dtype = dtype or keyed_dtype  # a crash report names the key only
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO traces VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    unit,
                    dtype,
                    status,
                    json.dumps(ops),
                    json.dumps(kernel_ops),
                    json.dumps(kernel_dtypes or {}),
                    json.dumps(compare_ops),
                    error,
                    note,
                ),
            )

    def _traces_by_unit(self) -> dict[str, list[TraceRow]]:
        load = lambda text: tuple(json.loads(text or "[]"))  # noqa: E731
        out: dict[str, list[TraceRow]] = {}
        for r in self.db.execute(
            "SELECT unit_key, dtype, status, ops, kernel_ops, kernel_dtypes, compare_ops, error,"
            " note FROM traces ORDER BY trace_key"
        ):
            dtypes = {op: tuple(d) for op, d in json.loads(r[5] or "{}").items()}
            out.setdefault(r[0], []).append(
                TraceRow(r[1], r[2], load(r[3]), load(r[4]), dtypes, load(r[6]), r[7], r[8])
            )
        return out

    def variants(self) -> list[VariantRow]:
        traces = self._traces_by_unit()
        load = lambda text: tuple(json.loads(text or "[]"))  # noqa: E731
        rows = []
        for r in self.db.execute(
            "SELECT test_id, variant, dtypes, trace_key, aten, device, restrictions FROM variants"
            " ORDER BY test_id, variant"
        ):
            mine = tuple(sorted(traces.get(r[3], ()), key=_trace_order))
            primary = next((t for t in mine if t.status == "passed"), mine[0] if mine else None)
            union = lambda field: tuple(sorted({op for t in mine for op in getattr(t, field)}))  # noqa: E731
            device = tuple((name, tuple(dtypes)) for name, dtypes in json.loads(r[5] or "[]"))
            rows.append(
                VariantRow(
                    r[0],
                    r[1],
                    load(r[2]),
                    r[3],
                    primary.status if primary else None,
                    union("ops"),
                    union("kernel_ops"),
                    union("compare_ops"),
                    primary.error if primary else "",
                    r[4],
                    device,
                    json.loads(r[6] or "{}"),
                    mine,
                )
            )
        return rows

    def rebuild_op_index(self) -> int:
        with self.db:
            self.db.execute("DELETE FROM op_index")
            rows = [(op, v.test_id, v.variant) for v in self.variants() for op in v.ops]
            self.db.executemany("INSERT INTO op_index VALUES (?, ?, ?)", rows)
        return len(rows)

    def tests_using(self, op: str) -> list[tuple[str, str]]:
        """Reverse index: which (test, variant) pairs run ``op``: a packet (``add``) or an
        overload (``add.Tensor``), with or without the ``aten::`` prefix."""
        op = op.removeprefix("aten::").removeprefix("aten.")
        rows = self.db.execute(
            "SELECT DISTINCT test_id, variant FROM op_index WHERE op=? OR op GLOB ? ORDER BY 1, 2",
            (f"aten::{op}", "aten::" + "".join(f"[{c}]" if c in "*?[" else c for c in op) + ".*"),
        )
        return [(r[0], r[1]) for r in rows]

    def counts(self) -> dict[str, int]:
        tables = ("files", "tests", "embeddings", "variants", "traces", "op_index")
        return {t: self.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
