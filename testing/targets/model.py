"""Pure extraction: which Bazel test targets a set of configs implies.

A config names ops and dtypes in several places (global supported lists,
per-op dtype lists, per-test narrowing, edits.*.include); every name found
anywhere gets a target. Suites are the config's in-tree files; upstream files
(${TORCH_ROOT}) need a PyTorch checkout and are left to the upstream commands.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

REPO_PREFIX = "${REPO_ROOT}/"


def sanitize(name: str) -> str:
    """The plugin's mark suffix (testing.plugin.selection.mark_name): \\W -> _."""
    return re.sub(r"\W", "_", name)


@dataclass(frozen=True)
class ConfigTargets:
    """What one config file contributes."""

    name: str  # target-safe stem of the file
    path: str  # repo-relative YAML path
    suites: tuple[str, ...]  # repo-relative test files
    upstream: tuple[str, ...]  # ${TORCH_ROOT} files, not runnable under Bazel
    ops: tuple[str, ...]
    dtypes: tuple[str, ...]


def _names(items: Iterable | None) -> Iterator[str]:
    for item in items or ():
        yield item if isinstance(item, str) else item.name


def ops_of(doc) -> set[str]:
    suite = doc.test_suite_config
    found = set(_names(suite.global_.supported_ops))
    for entry in suite.files:
        for test in entry.tests:
            found.update(test.ops or ())
            if test.edits and test.edits.ops:
                found.update(_names(test.edits.ops.include))
    return found


def dtypes_of(doc) -> set[str]:
    suite = doc.test_suite_config
    found = set(_names(suite.global_.supported_dtypes))
    for op in suite.global_.supported_ops or ():
        if not isinstance(op, str):
            found.update(_names(op.dtypes))
    for entry in suite.files:
        for test in entry.tests:
            found.update(test.dtypes or ())
            if test.edits and test.edits.dtypes:
                found.update(_names(test.edits.dtypes.include))
    return found


def split_files(doc, expand) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(in-tree suites, upstream files). `expand` turns a ${REPO_ROOT}
    pattern into the sorted repo-relative files it matches."""
    suites: list[str] = []
    upstream: list[str] = []
    for entry in doc.test_suite_config.files:
        if entry.path.startswith(REPO_PREFIX):
            suites.extend(f for f in expand(entry.path[len(REPO_PREFIX):]) if f not in suites)
        else:
            upstream.append(entry.path)
    return tuple(suites), tuple(upstream)


def config_targets(stem: str, path: str, doc, expand) -> ConfigTargets:
    suites, upstream = split_files(doc, expand)
    return ConfigTargets(sanitize(stem), path, suites, upstream,
                         tuple(sorted(ops_of(doc))), tuple(sorted(dtypes_of(doc))))


def label_of(path: str, packages: set[str]) -> str:
    """Bazel label of a repo-relative source file, given the package directories."""
    parts = path.split("/")
    for cut in range(len(parts) - 1, -1, -1):
        package = "/".join(parts[:cut])
        if package in packages or cut == 0:
            return f"//{package}:{'/'.join(parts[cut:])}"
    raise AssertionError("unreachable")


def targets_data(configs: list[ConfigTargets], label=lambda path: path) -> dict:
    """The data the Starlark macro turns into targets (plain dicts/lists/strings)."""
    def grouped(attr: str, prefix: str) -> dict:
        out: dict[str, dict] = {}
        for config in configs:
            if not config.suites:
                continue  # nothing in-tree to run for this config
            for name in getattr(config, attr):
                entry = out.setdefault(sanitize(name), {"name": name, "mark": f"{prefix}__{sanitize(name)}",
                                                        "configs": [], "suites": [], "data": []})
                entry["configs"].append(config.path)
                entry["suites"].extend(s for s in config.suites if s not in entry["suites"])
                entry["data"].extend(label(f) for f in (config.path, *config.suites) if label(f) not in entry["data"])
        return dict(sorted(out.items()))

    return {
        "configs": {c.name: {"config": c.path, "suites": list(c.suites), "upstream": list(c.upstream),
                             "data": [label(f) for f in (c.path, *c.suites)]}
                    for c in configs},
        "ops": grouped("ops", "op"),
        "dtypes": grouped("dtypes", "dtype"),
    }
