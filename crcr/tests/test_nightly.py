"""The nearest nightly (`--core-index`): an index read as a find-links directory or a PEP 503
page on 127.0.0.1, the nightly of the nearest first-parent ancestor chosen over a real git
history with a merged side branch, downloads cached by content and hash-checked (a truncated
or altered one never cached), git_version checked, and the resolution order with its
one-line fallbacks."""

import functools
import hashlib
import http.server
import os
import threading
import zipfile

import pytest

from crcr.handler.core_base import CoreResolver
from crcr.handler.options import Options
from crcr.handler.upstream_setup import prepare
from crcr.upstream.core_index import MAP_FILE, MAP_FORMAT, IndexUnusable, nearest, read_index, shown
from crcr.upstream.gitcmd import git
from crcr.upstream.localrepo import IDENTITY, add_branch, build_repo, file_url
from crcr.upstream.nightly import NoNightly, listing, resolve
from crcr.upstream.source import UpstreamSource
from crcr.upstream.wheel_cache import WheelRejected, cached_path, fetch
from testing.base.atomic import write_json

TAG = "py3-none-any"  # installable by any interpreter


def _wheel(path, git_version, mod="X = 0\n"):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("torch/__init__.py", "")
        z.writestr("torch/mod.py", mod)
        z.writestr("torch/version.py", f"__version__ = '2.14.0.dev'\ngit_version = '{git_version}'\n")
    return path


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def upstream(tmp_path):
    """main: m0 - m1 - merge(side: s1) - m3, and a `nightly` branch commit naming m1."""
    env = dict(os.environ)
    bare = tmp_path / "u.git"
    m = build_repo(
        bare,
        [
            ("m0", {"version.txt": "2.14.0a0\n", "torch/mod.py": "X = 0\n"}),
            ("m1", {"torch/mod.py": "X = 1\n"}),
        ],
        env,
    )
    (s1,) = add_branch(bare, "side", m[0], [("s1", {"torch/side.py": "S = 1\n"})], env)
    work = tmp_path / "work"
    git(["clone", "-q", str(bare), str(work)], env=env)
    stamp = {
        **env,
        **IDENTITY,
        "GIT_AUTHOR_DATE": "1767400000 +0000",
        "GIT_COMMITTER_DATE": "1767400000 +0000",
    }
    git(
        ["-c", "commit.gpgsign=false", "merge", "-q", "--no-ff", "-m", "merge side", "origin/side"],
        cwd=work,
        env=stamp,
    )
    (work / "torch" / "mod.py").write_text("X = 3\n")
    git(["-c", "commit.gpgsign=false", "commit", "-qam", "m3"], cwd=work, env=stamp)
    git(["checkout", "-q", "--orphan", "nightly"], cwd=work, env=env)
    git(
        ["-c", "commit.gpgsign=false", "commit", "-q", "-m", f"2026-12-05 nightly release ({m[1]})"],
        cwd=work,
        env=stamp,
    )
    git(["push", "-q", "origin", "main", "nightly"], cwd=work, env=env)
    main = git(["rev-list", "--first-parent", "main"], cwd=work, env=env).stdout.split()
    nightly = git(["rev-parse", "nightly"], cwd=work, env=env).stdout.strip()
    return file_url(bare), {
        "m0": m[0],
        "m1": m[1],
        "s1": s1,
        "merge": main[1],
        "m3": main[0],
        "nightly": nightly,
    }


def _index(root, wheels):
    """A find-links directory: {name: (git_version, source)} -> wheels + map."""
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for i, (gv, source) in enumerate(wheels):
        whl = _wheel(root / f"torch-2.14.0.dev2026120{i + 1}-{TAG}.whl", gv, f"X = {i}\n")
        entries.append({"file": whl.name, "source": source, "sha256": _sha256(whl)})
    write_json(root / MAP_FILE, {"format": MAP_FORMAT, "nightlies": entries})
    return root


def test_the_nearest_first_parent_ancestor_wins_over_a_closer_side_commit(tmp_path, upstream):
    url, c = upstream
    source = UpstreamSource(url, tmp_path / "cache")
    index = _index(tmp_path / "idx", [(c["m0"], c["m0"]), (c["m1"], c["m1"]), (c["s1"], c["s1"])])
    listed = listing(str(index))
    # m3 sits on m3 - merge - m1 - m0: s1 is an ancestor, but only through the merge's second parent
    got = resolve(str(index), listed, source, c["m3"], tmp_path / "cc")
    assert got.base == c["m1"] and not got.warm and got.origin == "nightly 2.14.0.dev20261202"
    assert resolve(str(index), listed, source, c["m0"], tmp_path / "cc").base == c["m0"]
    # a SHA that is itself a nightly's source: that one
    assert nearest(listed, [c["m1"], c["m0"]]).source == c["m1"]
    # the same wheel again: from the cache, no download
    assert resolve(str(index), listed, source, c["merge"], tmp_path / "cc").warm


