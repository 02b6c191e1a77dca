"""The generated upstream's nightly index: a find-links directory of "nightly" torch wheels.

Each is the pinned wheel restamped as if built at a fixture commit: its `torch/` package
with the core Python files as they are at that commit, `torch/version.py` naming that
commit (`git_version`) and a nightly version (`2.13.0.dev20261201+cpu`), its dist-info
renamed to match with a fresh RECORD. The fixture's main line changes no native file, so
the pinned binaries are what a build at that commit would hold: a leg on such a wheel is
exact through the nearest nightly, as a real one would be. Made at fixture-generation time
(never committed), stored uncompressed, and remade only when their content key changes.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import zipfile
from pathlib import Path
from typing import Callable, Mapping, Sequence

from crcr.upstream.core_index import MAP_FILE, MAP_FORMAT
from testing.base import atomic

KEY_FILE = ".oot-nightly.key"
DATE = "202612{:02d}"  # the fixture's nightlies are dated by their position on main


def nightly_version(release: str, day: int) -> str:
    """'2.13.0+cpu', 3 -> '2.13.0.dev20261203+cpu' (as nightly wheels read)."""
    public, _, local = release.partition("+")
    return f"{public}.dev{DATE.format(day)}" + (f"+{local}" if local else "")


def _restamp_version_py(text: str, version: str, commit: str) -> str:
    text = re.sub(r"^__version__\s*=.*$", f"__version__ = '{version}'", text, count=1, flags=re.M)
    return re.sub(r"^git_version\s*=.*$", f"git_version = '{commit}'", text, count=1, flags=re.M)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _wheel_tag(dist_info: Path) -> str:
    lines = (dist_info / "WHEEL").read_text().splitlines()
    tags = [line.split(":", 1)[1].strip() for line in lines if line.startswith("Tag:")]
    return tags[0] if tags else "py3-none-any"


def build_wheel(
    torch_dir: Path, release: str, commit: str, day: int, python_at: Mapping[str, bytes], dest: Path
) -> tuple[Path, str]:
    """(the wheel, its sha256): the pinned `torch/` with `python_at` (torch/... -> content at
    `commit`) laid over it and version.py restamped."""
    dist_info = torch_dir.parent / f"torch-{release}.dist-info"
    version = nightly_version(release, day)
    new_info = f"torch-{version}.dist-info"
    name = f"torch-{version}-{_wheel_tag(dist_info)}.whl"
    record: list[str] = []
    tmp = dest / f".{name}.{os.getpid()}.part"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as whl:

        def put(arc: str, data: bytes) -> None:
            whl.writestr(arc, data)
            record.append(_record_line(arc, data))

        for path in sorted(torch_dir.rglob("*")):
            rel = "torch/" + path.relative_to(torch_dir).as_posix()
            if "__pycache__" in path.parts or not path.is_file():
                continue
            data = python_at[rel] if rel in python_at else path.read_bytes()
            if rel == "torch/version.py":
                data = _restamp_version_py(data.decode(), version, commit).encode()
            put(rel, data)
        for path in sorted(dist_info.iterdir()):
            if path.name == "RECORD" or not path.is_file():
                continue
            data = path.read_bytes()
            if path.name == "METADATA":
                data = re.sub(rb"^Version: .*$", f"Version: {version}".encode(), data, count=1, flags=re.M)
            put(f"{new_info}/{path.name}", data)
        record.append(f"{new_info}/RECORD,,")
        whl.writestr(f"{new_info}/RECORD", "\n".join(record) + "\n")
    os.replace(tmp, dest / name)
    digest = hashlib.sha256()
    with open(dest / name, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return dest / name, digest.hexdigest()


def make_index(
    dest: Path,
    torch_dir: Path,
    release: str,
    nightlies: Sequence[tuple[int, str]],
    python_at: Callable[[str], Mapping[str, bytes]],
    key: str,
) -> Path:
    """The find-links directory `dest` with one wheel per (position on main, commit) and its
    map file; reused as is when built from the same `key`."""
    try:
        if (dest / KEY_FILE).read_text() == key:
            return dest
    except OSError:
        pass
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("*.whl"):
        old.unlink()
    entries = []
    for day, commit in nightlies:
        wheel, digest = build_wheel(torch_dir, release, commit, day, python_at(commit), dest)
        entries.append({"file": wheel.name, "source": commit, "sha256": digest})
    atomic.write_json(dest / MAP_FILE, {"format": MAP_FORMAT, "nightlies": entries}, sort_keys=True)
    atomic.write_text(dest / KEY_FILE, key)
    return dest
