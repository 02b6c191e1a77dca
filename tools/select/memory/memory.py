"""Stage 2: build or update the repository memory (index -> embed -> trace -> op index).

Incremental by content hash at every step: an unchanged file is not re-parsed, an unchanged
test text is not re-embedded, and an unchanged (test, op definition, torch) is not re-traced.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from tqdm import tqdm

from tools.errors import SelectError
from tools.select.common import restrictions
from tools.select.common.capabilities import CapabilityTable, packet
from tools.select.memory import embeddings as emb
from tools.select.memory import opinfo_index, summaries
from tools.select.memory.store import Memory
from tools.select.memory.tracing import trace_file
from tools.select.scope.symbols import FileSymbols, parse_file

# Bump when symbol/summary extraction changes: files are re-indexed (cheap), while embeddings
# and traces stay keyed by content and are reused.
INDEX_VERSION = "2"
# Bump when what a trace records changes: every file's worker runs again (known keys still skip).
TRACE_VERSION = "3"


@dataclass(frozen=True)
class TracePlan:
    """What the device needs traced: scope features left out (those tests are not run at all),
    the dtypes the device computes in (each unit is traced at every one of them it generates),
    and the aten ops the device table lists (units of other ops get one representative trace)."""

    out_features: dict[str, str] = field(default_factory=dict)
    device: str | None = None  # its name: tests whose decorators keep them off it are not run
    trace_dtypes: frozenset[str] | None = None
    device_ops: dict[str, tuple[str, ...]] | None = None  # aten packet -> dtypes the table lists

    @classmethod
    def for_device(
        cls, caps: CapabilityTable | None, out_features: dict[str, str] | None = None
    ) -> "TracePlan":
        if caps is None:
            return cls(dict(out_features or {}))
        ops: dict[str, set[str]] = {}
        for name, cap in caps.ops.items():
            ops.setdefault(packet(name), set()).update(cap.dtypes)
        return cls(
            dict(out_features or {}),
            caps.device,
            frozenset(caps.dtypes),
            {op: tuple(sorted(d)) for op, d in sorted(ops.items())},
        )

    def untraced_reason(self, test) -> str | None:
        """Why a test need not run at all: stage 3 skips it whatever its trace would say."""
        outside = sorted(set(json.loads(test["features"])) & self.out_features.keys())
        if outside:
            return f"uses {', '.join(outside)}"
        if self.device:
            return restrictions.blocking(json.loads(test["decorators"]), None, self.device)
        return None

    def request(self, tests: list) -> dict:
        untraced = {f"{t['cls']}::{t['name']}": why for t in tests if (why := self.untraced_reason(t))}
        return {
            "untraced": untraced,
            "trace_dtypes": sorted(self.trace_dtypes) if self.trace_dtypes is not None else None,
            "device_ops": dict(self.device_ops) if self.device_ops is not None else None,
        }

    def state(self) -> list:
        return [
            TRACE_VERSION,
            sorted(self.out_features),
            self.device,
            sorted(self.trace_dtypes or ()),
            sorted((self.device_ops or {}).items()),
        ]


@dataclass(frozen=True)
class SourceRoot:
    """A tree of test files; ``label`` is how configs spell its root (``${REPO_ROOT}``)."""

    label: str
    path: Path
    pattern: str = "**/test_*.py"

    def files(self) -> list[tuple[str, Path]]:
        return sorted(
            (f"{self.label}/{p.relative_to(self.path).as_posix()}", p)
            for p in self.path.glob(self.pattern)
            if p.is_file()
        )


def _removed(rel: str, roots: list[SourceRoot]) -> bool:
    """Whether a remembered file is gone from a tree this run reads (not just out of its scope)."""
    for root in roots:
        prefix = f"{root.label}/"
        if rel.startswith(prefix):
            return not (root.path / rel[len(prefix) :]).exists()
    return False


@dataclass
class BuildStats:
    files: int = 0
    files_changed: int = 0
    tests: int = 0
    embedded: int = 0
    traced: int = 0
    crashed: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def line(self) -> str:
        phases = ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items())
        return (
            f"{self.files} files ({self.files_changed} changed), {self.tests} tests, "
            f"{self.embedded} embedded, {self.traced} traced ({self.crashed} crashed); {phases}"
        )


def _test_rows(symbols: FileSymbols) -> list[dict]:
    rows = []
    generic = {c.name: c.device_generic for c in symbols.classes}
    for test in symbols.tests:
        summary = summaries.summarise_test(test)
        text = summaries.embedding_text(test, summary)
        rows.append(
            {
                "test_id": test.test_id,
                "file": test.file,
                "cls": test.cls,
                "name": test.name,
                "lineno": test.lineno,
                "kind": test.kind,
                "op_list": test.op_list,
                "decorators": json.dumps(test.decorators),
                "dtypes": json.dumps(test.dtypes),
                "features": json.dumps(test.features),
                "device_generic": int(generic[test.cls]),
                "content_hash": test.content_hash,
                "summary": summary,
                "embed_hash": hashlib.sha256(f"{emb.MODEL_NAME}\0{text}".encode()).hexdigest(),
                "_text": text,
            }
        )
    return rows


def _opinfo_hashes(memory: Memory) -> dict[str, str]:
    """Definition hash per OpInfo of the installed torch, cached by the sources' hash."""
    internal = opinfo_index.installed_internal()
    digest = hashlib.sha256()
    for path in opinfo_index.source_files(internal) + opinfo_index.source_files(
        internal, opinfo_index.HELPER_SOURCES
    ):
        digest.update(path.read_bytes())
    key = digest.hexdigest()
    if memory.get_meta("opinfo_sources") == key:
        return json.loads(memory.get_meta("opinfo_hashes"))
    hashes = {name: d.definition_hash for name, d in opinfo_index.build_index(internal).items()}
    memory.set_meta("opinfo_hashes", json.dumps(hashes, sort_keys=True))
    memory.set_meta("opinfo_sources", key)
    return hashes