def test_no_nightly_at_or_before_the_sha_and_a_sha_not_upstream_are_one_line(tmp_path, upstream):
    url, c = upstream
    source = UpstreamSource(url, tmp_path / "cache")
    index = str(_index(tmp_path / "idx", [(c["m3"], c["m3"])]))
    with pytest.raises(
        NoNightly, match=r"no nightly at or before [0-9a-f]{12} on its first-parent line"
    ) as e:
        resolve(index, listing(index), source, c["m1"], tmp_path / "cc")
    assert "\n" not in str(e.value) and str(e.value).startswith("--core-index ")
    with pytest.raises(NoNightly, match=r"dddddddddddd is not in file://"):
        resolve(index, listing(index), source, "d" * 40, tmp_path / "cc")


def test_a_git_version_that_is_not_the_source_nor_its_nightly_commit_is_refused(tmp_path, upstream):
    url, c = upstream
    source = UpstreamSource(url, tmp_path / "cache")
    wrong = str(_index(tmp_path / "wrong", [(c["m0"], c["m1"])]))  # the map says m1, the wheel m0
    with pytest.raises(NoNightly, match=r"git_version [0-9a-f]{12} is neither [0-9a-f]{12}"):
        resolve(wrong, listing(wrong), source, c["m3"], tmp_path / "cc")
    # the nightly <-> source chain: the wheel names the nightly-branch commit, whose subject names m1
    chained = str(_index(tmp_path / "chained", [(c["nightly"], c["m1"])]))
    assert resolve(chained, listing(chained), source, c["m3"], tmp_path / "cc").base == c["m1"]


def test_malformed_or_missing_index_parts_are_one_line(tmp_path, upstream):
    url, c = upstream
    with pytest.raises(IndexUnusable, match=r"not a directory nor an http\(s\) URL"):
        read_index(str(tmp_path / "absent"))
    (tmp_path / "nomap").mkdir()
    assert read_index(str(tmp_path / "nomap")) == []  # no map: its wheels are paired later (none here)
    bad = _index(tmp_path / "bad", [(c["m1"], c["m1"])])
    (bad / MAP_FILE).write_text("{not json")
    with pytest.raises(IndexUnusable, match=f"malformed {MAP_FILE}"):
        read_index(str(bad))
    write_json(bad / MAP_FILE, {"format": MAP_FORMAT, "nightlies": [{"file": "x.whl", "source": "nope"}]})
    with pytest.raises(IndexUnusable, match=r"nightlies\[0\] needs a file and a 40-hex source"):
        read_index(str(bad))
    whl = next(bad.glob("*.whl")).name
    write_json(bad / MAP_FILE, {"format": MAP_FORMAT, "nightlies": [{"file": whl, "source": c["m1"]}]})
    with pytest.raises(IndexUnusable, match="no sha256"):
        read_index(str(bad))
    with pytest.raises(NoNightly, match="unreachable"):
        listing("http://127.0.0.1:9/simple")  # the discard port: nothing listens


class _Server:
    """A PEP 503 index on 127.0.0.1 serving `root`; `cut`: bytes of each wheel actually sent."""

    def __init__(self, root):
        self.cut = None
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def copyfile(self, source, dest):
                data = source.read()
                dest.write(data[: outer.cut] if outer.cut and self.path.endswith(".whl") else data)

        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(root))
        )
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/simple"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def served(tmp_path, upstream):
    url, c = upstream
    simple = tmp_path / "www" / "simple"
    wheels = _index(simple / "torch", [(c["m1"], c["m1"])])
    (wheels / MAP_FILE).rename(simple / MAP_FILE)  # the map sits at the index root, the wheels on its page
    whl = next(wheels.glob("*.whl"))
    (wheels / "index.html").write_text(
        f'<html><body><a href="{whl.name}#sha256={_sha256(whl)}">{whl.name}</a></body></html>'
    )
    server = _Server(tmp_path / "www")
    yield server, c, url, whl
    server.close()


