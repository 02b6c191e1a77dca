"""wheelmaker.py writes installable, reproducible wheels."""

import pathlib
import subprocess
import sys
import zipfile

WHEELMAKER = next(pathlib.Path("..").glob("rules_python/python/private/wheelmaker.py")).resolve()


def build(tmp_path, out_name: str) -> pathlib.Path:
    src = tmp_path / "mod.py"
    src.write_text("def hello():\n    return 'hi'\n")
    license_text = tmp_path / "LICENSE"
    license_text.write_text("BSD 3-Clause License\n")
    out = tmp_path / out_name
    subprocess.run(
        [
            sys.executable,
            str(WHEELMAKER),
            "--distribution",
            "demo-pkg",
            "--version",
            "1.2.3",
            "--tag",
            "py3-none-any",
            "--out",
            str(out),
            "--file",
            f"demo_pkg/mod.py={src}",
            "--file",
            f"demo_pkg/__init__.py={src}",
            "--requires",
            "torch==2.13.0",
            "--extra-requires",
            "yaml:ruamel.yaml>=0.18,<0.20",
            "--entry-point",
            "console_scripts:demo = demo_pkg.mod:hello",
            "--license",
            "BSD-3-Clause",
            "--python-requires",
            ">=3.11",
            "--extra-distinfo-file",
            f"licenses/LICENSE={license_text}",
        ],
        check=True,
    )
    return out


def test_wheel_is_reproducible_and_complete(tmp_path):
    first, second = build(tmp_path, "a.whl"), build(tmp_path, "b.whl")
    assert first.read_bytes() == second.read_bytes()
    names = zipfile.ZipFile(first).namelist()
    assert "demo_pkg/mod.py" in names
    meta = zipfile.ZipFile(first).read("demo_pkg-1.2.3.dist-info/METADATA").decode()
    assert "Requires-Dist: torch==2.13.0" in meta
    assert 'Provides-Extra: yaml\nRequires-Dist: ruamel.yaml>=0.18,<0.20; extra == "yaml"\n' in meta
    assert meta.startswith("Metadata-Version: 2.4\n") and "Requires-Python: >=3.11" in meta
    # PEP 639: the SPDX expression and the license text the wheel carries
    assert "License-Expression: BSD-3-Clause\nLicense-File: LICENSE\n" in meta
    assert (
        zipfile.ZipFile(first).read("demo_pkg-1.2.3.dist-info/licenses/LICENSE") == b"BSD 3-Clause License\n"
    )
    record = zipfile.ZipFile(first).read("demo_pkg-1.2.3.dist-info/RECORD").decode()
    assert "demo_pkg/mod.py,sha256=" in record and "dist-info/licenses/LICENSE,sha256=" in record


def test_wheel_installs_and_imports(tmp_path):
    wheel = build(tmp_path, "demo_pkg-1.2.3-py3-none-any.whl")
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    check = subprocess.run(
        [sys.executable, "-c", "import demo_pkg.mod as m; print(m.hello())"],
        env={"PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
    )
    assert check.stdout.strip() == "hi"
