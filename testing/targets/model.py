"""Pure decisions: which Bazel test targets a set of configs implies.

* Configs form sets, one per directory (configs/spyre/, configs/cpu/). In a
  set, configs without files are its base (e.g. the device config); a config
  with in-tree files (${REPO_ROOT}/...) is a feature, and config_<dir>_<file>
  runs its suites with the set's base configs plus itself.
* A set whose base names a backend is a device set. Its op and dtype targets
  come from what its suites really generate: the op__/dtype__ marks of the
  collected tests (the adaptation plugin marks every generated test), so ops
  taken from the backend's capability table get targets too, and no target
  runs zero tests. Each runs only the suites holding its tests, with the
  feature configs of those suites. Model-op cases (model__<name> marks) make
  model_<name> targets instead of op and dtype ones.
Upstream files (${TORCH_ROOT}) need a PyTorch checkout and are left to the
upstream commands.
"""

from __future__ import annotations

from dataclasses import dataclass

from testing.config.paths import REPO_ROOT, split_root
from testing.config.runs import target_key

# The plugin's mark suffix (testing.plugin.selection.mark_name) and a config's target key
# are the same sanitising: \W -> _.
sanitize = target_key


@dataclass(frozen=True)
class ConfigFile:
    name: str  # target-safe stem, e.g. spyre_ops for configs/spyre/ops.yaml
    path: str  # repo-relative YAML path
    suites: tuple[str, ...]  # repo-relative in-tree test files
    upstream: tuple[str, ...]  # ${TORCH_ROOT} paths, not runnable under Bazel
    has_files: bool  # False: a base config (global settings only)
    group: str  # its directory under configs/ ("" at the top)
    backend: str | None  # global.backend, if it names one


def split_files(doc, expand) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(in-tree suites, upstream files). `expand` turns a ${REPO_ROOT}
    pattern into the sorted repo-relative files it matches."""
    suites: list[str] = []
    upstream: list[str] = []
    for entry in doc.test_suite_config.files:
        root, rel = split_root(entry.path)
        if root == REPO_ROOT:
            suites.extend(f for f in expand(rel) if f not in suites)
        else:
            upstream.append(entry.path)
    return tuple(suites), tuple(upstream)


def config_file(stem: str, path: str, doc, expand) -> ConfigFile:
    suites, upstream = split_files(doc, expand)
    suite = doc.test_suite_config
    group = stem.rsplit("/", 1)[0] if "/" in stem else ""
    return ConfigFile(sanitize(stem), path, suites, upstream, bool(suite.files), group, suite.global_.backend)


def groups(configs: list[ConfigFile]) -> dict[str, list[ConfigFile]]:
    out: dict[str, list[ConfigFile]] = {}
    for c in configs:
        out.setdefault(c.group, []).append(c)
    return out


def base_configs(configs: list[ConfigFile]) -> list[str]:
    return [c.path for c in configs if not c.has_files]


def device_sets(configs: list[ConfigFile]) -> dict[str, list[ConfigFile]]:
    """Config sets whose base configs name a backend."""
    return {g: cs for g, cs in groups(configs).items() if any(c.backend and not c.has_files for c in cs)}


def runnable(configs: list[ConfigFile]) -> tuple[list[str], list[str]]:
    """(every config of the set, every in-tree suite) for collection."""
    features = [c for c in configs if c.suites]
    suites: list[str] = []
    for c in features:
        suites.extend(s for s in c.suites if s not in suites)
    return base_configs(configs) + [c.path for c in features], suites


def suite_configs(configs: list[ConfigFile]) -> dict[str, list[str]]:
    """{suite: the feature configs that list it}."""
    out: dict[str, list[str]] = {}
    for c in configs:
        for suite in c.suites:
            out.setdefault(suite, []).append(c.path)
    return out


def label_of(path: str, packages: set[str]) -> str:
    """Bazel label of a repo-relative source file, given the package directories."""
    parts = path.split("/")
    for cut in range(len(parts) - 1, 0, -1):
        package = "/".join(parts[:cut])
        if package in packages:
            return f"//{package}:{'/'.join(parts[cut:])}"
    return f"//:{path}"


def config_targets(configs: list[ConfigFile], label) -> dict:
    out = {}
    for c in configs:
        base = base_configs(groups(configs)[c.group])
        with_base = base + [c.path] if c.has_files else [c.path]
        out[c.name] = {
            "config": c.path,
            "configs": with_base,
            "suites": list(c.suites),
            "upstream": list(c.upstream),
            "data": [label(f) for f in (*with_base, *c.suites)],
        }
    return out


def marked_targets(marks: dict[str, list[str]], prefix: str, configs: list[ConfigFile], label) -> dict:
    """{name: target data} for every `prefix`__<name> mark some collected test
    carries; each target runs only the suites holding such tests, with the
    set's base configs and those suites' feature configs."""
    features = suite_configs(configs)
    out: dict[str, dict] = {}
    for nodeid, names in sorted(marks.items()):
        suite = nodeid.split("::", 1)[0]
        if prefix != "model" and any(m.startswith("model__") for m in names):
            continue  # a model-op case belongs to its model's target, not to op/dtype targets
        for mark in names:
            if not mark.startswith(prefix + "__"):
                continue
            # (No test counts: they would make every bucket edit restale the file.)
            entry = out.setdefault(
                mark[len(prefix) + 2 :], {"mark": mark, "configs": base_configs(configs), "suites": []}
            )
            if suite not in entry["suites"]:
                entry["suites"].append(suite)
    for entry in out.values():
        entry["suites"].sort()
        for suite in entry["suites"]:
            entry["configs"].extend(c for c in features.get(suite, ()) if c not in entry["configs"])
        entry["data"] = [label(f) for f in (*entry["configs"], *entry["suites"])]
    return dict(sorted(out.items()))