class MemoryBuilder:
    def __init__(
        self,
        memory: Memory,
        embedder: emb.Embedder | None = None,
        trace: bool = True,
        progress: bool = True,
        trace_timeout: float = 60.0,
        jobs: int = 2,
        plan: TracePlan | None = None,
        forget: bool = False,
    ) -> None:
        self.memory = memory
        self.forget = forget
        self.plan = plan or TracePlan()
        self.embedder = embedder or emb.MiniLMEmbedder(progress=progress)
        self.trace = trace
        self.progress = progress
        self.trace_timeout = trace_timeout
        self.jobs = jobs
        self._texts: dict[str, str] = {}

    def _bar(self, iterable=None, **kwargs):
        return tqdm(iterable, disable=not self.progress, dynamic_ncols=True, **kwargs)

    def build(self, roots: Iterable[SourceRoot], only: set[str] | None = None) -> BuildStats:
        stats = BuildStats()
        roots = list(roots)
        files = [(rel, p) for root in roots for rel, p in root.files() if only is None or rel in only]
        stats.files = len(files)
        start = time.perf_counter()
        self._index(files, stats, roots)
        stats.seconds["index"] = time.perf_counter() - start
        start = time.perf_counter()
        self._embed(stats)
        stats.seconds["embed"] = time.perf_counter() - start
        if self.trace:
            start = time.perf_counter()
            self._trace(files, stats)
            stats.seconds["trace"] = time.perf_counter() - start
            start = time.perf_counter()
            before = self.memory.counts()["embeddings"]
            emb.variant_vectors(self.memory, [v.variant for v in self.memory.variants()], self.embedder)
            stats.embedded += self.memory.counts()["embeddings"] - before
            stats.seconds["embed"] += time.perf_counter() - start
        stats.tests = len(self.memory.tests())
        return stats

    def _index(self, files: list[tuple[str, Path]], stats: BuildStats, roots: list[SourceRoot]) -> list[str]:
        present = {rel for rel, _ in files}
        stale = set(self.memory.file_paths()) - present
        # A file deleted from its tree is forgotten; one this run merely does not cover (another
        # --scope-record or --suites, no --upstream-root) keeps its tests and traces unless told:
        # such a narrower run once dropped tens of minutes of tracing silently.
        kept = sorted(rel for rel in stale if not _removed(rel, roots))
        if kept and not self.forget:
            shown = ", ".join(kept[:3]) + (f" (+{len(kept) - 3} more)" if len(kept) > 3 else "")
            raise SelectError(
                f"this run covers {len(present)} files; the memory also holds {len(kept)} others "
                f"({shown}) whose tests and traces it would drop: nothing written, "
                "add --forget to drop them (the memory is kept in <db>.prev)"
            )
        if kept:
            print(
                f"select: memory: keeping the previous version in {self.memory.keep_previous()}",
                file=sys.stderr,
            )
        for path in sorted(stale):
            self.memory.forget_file(path)
        changed = []
        fresh_index = self.memory.get_meta("index_version") == INDEX_VERSION
        for rel, path in self._bar(files, desc="index", unit="file"):
            symbols = parse_file(path, rel)
            if fresh_index and self.memory.file_hash(rel) == symbols.content_hash:
                continue
            rows = _test_rows(symbols)
            self._texts.update({r["embed_hash"]: r.pop("_text") for r in rows})
            self.memory.put_file(
                rel, symbols.content_hash, summaries.summarise_file(symbols), symbols.features, rows
            )
            changed.append(rel)
        self.memory.set_meta("index_version", INDEX_VERSION)
        stats.files_changed = len(changed)
        return changed

    def _embed(self, stats: BuildStats, batch: int = 64) -> None:
        missing = [r["embed_hash"] for r in self.memory.missing_embeddings()]
        if not missing:
            return
        texts = [self._texts[h] for h in missing if h in self._texts]
        with self._bar(total=len(texts), desc="embed", unit="test") as bar:
            for i in range(0, len(texts), batch):
                hashes = missing[i : i + batch]
                vectors = self.embedder.encode(texts[i : i + batch])
                self.memory.put_embeddings(
                    self.embedder.name, [(h, emb.to_blob(v)) for h, v in zip(hashes, vectors)]
                )
                bar.update(len(hashes))
        stats.embedded = len(texts)

    def _trace(self, files: list[tuple[str, Path]], stats: BuildStats) -> None:
        hashes = _opinfo_hashes(self.memory)
        import torch

        state = hashlib.sha256(
            json.dumps([sorted(hashes.items()), torch.__version__, self.plan.state()]).encode()
        ).hexdigest()
        todo = [
            (rel, p)
            for rel, p in files
            if self.memory.get_meta(f"traced:{rel}") != f"{self.memory.file_hash(rel)}:{state}"
        ]
        known = self.memory.known_trace_keys()
        with self._bar(total=len(todo), desc="trace files", unit="file", position=0) as files_bar:
            for rel, path in todo:
                files_bar.set_postfix_str(Path(rel).name)
                rows = [t for t in self.memory.tests(rel) if t["device_generic"]]
                test_hashes = {f"{t['cls']}::{t['name']}": t["content_hash"] for t in rows}
                # parametrised files have hundreds of variants: worth a second worker's import cost
                jobs = self.jobs if any(t["kind"] in ("ops", "modules") for t in rows) else 1
                with self._bar(desc=f"  {Path(rel).name}", unit="test", position=1, leave=False) as bar:
                    result = trace_file(
                        path,
                        test_hashes,
                        hashes,
                        known,
                        self._saver(rel, bar, stats),
                        self.trace_timeout,
                        jobs,
                        self.plan.request(rows),
                    )
                known |= {d["key"] for d in result.done}
                self.memory.put_variants(rel, result.items)
                self.memory.set_import_error(rel, result.import_error)
                self.memory.set_meta(f"traced:{rel}", f"{self.memory.file_hash(rel)}:{state}")
                files_bar.update(1)
        self.memory.rebuild_op_index()

    def _saver(self, rel: str, bar, stats: BuildStats):
        """Event handler (called from the workers' threads): every result is stored the moment
        it arrives, so a stopped run keeps what it traced; the bar's total is the file's whole
        to-do list, known from the first worker's announcement and never changed after."""
        lock = threading.Lock()
        announced = []

        def handle(event: dict) -> None:
            with lock:
                if event["event"] == "variants" and not announced:
                    announced.append(True)
                    self.memory.put_variants(rel, event["items"])
                    bar.total = event.get("todo", 0)
                    bar.refresh()
                elif event["event"] == "done":
                    self.memory.put_trace(
                        event["key"],
                        event["status"],
                        event.get("dtype"),
                        event.get("ops", []),
                        event.get("kernel_ops", []),
                        event.get("compare_ops", []),
                        event.get("error", ""),
                        event.get("kernel_dtypes", {}),
                        event.get("note", ""),
                    )
                    stats.traced += 1
                    stats.crashed += event["status"] == "crashed"
                    bar.update(1)

        return handle
