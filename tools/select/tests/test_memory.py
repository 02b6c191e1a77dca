"""Memory build over the fixture suite: real SQLite, real traced CPU runs (subprocess)."""

import shutil
from pathlib import Path

import pytest

from tools.select.memory.memory import MemoryBuilder, SourceRoot
from tools.select.memory.store import Memory
from tools.select.tests.helpers import HashEmbedder


def _build(repo: Path, db: Path, embedder):
    with Memory(db) as memory:
        stats = MemoryBuilder(memory, embedder, progress=False).build(
            [SourceRoot("${REPO_ROOT}", repo, "suite/test_*.py")]
        )
        return (
            stats,
            memory.counts(),
            memory.variants(),
            memory.tests_using("mm"),
            memory.tests_using("aten::exp"),
        )


@pytest.fixture(scope="module")
def built(tmp_path_factory, fixtures_dir=Path(__file__).parent / "fixtures"):
    import shutil

    repo = tmp_path_factory.mktemp("repo")
    shutil.copytree(fixtures_dir / "suite", repo / "suite")
    db = repo / "memory.db"
    embedder = HashEmbedder()
    first = _build(repo, db, embedder)
    return repo, db, embedder, first


def test_full_build_indexes_embeds_traces(built):
    _, _, embedder, (stats, counts, variants, mm_users, exp_users) = built
    # 4 tests + the 5 op names their variants use (abs, add, cumsum, exp, mul)
    assert stats.files_changed == 1 and stats.tests == 4 and stats.embedded == 9 and embedder.calls == 9
    assert counts["variants"] == 8 and counts["traces"] == 8 and stats.traced == 8
    by_unit = {v.unit_id.split("::", 1)[-1]: v for v in variants}
    add = by_unit["TestFixtureOps::test_matches_cpu[add]"]
    assert add.status == "passed" and "aten::add.Tensor" in add.kernel_ops
    assert add.dtypes == ("float32", "float64", "int64")
    assert "aten::expand" in by_unit["TestFixtureOps::test_backward_sum"].ops
    assert [t.split("::")[-1] for t, _ in mm_users] == ["test_matmul_square"]
    assert exp_users == [(add.test_id, "exp")]


def test_unchanged_rebuild_does_no_work(built):
    repo, db, _, _ = built
    embedder = HashEmbedder()
    stats, counts, *_ = _build(repo, db, embedder)
    assert (stats.files_changed, stats.embedded, stats.traced, embedder.calls) == (0, 0, 0, 0)
    assert counts["traces"] == 8


def test_editing_one_test_retraces_only_it(built):
    repo, db, _, _ = built
    path = repo / "suite" / "test_fixture_ops.py"
    path.write_text(
        path.read_text().replace(
            "a = torch.ones(3, 3, device=device, dtype=dtype)",
            "a = torch.ones(3, 3, device=device, dtype=dtype)  # edited",
        )
    )
    embedder = HashEmbedder()
    stats, counts, variants, *_ = _build(repo, db, embedder)
    assert stats.files_changed == 1 and stats.embedded == 1 and stats.traced == 1
    assert counts["variants"] == 8


def test_removed_file_is_forgotten(built, tmp_path):
    repo, db, _, _ = built
    empty = tmp_path / "empty"
    (empty / "suite").mkdir(parents=True)
    stats, counts, *_ = _build(empty, db, HashEmbedder())
    assert counts["tests"] == 0 and counts["variants"] == 0


def test_real_minilm_embeddings_are_normalised():
    import numpy as np

    from tools.select.memory.embeddings import MiniLMEmbedder, nearest

    model = MiniLMEmbedder()
    vectors = model.encode(["add two tensors elementwise", "sum of two tensors", "matrix multiply square"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert nearest(vectors[0], vectors[1:], 1)[0][0] == 0  # 'add' is closer to 'sum' than to 'matmul'


# ---------------------------------------------------------------- saved as they come, fixed totals


class _Bar:
    def __init__(self):
        self.total, self.n, self.totals = None, 0, []

    def refresh(self):
        self.totals.append(self.total)

    def update(self, n):
        self.n += n


def _event(key, status="passed"):
    return {
        "event": "done",
        "key": f"{key}|float32",
        "status": status,
        "dtype": "float32",
        "ops": ["aten::add.Tensor"],
        "kernel_ops": ["aten::add.Tensor"],
        "kernel_dtypes": {"aten::add.Tensor": ["float32"]},
        "compare_ops": [],
    }


def test_a_stopped_run_keeps_what_it_traced(tmp_path, monkeypatch):
    """Each result is in SQLite the moment its event arrives: interrupting the build after two
    traces leaves both stored (and the file not marked done, so the next run finishes it)."""
    from tools.select.memory import memory as memory_module

    repo = tmp_path / "repo"
    shutil.copytree(Path(__file__).parent / "fixtures" / "suite", repo / "suite")

    def interrupted(path, test_hashes, hashes, known, on_event, timeout, jobs, request):
        on_event({"event": "variants", "items": [], "todo": 8})
        on_event(_event("k1"))
        on_event(_event("k2", "failed"))
        raise KeyboardInterrupt

    monkeypatch.setattr(memory_module, "trace_file", interrupted)
    with Memory(tmp_path / "m.db") as memory:
        builder = MemoryBuilder(memory, HashEmbedder(), progress=False)
        with pytest.raises(KeyboardInterrupt):
            builder.build([SourceRoot("${REPO_ROOT}", repo, "suite/test_*.py")])
    with Memory(tmp_path / "m.db") as memory:
        assert memory.known_trace_keys() == {"k1|float32", "k2|float32"}
        assert not any(
            k.startswith("traced:") for k in [r[0] for r in memory.db.execute("SELECT key FROM meta")]
        )


def test_the_trace_bar_total_is_fixed_from_the_first_announcement(tmp_path):
    from tools.select.memory.memory import BuildStats

    with Memory(tmp_path / "m.db") as memory:
        bar, stats = _Bar(), BuildStats()
        handle = MemoryBuilder(memory, HashEmbedder(), progress=False)._saver("f.py", bar, stats)
        handle({"event": "variants", "items": [], "todo": 3})
        handle(_event("a"))
        handle({"event": "variants", "items": [], "todo": 2})  # a restarted worker announces its rest
        handle(_event("b"))
        assert bar.totals == [3] and bar.total == 3 and bar.n == 2 and stats.traced == 2
