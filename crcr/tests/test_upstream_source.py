"""The git source: fetch by SHA from a local bare repo over file://, sparse,
cached per SHA, concurrent-safe; bad input rejected before git runs."""

import os
import shutil
import threading

import pytest

from crcr.upstream import gitcmd
from crcr.upstream.localrepo import build_repo, file_url
from crcr.upstream.source import DEFAULT_URL, UpstreamSource, default_cache

COMMITS = [
    (
        "base",
        {
            "version.txt": "2.13.0a0\n",
            "test/test_a.py": "A = 1\n",
            "torch/nn/x.py": "X = 1\n",
            "aten/src/ATen/native/Add.cpp": "// add\n",
            "docs/index.md": "docs\n",
        },
    ),
    ("change test_a", {"test/test_a.py": "A = 2\n"}),
    (
        "touch native and docs",
        {
            "aten/src/ATen/native/Add.cpp": "// add v2\n",
            "docs/index.md": "v2\n",
            "torch/nn/y.py": "Y = 1\n",
            "torch/nn/x.py": None,
        },
    ),
]


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    root = tmp_path_factory.mktemp("upstream")
    shas = build_repo(root / "pytorch.git", COMMITS, dict(os.environ))
    return file_url(root / "pytorch.git"), shas


@pytest.fixture
def source(upstream, tmp_path):
    return UpstreamSource(upstream[0], tmp_path / "cache")


def test_fetch_by_sha_is_sparse_and_at_that_commit(upstream, source):
    _, shas = upstream
    root = source.checkout(shas[1])
    assert (root / "test/test_a.py").read_text() == "A = 2\n"
    assert (root / "torch/nn/x.py").read_text() == "X = 1\n"
    assert (root / "version.txt").exists()
    # outside the sparse set: native sources and docs are not checked out
    assert not (root / "aten").exists() and not (root / "docs").exists()
    assert gitcmd.git(["rev-parse", "HEAD"], cwd=root).stdout.strip() == shas[1]
    # shallow: only that commit's history
    assert (root / ".git" / "shallow").read_text().split() == [shas[1]]


def test_second_checkout_is_a_cache_hit_without_git(upstream, source, monkeypatch):
    _, shas = upstream
    first = source.checkout(shas[0])
    calls = []
    monkeypatch.setattr("crcr.upstream.source.git", lambda *a, **k: calls.append(a))
    assert source.checkout(shas[0]) == first and source.is_cached(shas[0])
    assert calls == []


@pytest.mark.parametrize(
    "bad",
    [
        "HEAD",
        "main",
        "abc123",
        "-" * 40,
        "g" * 40,
        "a" * 39,
        "a" * 41,
        "--upload-pack=touch /tmp/x",
        "0" * 40 + "\n",
    ],
)
def test_bad_sha_rejected_before_any_git_call(source, monkeypatch, bad):
    calls = []
    monkeypatch.setattr("crcr.upstream.source.git", lambda *a, **k: calls.append(a))
    with pytest.raises(gitcmd.UpstreamError, match="not a 40-hex commit id"):
        source.checkout(bad)
    assert calls == []


@pytest.mark.parametrize("bad", ["--upload-pack=evil", "-oProxyCommand=x", "not a url", ""])
def test_bad_url_rejected(tmp_path, bad):
    with pytest.raises(gitcmd.UpstreamError, match="is not a git URL"):
        UpstreamSource(bad, tmp_path)


def test_unknown_sha_is_one_line_and_leaves_nothing(source):
    with pytest.raises(gitcmd.UpstreamError) as err:
        source.checkout("0123456789abcdef0123456789abcdef01234567")
    assert str(err.value).startswith(
        "upstream has no commit 0123456789abcdef0123456789abcdef01234567 (file://"
    )
    assert not list((source.cache / "checkouts").iterdir())


def test_unreachable_remote_is_one_line(tmp_path, upstream):
    src = UpstreamSource((tmp_path / "nowhere.git").as_uri(), tmp_path / "cache")
    with pytest.raises(gitcmd.UpstreamError, match=r"^upstream remote file://\S+ unreachable: fatal:") as err:
        src.checkout(upstream[1][0])
    assert "\n" not in str(err.value)


def test_concurrent_checkouts_of_one_sha_share_one_fetch(upstream, source):
    _, shas = upstream
    results, errors = [], []

    def worker():
        try:
            results.append(source.checkout(shas[2]))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(results)) == 1
    assert sorted(p.name for p in (source.cache / "checkouts").iterdir()) == [shas[2]]
    assert (results[0] / "torch/nn/y.py").exists() and not (results[0] / "torch/nn/x.py").exists()


def test_changed_files_and_commits_between(upstream, source):
    _, shas = upstream
    assert set(source.changed_files(shas[0], shas[2])) == {
        ("A", "torch/nn/y.py"),
        ("D", "torch/nn/x.py"),
        ("M", "aten/src/ATen/native/Add.cpp"),
        ("M", "docs/index.md"),
        ("M", "test/test_a.py"),
    }
    everything = source.commits_between(shas[0], shas[2])
    assert [c.sha for c in everything] == [shas[2], shas[1]]
    touching = source.commits_between(shas[0], shas[2], ["test/test_a.py"])
    assert [(c.sha, c.subject, c.files) for c in touching] == [
        (shas[1], "change test_a", ("test/test_a.py",))
    ]
    assert source.commits_between(shas[1], shas[1]) == []


def test_history_fetches_from_this_runs_url_not_the_first_one(upstream, tmp_path):
    url, shas = upstream
    first = tmp_path / "moved.git"
    shutil.copytree(url.removeprefix("file://"), first)
    cache = tmp_path / "cache"
    assert UpstreamSource(file_url(first), cache).changed_files(shas[0], shas[1]) == [("M", "test/test_a.py")]
    shutil.rmtree(first)  # that remote is gone; shas[2] must come from the URL given now
    assert ("A", "torch/nn/y.py") in UpstreamSource(url, cache).changed_files(shas[1], shas[2])


def test_settings_default_and_overrides(tmp_path):
    env = {"HOME": str(tmp_path)}
    assert UpstreamSource.from_settings(None, None, env).url == DEFAULT_URL
    assert default_cache(env) == tmp_path / ".cache" / "oot-ci" / "upstream"
    env = {"OOT_UPSTREAM_URL": "file:///x.git", "OOT_UPSTREAM_CACHE": str(tmp_path / "c")}
    src = UpstreamSource.from_settings(None, None, env)
    assert (src.url, src.cache) == ("file:///x.git", tmp_path / "c")
    assert UpstreamSource.from_settings("https://h/p.git", tmp_path, env).url == "https://h/p.git"
