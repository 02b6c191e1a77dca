"""The change map built for real on a small fixture: the generated upstream's nn feature, cut
to its flatten file (13 device tests on spyre), run under coverage, folded onto torch's function spans, joined
with a repository memory's op index; --oot-only through the plugin; the incremental reuse."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from testing.changes.changemap import coverage_of, read_map, write_map
from testing.changes.decide import select_tests
from testing.changes.diff import FileChange, Hunk
from testing.changes.only import resolve, write_only
from testing.config.features import discover_features
from tools.select.changes.build import build, leg_of, record_leg
from tools.select.changes.cmd import core_versions, fixture_upstream
from tools.select.memory.store import Memory

RUNFILES = Path(__file__).resolve().parents[3]
NN_FILE = "${TORCH_ROOT}/test/nn/test_flatten_device.py"
NN_CONFIG = f"""test_suite_config:
  files:
    - path: {NN_FILE}
      tests:
        - names: "TestFlattenDevice::*"
        - names: TestFlattenDevice::test_unflatten_round_trip
          mode: xfail
          reason: "the map records this bucket: the budget ranks a test that cannot fail last"
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("changemap")
    ws = tmp / "ws"
    (ws / "configs" / "spyre").mkdir(parents=True)
    (ws / "WORKSPACE").write_text("")
    shutil.copy(RUNFILES / "configs" / "spyre" / "device.yaml", ws / "configs" / "spyre" / "device.yaml")
    for d in ("testing", "tools"):
        (ws / d).symlink_to(RUNFILES / d)
    env = {**os.environ, "HOME": str(tmp)}
    upstream, _ = fixture_upstream(tmp / "state", env)
    # the fixture's nn feature cut to its flatten file (13 tests; the whole leg is ~250 tests)
    configs = tmp / "upstream"
    (configs / "spyre").mkdir(parents=True)
    (configs / "spyre" / "nn.yaml").write_text(NN_CONFIG)
    (feature,) = [f for f in discover_features(ws, [configs]) if f.name == "upstream-spyre-nn"]
    db = tmp / "memory.db"
    with Memory(db) as memory:  # the op index as the tracer fills it: generic test ids, op variants
        memory.db.executemany(
            "INSERT INTO op_index VALUES (?, ?, ?)",
            [
                (
                    "aten::view",
                    "test/nn/test_flatten_device.py::TestFlattenDevice::test_flatten_default_keeps_batch_dim",
                    "",
                ),
                (
                    "aten::empty.memory_format",
                    "test/nn/test_flatten_device.py::TestFlattenDevice::test_flatten_keeps_device_and_dtype",
                    "",
                ),
            ],
        )
        memory.db.commit()
    torch_version, git_version = core_versions()
    kw = dict(torch_version=torch_version, git_version=git_version, memory=db)
    m, runs = build([leg_of(feature, upstream.sha)], ws, upstream, tmp / "runs", env, **kw)
    return dict(tmp=tmp, ws=ws, env=env, upstream=upstream, feature=feature, m=m, runs=runs, kw=kw)


FLAT = "torch/nn/modules/flatten.py"


def fn_id(m, file, name):
    (i,) = [i for i, f in enumerate(m.functions) if f.file == file and f.name == name]
    return i


def test_coverage_part(recorded):
    m = recorded["m"]
    feat = m.features["upstream-spyre-nn"]
    assert len(feat.tests) == 13 and all(t.seconds > 0 for t in feat.tests.values())
    for name in ("Flatten.__init__", "Flatten.forward"):
        f = m.functions[fn_id(m, FLAT, name)]
        every = m.of_feature("upstream-spyre-nn", m.tests_at(FLAT, range(f.start, f.end + 1)))
        assert every == set(feat.tests) and f.tested  # every test builds and calls a Flatten
        assert m.import_line(FLAT, range(f.start, f.end + 1)) is None  # the def line is its signature
    assert m.import_line(FLAT, range(1, 40)) is not None  # imports, the class statement
    assert list(feat.test_files) == [NN_FILE] and len(feat.sentinels) == 2
    # each test's config bucket, as the plugin decided it (JUnit property `bucket`)
    xfail = {tid for tid, t in feat.tests.items() if t.mode == "xfail"}
    assert xfail and all("test_unflatten_round_trip" in tid for tid in xfail)
    assert {t.mode for tid, t in feat.tests.items() if tid not in xfail} == {"mandatory_success"}
    assert not xfail & set(feat.sentinels)  # a sentinel must be able to fail
    assert m.suite_sha == recorded["upstream"].sha and m.torch_version.startswith("2.")


def test_aten_op_part(recorded):
    feat = recorded["m"].features["upstream-spyre-nn"]
    assert recorded["m"].ops_recorded
    batch = [t for tid, t in feat.tests.items() if "test_flatten_default_keeps_batch_dim_" in tid]
    assert len(batch) == 3 and all(t.ops == {"aten::view"} for t in batch)
    others = [
        t for tid, t in feat.tests.items() if "keeps_batch_dim" not in tid and "keeps_device" not in tid
    ]
    assert others and all(not t.ops for t in others)


def test_map_round_trip_and_a_selection_from_it(recorded):
    m = read_map(write_map(recorded["tmp"] / "map.json", recorded["m"]))
    init = m.functions[fn_id(m, FLAT, "Flatten.__init__")]
    change = FileChange(FLAT, "M", (Hunk(init.start, 1, ("-a", "+b")),))  # its signature line
    feat = m.features["upstream-spyre-nn"]
    sel = select_tests(m, "upstream-spyre-nn", [change], dict(feat.test_files), dict(feat.configs))
    assert not sel.full and sel.selected == 13 and "Flatten.__init__" in sel.line()
    unrelated = FileChange("torch/_inductor/scheduler.py", "M", (Hunk(10, 1, ()),))
    assert (
        select_tests(m, "upstream-spyre-nn", [unrelated], dict(feat.test_files), dict(feat.configs)).selected
        == 2
    )  # sentinels


def test_only_selection_runs_through_the_plugin(recorded):
    feat = recorded["m"].features["upstream-spyre-nn"]
    picked = sorted(feat.tests)[:2]
    up = recorded["upstream"]
    only = write_only(recorded["tmp"] / "only.json", resolve(picked, [], {"${TORCH_ROOT}": up.root}))
    leg = leg_of(recorded["feature"], up.sha)
    run = record_leg(
        leg, recorded["ws"], up, recorded["tmp"] / "only-run", recorded["env"], coverage=False, only=only
    )
    assert sorted(run.tests) == picked and run.exit_code == 0 and run.data_dir is None


def test_unchanged_feature_is_reused(recorded, capsys):
    said = []
    m, runs = build(
        [leg_of(recorded["feature"], recorded["upstream"].sha)],
        recorded["ws"],
        recorded["upstream"],
        recorded["tmp"] / "again",
        recorded["env"],
        previous=recorded["m"],
        progress=said.append,
        **recorded["kw"],
    )
    assert said == ["upstream-spyre-nn: unchanged since the previous map, reused"]
    assert (
        m.features["upstream-spyre-nn"].tests.keys()
        == recorded["m"].features["upstream-spyre-nn"].tests.keys()
    )
    assert coverage_of(m)[0]["upstream-spyre-nn"] == coverage_of(recorded["m"])[0]["upstream-spyre-nn"]
    assert m.import_lines == recorded["m"].import_lines
