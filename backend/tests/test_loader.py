"""Where torch_spyre looks for libspyre.so (pure path logic)."""

from __future__ import annotations

from pathlib import Path

from torch_spyre import _loader


def test_override_then_package_dir_first(tmp_path):
    pkg = tmp_path / "site" / "torch_spyre"
    paths = _loader.candidate_paths(pkg, {"SPYRE_LIBRARY": "/x/libspyre.so"})
    assert paths[:2] == [Path("/x/libspyre.so"), pkg / "libspyre.so"]


def test_runfiles_manifest_is_searched(tmp_path):
    real = tmp_path / "out" / "libspyre.so"
    real.parent.mkdir()
    real.write_bytes(b"")
    manifest = tmp_path / "MANIFEST"
    manifest.write_text(f"ws/backend/demo.py /src/demo.py\nws/backend/torch_spyre/libspyre.so {real}\n")
    found = _loader.find_library(tmp_path / "elsewhere", {"RUNFILES_MANIFEST_FILE": str(manifest)})
    assert found == real


def test_missing_library_names_every_place_searched(tmp_path):
    try:
        _loader.find_library(tmp_path / "pkg", {})
    except ImportError as err:
        assert str(tmp_path / "pkg" / "libspyre.so") in str(err)
    else:
        raise AssertionError("no ImportError")