def test_a_pep503_index_is_read_and_a_truncated_download_is_never_cached(tmp_path, served):
    server, c, url, whl = served
    (listed,) = read_index(server.url)
    assert (
        listed.source == c["m1"]
        and listed.sha256 == _sha256(whl)
        and listed.location.startswith("http://127.0.0.1")
    )
    cache = tmp_path / "cc"
    server.cut = 100
    with pytest.raises(WheelRejected, match=r"truncated download \(100 of \d+ bytes\); not cached"):
        fetch(listed.location, listed.sha256, cache, listed.file)
    assert not cached_path(cache, listed.sha256).exists() and not list((cache / "wheels").iterdir())
    server.cut = None
    path, warm = fetch(listed.location, listed.sha256, cache, listed.file)
    assert not warm and _sha256(path) == listed.sha256
    assert fetch(listed.location, listed.sha256, cache, listed.file) == (path, True)
    with pytest.raises(WheelRejected, match=r"sha256 [0-9a-f]{16}\.\.\. is not the index's 0000000000000000"):
        fetch(listed.location, "0" * 64, cache, listed.file)
    assert not cached_path(cache, "0" * 64).exists()


def _options(tmp_path, url, **kw):
    return Options(
        mode="run-leg",
        upstream="fetch",
        upstream_url=url,
        upstream_cache=tmp_path / "cache",
        given_core_cache=tmp_path / "core-cache",
        workspace=tmp_path,
        env=dict(os.environ),
        **kw,
    )


def test_resolution_order_and_fallbacks_say_why(tmp_path, upstream, capsys):
    url, c = upstream
    source = UpstreamSource(url, tmp_path / "cache")
    index = str(_index(tmp_path / "idx", [(c["m1"], c["m1"])]))
    resolver = CoreResolver(source, tmp_path / "cc", pinned_base=c["m0"], index=index)
    at = resolver.at(c["m3"])
    assert (at.base, at.origin, at.fallback) == (c["m1"], "nightly 2.14.0.dev20261201", "")
    assert (at.wheel_dir / "torch" / "mod.py").read_text() == "X = 0\n"
    older = resolver.at(c["m0"])  # a bisection midpoint older than every nightly: the pinned wheel
    assert older.origin == "pinned wheel" and older.base == c["m0"] and older.wheel_dir is None
    assert (
        older.fallback.endswith("; falling back to the pinned wheel")
        and "no nightly at or before" in older.fallback
    )
    # a --core-wheel comes first where it is an ancestor; a midpoint older than it resolves further down
    resolver.wheel, resolver.wheel_commit = _wheel(tmp_path / "cw.whl", c["merge"]), c["merge"]
    assert resolver.at(c["m3"]).origin == "--core-wheel"
    down = resolver.at(c["m1"])
    assert down.origin.startswith("nightly") and down.fallback.startswith("--core-wheel at ")
    # an unusable index: the pinned wheel, saying so
    broken = CoreResolver(source, tmp_path / "cc", c["m0"], index=str(tmp_path / "absent"))
    assert (
        broken.at(c["m3"]).fallback.startswith("--core-index ")
        and broken.at(c["m3"]).origin == "pinned wheel"
    )

    setup = prepare(_options(tmp_path, url, core_index=index, core_base=c["m0"]), c["m3"])
    ex = setup.exactness
    assert ex.exact and ex.origin == "nightly 2.14.0.dev20261201" and ex.cell() == "exact (nightly)"
    assert ex.line().startswith(f"core: exact (nightly 2.14.0.dev20261201 at {c['m1'][:12]} + 2 python files")
    assert ex.as_json()["base_wheel"] == "nightly 2.14.0.dev20261201" and setup.core_base == c["m1"]
    assert (setup.core_path / "torch" / "mod.py").read_text() == "X = 3\n"  # the overlay at m3 on the nightly
    setup = prepare(_options(tmp_path, url, core_index=str(tmp_path / "absent"), core_base=c["m0"]), c["m3"])
    assert (
        setup.exactness.origin == "pinned wheel"
        and "falling back to the pinned wheel" in setup.exactness.fallback
    )
    assert "core: --core-index " in capsys.readouterr().err


