"""--core-wheel: a wheel built elsewhere for the dispatched SHA. Its git_version (read from the
archive, never installed) must be the SHA or an ancestor of it in real git history; it is then
the core's base and the Python overlay covers the rest. Anything else is one line."""

import os
import zipfile

import pytest

from crcr.handler.options import Options
from crcr.handler.upstream_setup import core_wheel_base, prepare
from crcr.upstream.core_wheel import named, unpack, wheel_commit
from crcr.upstream.localrepo import build_repo, file_url
from crcr.upstream.source import UpstreamSource
from testing.base.errors import ConfigError


def _wheel(path, git_version="", files=None):
    with zipfile.ZipFile(path, "w") as z:
        for name, text in (files or {"torch/__init__.py": "START = 1\n"}).items():
            z.writestr(name, text)
        if git_version:
            z.writestr("torch/version.py", f"__version__ = '2.14.0a0'\ngit_version = '{git_version}'\n")
    return path


@pytest.fixture
def upstream(tmp_path):
    shas = build_repo(
        tmp_path / "u.git",
        [
            ("base", {"version.txt": "2.14.0a0\n", "torch/mod.py": "X = 0\n"}),
            ("python change", {"torch/mod.py": "X = 1\n"}),
            ("later", {"torch/mod.py": "X = 2\n"}),
        ],
        dict(os.environ),
    )
    return file_url(tmp_path / "u.git"), shas


def test_refusals_of_what_is_not_a_torch_wheel(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        wheel_commit(tmp_path / "absent.whl")
    text = tmp_path / "torch.txt"
    text.write_text("not a wheel")
    with pytest.raises(ConfigError, match=r"not a wheel \(a \.whl zip archive\)"):
        wheel_commit(text)
    fake = tmp_path / "torch-2.14-cp311-none-any.whl"
    fake.write_text("zip? no")
    with pytest.raises(ConfigError, match="not a wheel"):
        wheel_commit(fake)
    bare = _wheel(tmp_path / "torch-2.14-cp311-none-any.whl")
    with pytest.raises(ConfigError, match=r"holds no torch/version.py \(not a torch wheel\)$"):
        wheel_commit(bare)
    nameless = _wheel(tmp_path / "n.whl", files={"torch/version.py": "__version__ = '2.14'\n"})
    with pytest.raises(ConfigError, match="names no 40-hex git_version"):
        wheel_commit(nameless)


def _options(tmp_path, url, whl) -> Options:
    return Options(
        mode="run-leg",
        upstream="fetch",
        upstream_url=url,
        upstream_cache=tmp_path / "cache",
        core_wheel=whl,
        core_wheel_commit=wheel_commit(whl),
        given_core_cache=tmp_path / "core-cache",
        workspace=tmp_path,
        env=dict(os.environ),
    )


def test_a_non_ancestor_git_version_is_refused_in_one_line(tmp_path, upstream):
    url, shas = upstream
    source = UpstreamSource(url, tmp_path / "cache")
    later = _options(tmp_path, url, _wheel(tmp_path / "later.whl", shas[2]))
    with pytest.raises(ConfigError, match=r"is neither [0-9a-f]{12} nor an ancestor of it in file://") as err:
        core_wheel_base(named(later.core_wheel), later.core_wheel_commit, source, shas[1])
    assert "\n" not in str(err.value)
    stranger = _options(tmp_path, url, _wheel(tmp_path / "x.whl", "c" * 40))
    with pytest.raises(ConfigError, match="ccccccccccc is neither"):
        core_wheel_base("--core-wheel x.whl", stranger.core_wheel_commit, source, shas[1])
    # the SHA itself and its ancestors are accepted
    for ok in (shas[1], shas[0]):
        opts = _options(tmp_path, url, _wheel(tmp_path / f"{ok[:6]}.whl", ok))
        assert core_wheel_base("w", opts.core_wheel_commit, source, shas[1]) == ok


def test_an_ancestor_wheel_is_the_base_and_the_overlay_covers_the_rest(tmp_path, upstream):
    url, shas = upstream
    whl = _wheel(
        tmp_path / "torch.whl", shas[0], {"torch/__init__.py": "START = 1\n", "torch/mod.py": "X = 0\n"}
    )
    setup = prepare(_options(tmp_path, url, whl), shas[1])
    assert setup.core_base == shas[0] and setup.wheel_dir == unpack(whl, tmp_path / "core-cache")
    assert (setup.core_path / "torch" / "mod.py").read_text() == "X = 1\n"
    assert (setup.core_path / "torch" / "__init__.py").resolve() == setup.wheel_dir / "torch" / "__init__.py"
    assert setup.exactness.exact and setup.exactness.line().startswith("core: exact (--core-wheel at ")
    assert setup.exactness.cell() == "exact (--core-wheel)"
    # a wheel at the SHA itself: nothing to overlay, the legs import the wheel's own tree
    at_sha = _wheel(tmp_path / "at.whl", shas[1], {"torch/__init__.py": "", "torch/mod.py": "X = 1\n"})
    setup = prepare(_options(tmp_path, url, at_sha), shas[1])
    assert setup.core_path == setup.wheel_dir and setup.exactness.exact


def test_the_handler_refuses_a_non_wheel_at_its_entry(tmp_path):
    from crcr.handler.main import parse_options

    text = tmp_path / "torch.txt"
    text.write_text("x")
    with pytest.raises(ConfigError, match=r"^--core-wheel .*torch.txt: not a wheel"):
        parse_options(["plan", "--core-wheel", str(text)], {"HOME": str(tmp_path)})
    with pytest.raises(ConfigError, match="not a wheel"):  # the workflow's input, through the env
        parse_options(["plan"], {"HOME": str(tmp_path), "CRCR_CORE_WHEEL": str(text)})
