"""The remote cache bench's counting: Bazel trace profiles read back into lookups, hits and
executed compiles (synthetic profiles in the shape Bazel 4.2.3 writes)."""

import gzip
import json

import remote_cache_bench as bench


def event(tid, ts, dur, cat, name="x"):
    return {"ph": "X", "tid": tid, "ts": ts, "dur": dur, "cat": cat, "name": name}


def action(tid, ts, name, *inner_cats):
    """An action and the events nested in it on its thread."""
    out = [event(tid, ts, 100, "action processing", name)]
    out += [event(tid, ts + 10 * (i + 1), 5, cat) for i, cat in enumerate(inner_cats)]
    return out


def write(tmp_path, events):
    path = tmp_path / "p.profile.gz"
    with gzip.open(path, "wt") as f:
        json.dump({"otherData": {}, "traceEvents": [{"ph": "M", "name": "thread_name"}, *events]}, f)
    return path


def test_hits_and_executed_compiles(tmp_path):
    events = (
        action(1, 0, "Compiling a.cc", "remote action cache check", "remote output download")  # hit
        + action(2, 0, "Compiling b.cc", "remote action cache check")  # executed
        + action(1, 500, "Linking x.so", "remote action cache check")  # executed, not a compile
        + action(2, 500, "Writing file y")  # internal: no cache lookup
    )
    counts = bench.profile_counts(write(tmp_path, events))
    assert (counts.lookups, counts.hits, counts.compiles_executed, counts.executed) == (3, 1, 1, 2)


def test_another_threads_download_does_not_make_a_compile_a_hit(tmp_path):
    events = action(1, 0, "Compiling a.cc", "remote action cache check") + [
        event(2, 20, 5, "remote output download")  # same time, other thread
    ]
    assert bench.profile_counts(write(tmp_path, events)).compiles_executed == 1


def test_process_summary_is_bazels_last_line():
    output = "INFO: 3 processes: 1 internal.\nINFO: 165 processes: 51 remote cache hit, 114 internal.\n"
    assert bench.process_summary(output) == "165 processes: 51 remote cache hit, 114 internal."
    assert bench.process_summary("") == "no process summary"