def test_a_pr_whose_base_moved_on_is_judged_by_its_own_diff(tmp_path):
    """The PR's base SHA is its base branch's tip; main landed a kernel change after the PR
    branched off. The PR's own diff (from the merge-base) is Python only: its change ran."""
    from crcr.handler.upstream_setup import dispatched_paths

    env = dict(os.environ)
    bare = tmp_path / "mb.git"
    m = build_repo(bare, [("m0", {"torch/mod.py": "X = 0\n"}), ("kernel", {"aten/src/K.cpp": "//\n"})], env)
    (pr,) = add_branch(bare, "pr", m[0], [("pr", {"torch/mod.py": "X = 1\n"})], env)
    source = UpstreamSource(file_url(bare), tmp_path / "cache")
    assert dispatched_paths(source, m[1], pr) == ["torch/mod.py"]
    assert dispatched_paths(source, m[0], pr) == ["torch/mod.py"]  # a push: before is the branch point
    assert dispatched_paths(source, "0" * 40, pr) is None


def test_a_core_wheel_url_is_downloaded_once_hash_checked_and_ancestor_checked(tmp_path, served):
    from crcr.handler.main import parse_options
    from testing.base.errors import ConfigError

    server, c, url, whl = served
    link = f"{server.url}/torch/{whl.name}"
    with pytest.raises(ConfigError, match=r"a URL must end in #sha256=<64 hex>"):
        parse_options(["plan", "--core-wheel", link], {"HOME": str(tmp_path)})
    good = parse_options(["plan", "--core-wheel", f"{link}#sha256={_sha256(whl)}"], {"HOME": str(tmp_path)})
    assert good.core_wheel is None and good.core_wheel_url.endswith(_sha256(whl))
    opts = _options(tmp_path, url, core_wheel_url=good.core_wheel_url, core_base=c["m0"])
    setup = prepare(opts, c["m3"])  # the wheel names m1, an ancestor of m3
    assert setup.exactness.origin == "--core-wheel" and setup.core_base == c["m1"]
    assert cached_path(tmp_path / "core-cache", _sha256(whl)).is_file()
    with pytest.raises(
        ConfigError, match=r"^--core-wheel http://127\.0\.0\.1:\d+/simple/torch/torch-.*: .*is neither"
    ):
        prepare(opts, c["m0"])  # m1 is not an ancestor of m0
    bad = _options(tmp_path / "b", url, core_wheel_url=f"{link}#sha256={'1' * 64}", core_base=c["m0"])
    with pytest.raises(ConfigError, match=r"sha256 .* is not the index's 1111111111111111.*not cached"):
        prepare(bad, c["m3"])


def test_an_index_without_a_map_is_paired_through_the_nightly_branch(tmp_path, upstream):
    """#38: no nightly-map.json: a wheel's version day names the `nightly` branch commit of that
    day, whose subject names its source main commit; the wheel's git_version is that commit."""
    url, c = upstream
    source = UpstreamSource(url, tmp_path / "cache")
    root = tmp_path / "nomap"
    root.mkdir()
    _wheel(root / f"torch-2.14.0.dev20261205-{TAG}.whl", c["nightly"])  # the branch's 2026-12-05 commit
    _wheel(root / f"torch-2.14.0.dev20261130-{TAG}.whl", c["m0"])  # a day the branch does not name
    (listed,) = [n for n in read_index(str(root)) if "1205" in n.file]
    assert listed.source == "" and listed.sha256 == _sha256(root / listed.file)  # hashed where it lies
    resolver = CoreResolver(source, tmp_path / "cc", index=str(root))
    assert [n.file for n in resolver.nightlies()] == [listed.file]  # the unnamed day is left out
    chosen = resolver.at(c["m3"])
    assert (chosen.base, chosen.origin, chosen.fallback) == (c["m1"], "nightly 2.14.0.dev20261205", "")
    # wheels whose days the branch names none of: one line, then the pinned wheel
    lone = tmp_path / "lone"
    lone.mkdir()
    _wheel(lone / f"torch-2.14.0.dev20261130-{TAG}.whl", c["m0"])
    fallback = CoreResolver(source, tmp_path / "cc", "p" * 40, index=str(lone)).at(c["m3"])
    assert fallback.origin == "pinned wheel" and fallback.fallback.startswith(
        f"{shown(str(lone))}: no {MAP_FILE}, and the nightly branch's newest 1 commits name the day of none of its 1 wheels"
    )


def test_a_pep503_index_without_a_map_lists_its_wheels_for_pairing(tmp_path, served):
    server, c, url, whl = served
    (tmp_path / "www" / "simple" / MAP_FILE).unlink()  # a 404 for the map: not an unusable index
    (listed,) = read_index(server.url)
    assert (listed.file, listed.source, listed.sha256) == (whl.name, "", _sha256(whl))
