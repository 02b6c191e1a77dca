"""Keys under which test durations are stored.

Timings are keyed by pytest node id ("dir/test_x.py::Class::test_y[p]").
JUnit XML only carries pytest's mangled address (classname "dir.test_x.Class",
name "test_y[p]"), which cannot always be turned back into a node id, so a
JUnit record that cannot be resolved is stored under its JUnit key instead and
lookups try both forms.
"""

from __future__ import annotations

from pathlib import Path


def junit_key(nodeid: str) -> str:
    """The JUnit address pytest writes for `nodeid`, as "classname::name"."""
    parts = nodeid.split("::")
    module = parts[0]
    if module.endswith(".py"):
        module = module[: -len(".py")]
    classname = ".".join([module.replace("/", ".")] + parts[1:-1])
    return f"{classname}::{parts[-1]}"


def base_of(nodeid: str) -> str:
    """The node id without its parametrization suffix."""
    return nodeid.split("[", 1)[0]


def class_of(nodeid: str) -> str:
    """Everything before the final "::name" (file or file::Class)."""
    return nodeid.rsplit("::", 1)[0]


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def nodeid_from_junit(classname: str, name: str, file: str | None, root: Path | None) -> str:
    """Best node id for a JUnit <testcase>; falls back to the JUnit key.

    `file` is the xunit1 "file" attribute when the classname starts with its module (pytest
    writes where the test function's code is: for the plugin's generated methods that is
    testing/plugin/wrapping.py, and trusting it recorded every Bazel-run test under that
    file). Otherwise the dotted classname is split at the longest prefix that names an
    existing .py file under `root`.
    """
    parts = classname.split(".") if classname else []
    module = Path(file).with_suffix("").parts if file else ()
    if module and tuple(parts[: len(module)]) == module:
        return "::".join([file] + parts[len(module) :] + [name])
    if root is not None:
        for cut in range(len(parts), 0, -1):
            candidate = Path(*parts[:cut]).with_suffix(".py")
            if (root / candidate).is_file():
                return "::".join([candidate.as_posix()] + parts[cut:] + [name])
    return f"{classname}::{name}"
