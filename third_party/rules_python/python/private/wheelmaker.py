"""Writes a PEP 427 wheel reproducibly (fixed timestamps, sorted entries, RECORD hashes)."""

import argparse
import base64
import hashlib
import os
import zipfile

_EPOCH = (1980, 1, 1, 0, 0, 0)
_LICENSES = "licenses/"


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def _metadata(args) -> str:
    lines = ["Metadata-Version: 2.4", f"Name: {args.distribution}", f"Version: {args.version}"]
    if args.summary:
        lines.append(f"Summary: {args.summary}")
    if args.license:  # PEP 639: an SPDX expression, and the license texts the wheel carries
        lines.append(f"License-Expression: {args.license}")
    lines += [f"License-File: {name}" for name in _license_files(args.extra_distinfo_file)]
    if args.python_requires:
        lines.append(f"Requires-Python: {args.python_requires}")
    lines += [f"Requires-Dist: {r}" for r in args.requires]
    extras: dict[str, list[str]] = {}
    for spec in args.extra_requires:
        extra, _, req = spec.partition(":")
        extras.setdefault(extra, []).append(req)
    for extra, reqs in sorted(extras.items()):
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
    return "\n".join(lines) + "\n"


def _read(spec: str) -> tuple[str, bytes]:
    """DEST=SRC -> (DEST, the bytes of SRC)."""
    dest, _, src = spec.partition("=")
    with open(src, "rb") as f:
        return dest, f.read()


def _license_files(specs: list[str]) -> list[str]:
    """Names of the extra dist-info files under licenses/, relative to it (PEP 639)."""
    names = (spec.partition("=")[0] for spec in specs)
    return sorted(n.removeprefix(_LICENSES) for n in names if n.startswith(_LICENSES))


def _entry_points(specs: list[str]) -> str:
    groups: dict[str, list[str]] = {}
    for spec in specs:
        group, _, entry = spec.partition(":")
        groups.setdefault(group, []).append(entry)
    return "".join(
        f"[{g}]\n" + "".join(f"{e}\n" for e in entries) + "\n" for g, entries in sorted(groups.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--distribution", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--tag", required=True)
    parser.add_argument("--summary", default="")
    parser.add_argument("--license", default="")
    parser.add_argument("--python-requires", default="")
    parser.add_argument("--out", required=True)
    parser.add_argument("--file", action="append", default=[])
    parser.add_argument("--requires", action="append", default=[])
    parser.add_argument("--extra-requires", action="append", default=[], help="EXTRA:REQUIREMENT")
    parser.add_argument("--entry-point", action="append", default=[])
    parser.add_argument("--extra-distinfo-file", action="append", default=[], help="NAME=PATH in .dist-info")
    args = parser.parse_args()

    dist_info = f"{args.distribution.replace('-', '_')}-{args.version}.dist-info"
    entries = dict(_read(spec) for spec in args.file)
    entries.update((f"{dist_info}/{name}", data) for name, data in map(_read, args.extra_distinfo_file))
    entries[f"{dist_info}/METADATA"] = _metadata(args).encode()
    entries[f"{dist_info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: rules_python-standin\nRoot-Is-Purelib: true\nTag: {args.tag}\n"
    ).encode()
    if args.entry_point:
        entries[f"{dist_info}/entry_points.txt"] = _entry_points(args.entry_point).encode()
    record = "".join(f"{p},{_record_hash(d)},{len(d)}\n" for p, d in sorted(entries.items()))
    record += f"{dist_info}/RECORD,,\n"
    entries[f"{dist_info}/RECORD"] = record.encode()

    tmp = args.out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as whl:
        for path in sorted(entries):
            info = zipfile.ZipInfo(path, date_time=_EPOCH)
            # Shared libraries must stay executable after install.
            mode = 0o755 if path.endswith(".so") else 0o644
            info.external_attr = (mode | 0o100000) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(info, entries[path])
    os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
