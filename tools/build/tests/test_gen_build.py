"""gen_build.py turns an installed site dir into BUILD targets, and the lock into a digest."""

import hashlib
import pathlib
import subprocess
import sys

GEN_BUILD = next(pathlib.Path("..").glob("rules_python/python/private/gen_build.py")).resolve()


def make_dist(site: pathlib.Path, name: str, version: str) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def run_gen_build(tmp_path, lock_text: str, *extra: str) -> pathlib.Path:
    site = tmp_path / "site"
    make_dist(site, "ruamel.yaml", "0.19.1")
    make_dist(site, "Sentence-Transformers", "6.3.0")
    lock = tmp_path / "lock.txt"
    lock.write_text(lock_text)
    subprocess.run(
        [
            sys.executable,
            str(GEN_BUILD),
            "--site",
            "site",
            "--lock",
            str(lock),
            "--repo",
            "deps",
            "--interpreter",
            "/x/python3",
            *extra,
        ],
        cwd=tmp_path,
        check=True,
    )
    return tmp_path


def test_aliases_use_normalised_names(tmp_path):
    out = run_gen_build(tmp_path, "a==1\n")
    build = (out / "BUILD.bazel").read_text()
    assert 'alias(name = "ruamel_yaml", actual = ":site_packages")' in build
    assert 'alias(name = "sentence_transformers", actual = ":site_packages")' in build
    assert 'stub_shebang = "#!/x/python3"' in build
    assert "PACKAGES = ['ruamel_yaml', 'sentence_transformers']" in (out / "requirements.bzl").read_text()


def test_lock_digest_follows_the_lock(tmp_path):
    first = (run_gen_build(tmp_path / "a", "a==1\n") / "LOCK_SHA256").read_text().strip()
    second = (run_gen_build(tmp_path / "b", "a==2\n") / "LOCK_SHA256").read_text().strip()
    assert first == hashlib.sha256(b"a==1\n").hexdigest()
    assert first != second


def load_bzl(path: pathlib.Path) -> dict:
    """torch_headers.bzl is plain assignments of lists: Starlark that Python also runs."""
    scope: dict = {}
    exec(path.read_text(), scope)
    return scope


def test_torch_headers_split_by_what_a_privateuse1_backend_compiles_against(tmp_path):
    include = tmp_path / "site" / "torch" / "include"
    headers = {
        "ATen/ops/add.h": "generic",
        "ATen/ops/add_ops.h": "generic",
        "ATen/ops/add_native.h": "generic",
        "ATen/native/CPUFallback.h": "generic",
        "c10/core/Device.h": "generic",
        "torch/library.h": "generic",
        "ATen/ops/add_cpu_dispatch.h": "dispatch",
        "ATen/ops/add_compositeexplicitautograd_dispatch.h": "dispatch",
        "ATen/CPUFunctions.h": "dispatch",
        "ATen/MetaFunctions_inl.h": "dispatch",
        "ATen/ops/add_cuda_dispatch.h": None,
        "ATen/CUDAFunctions.h": None,
        "ATen/cuda/CUDAContext.h": None,
        "ATen/native/mps/OperationUtils.h": None,
        "c10/xpu/XPUStream.h": None,
        "dnnl.h": None,
        "pybind11/pybind11.h": None,
    }
    for header in headers:
        (include / header).parent.mkdir(parents=True, exist_ok=True)
        (include / header).write_text("")
    bzl = load_bzl(run_gen_build(tmp_path, "torch==2.13.0\n") / "torch_headers.bzl")
    prefix = "site/torch/include/"
    assert bzl["TORCH_HEADERS"] == sorted(prefix + h for h, group in headers.items() if group == "generic")
    assert bzl["TORCH_DISPATCH_HEADERS"] == sorted(
        prefix + h for h, group in headers.items() if group == "dispatch"
    )


def test_no_torch_in_the_lock_gives_empty_header_lists(tmp_path):
    bzl = load_bzl(run_gen_build(tmp_path, "a==1\n") / "torch_headers.bzl")
    assert bzl["TORCH_HEADERS"] == [] and bzl["TORCH_DISPATCH_HEADERS"] == []


def test_public_targets_are_this_repos_own_without_alternates(tmp_path):
    build = (run_gen_build(tmp_path, "a==1\n") / "BUILD.bazel").read_text()
    for target in ("site_packages", "torch_headers", "torch_dispatch_headers", "libtorch"):
        assert f'alias(name = "{target}", actual = ":_{target}")' in build
    assert "select(" not in build


def test_an_alternate_switches_every_public_target_under_its_setting(tmp_path):
    out = run_gen_build(tmp_path, "a==1\n", "--alternate=@//third_party:next=deps_next")
    build = (out / "BUILD.bazel").read_text()
    for target in ("site_packages", "torch_headers", "torch_dispatch_headers", "libtorch"):
        assert f'"@//third_party:next": "@deps_next//:_{target}",' in build
        assert f'"//conditions:default": ":_{target}",' in build
    # Package aliases follow through site_packages, so they switch too.
    assert 'alias(name = "sentence_transformers", actual = ":site_packages")' in build


def test_a_malformed_alternate_is_one_clear_error(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "lock.txt").write_text("a==1\n")
    result = subprocess.run(
        [
            sys.executable,
            str(GEN_BUILD),
            "--site",
            "site",
            "--lock",
            "lock.txt",
            "--repo",
            "deps",
            "--interpreter",
            "/x/python3",
            "--alternate",
            "next=deps next",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "--alternate: 'next=deps next': want @REPO//PKG:CONFIG_SETTING=REPO_NAME" in result.stderr
    assert not (tmp_path / "BUILD.bazel").exists()
