"""Pure decisions: which Bazel test targets a set of configs implies.

* A config with in-tree files (${REPO_ROOT}/...) is a feature: target
  config_<file> runs its suites with the base configs (those without files,
  e.g. the device config) plus itself.
* Op and dtype targets come from what the configured suites really generate:
  the op__/dtype__ marks of the collected tests (the adaptation plugin marks
  every generated test), so ops taken from the backend's capability table
  get targets too, and no target would run zero tests.
Upstream files (${TORCH_ROOT}) need a PyTorch checkout and are left to the
upstream commands.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

REPO_PREFIX = "${REPO_ROOT}/"


def sanitize(name: str) -> str:
    """The plugin's mark suffix (testing.plugin.selection.mark_name): \\W -> _."""
    return re.sub(r"\W", "_", name)


@dataclass(frozen=True)
class ConfigFile:
    name: str  # target-safe stem, e.g. spyre_ops for configs/spyre/ops.yaml
    path: str  # repo-relative YAML path
    suites: tuple[str, ...]  # repo-relative in-tree test files
    upstream: tuple[str, ...]  # ${TORCH_ROOT} paths, not runnable under Bazel
    has_files: bool  # False: a base config (global settings only)


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


def config_file(stem: str, path: str, doc, expand) -> ConfigFile:
    suites, upstream = split_files(doc, expand)
    return ConfigFile(sanitize(stem), path, suites, upstream, bool(doc.test_suite_config.files))


def base_configs(configs: list[ConfigFile]) -> list[str]:
    return [c.path for c in configs if not c.has_files]


def runnable(configs: list[ConfigFile]) -> tuple[list[str], list[str]]:
    """(every config a run needs, every in-tree suite) for op/dtype targets."""
    features = [c for c in configs if c.suites]
    suites: list[str] = []
    for c in features:
        suites.extend(s for s in c.suites if s not in suites)
    return base_configs(configs) + [c.path for c in features], suites


def label_of(path: str, packages: set[str]) -> str:
    """Bazel label of a repo-relative source file, given the package directories."""
    parts = path.split("/")
    for cut in range(len(parts) - 1, 0, -1):
        package = "/".join(parts[:cut])
        if package in packages:
            return f"//{package}:{'/'.join(parts[cut:])}"
    return f"//:{path}"


def config_targets(configs: list[ConfigFile], label) -> dict:
    base = base_configs(configs)
    out = {}
    for c in configs:
        with_base = base + [c.path] if c.has_files else [c.path]
        out[c.name] = {"config": c.path, "configs": with_base, "suites": list(c.suites),
                       "upstream": list(c.upstream), "data": [label(f) for f in (*with_base, *c.suites)]}
    return out


def marked_targets(marks: dict[str, list[str]], prefix: str, configs: list[str], label) -> dict:
    """{name: target data} for every `prefix`__<name> mark some collected test
    carries; each target runs only the suites holding such tests."""
    out: dict[str, dict] = {}
    for nodeid, names in sorted(marks.items()):
        suite = nodeid.split("::", 1)[0]
        for mark in names:
            if not mark.startswith(prefix + "__"):
                continue
            entry = out.setdefault(mark[len(prefix) + 2:], {"mark": mark, "configs": list(configs),
                                                            "suites": [], "tests": 0})
            entry["tests"] += 1
            if suite not in entry["suites"]:
                entry["suites"].append(suite)
    for entry in out.values():
        entry["suites"].sort()
        entry["data"] = [label(f) for f in (*entry["configs"], *entry["suites"])]
    return dict(sorted(out.items()))
