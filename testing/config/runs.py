"""How configs are run: the pytest plugins that read them, the generated targets' names and
the pytest command line.

Every runner (the CRCR handler's legs, testing/targets' generator, tools/shard's matrix and
runner, tools/select's end-to-end run, the plugin's own subprocess tests) takes these from
here instead of spelling module paths, target names or pytest options itself. Only plugins of
this room are named here (a runner above adds its own, e.g. tools/shard's journal plugin).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from testing.config.features import CONFIG_DIR

# `pytest -p <PLUGIN> --config <yaml>`: the adaptation plugin (testing/plugin).
PLUGIN = "testing.plugin"
# `-p <SHARD_PLUGIN> --shard-index I --shard-total N`: duration-balanced shards (testing/matrix).
SHARD_PLUGIN = "testing.matrix.plugin"
# `-p <ZYGOTE_PLUGIN>`: a pre-imported zygote forks the shard runner's children (testing/supervisor).
ZYGOTE_PLUGIN = "testing.supervisor.zygote"
TARGET_PACKAGE = "//testing"
TARGET_PREFIX = "config_"


def has_module(workspace: Path, module: str) -> bool:
    """Does this workspace carry the plugin module (a package or a .py; a backend's own
    checkout may have neither)?"""
    base = workspace.joinpath(*module.split("."))
    return base.is_dir() or base.with_suffix(".py").is_file()


def target_key(stem: str) -> str:
    """'spyre/op_consistency' -> 'spyre_op_consistency' (non-word characters -> '_')."""
    return re.sub(r"\W", "_", stem)


def config_key(config: str) -> str:
    """configs/spyre/op_consistency.yaml -> spyre_op_consistency."""
    rel = Path(config).with_suffix("")
    parts = rel.parts[1:] if rel.parts and rel.parts[0] == CONFIG_DIR else rel.parts
    return target_key("_".join(parts))


def config_target_name(config: str) -> str:
    """config_<key>: the generated Bazel test target of one config (testing/targets)."""
    return TARGET_PREFIX + config_key(config)


def config_target(config: str, package: str = TARGET_PACKAGE) -> str:
    """//testing:config_<key>."""
    return f"{package}:{config_target_name(config)}"


@dataclass(frozen=True)
class PytestCommand:
    """One pytest run as data; ``argv()`` is the one place its command line is spelled.

    ``args`` come first, as the caller has them (a user's own pytest arguments: their ``-p``
    plugins load before ours); ``extra`` come last before the ``paths``. Plugins load in the
    order given: ``PLUGIN`` reads ``configs`` (merged in order) and ``upstream_root``.
    """

    paths: Sequence[str] = ()
    plugins: Sequence[str] = ()
    configs: Sequence[str] = ()
    args: Sequence[str] = ()
    extra: Sequence[str] = ()
    quiet: bool = False  # -q
    cache: bool = True  # False: -p no:cacheprovider (nothing written into the tree)
    collect_only: bool = False
    upstream_root: Optional[str] = None  # ${TORCH_ROOT}: a PyTorch checkout
    rootdir: Optional[str] = None  # node ids relative to it
    junitxml: Optional[str] = None
    summary: Optional[str] = None  # the plugin's JSON summary (--oot-summary)
    timeout: Optional[float] = None  # the plugin's per-test timeout (--oot-timeout)
    shard: Optional[tuple[int, int]] = None  # (index, total): one slice by SHARD_PLUGIN
    markexpr: Optional[str] = None  # -m
    python: str = sys.executable

    def argv(self) -> list[str]:
        argv = [self.python, "-m", "pytest", *self.args]
        argv += ["--collect-only"] * self.collect_only + ["-q"] * self.quiet
        argv += [] if self.cache else ["-p", "no:cacheprovider"]
        for plugin in self.plugins:
            argv += ["-p", plugin]
        for config in self.configs:
            argv += ["--config", str(config)]
        for flag, value in (
            ("--upstream-root", self.upstream_root),
            ("--rootdir", self.rootdir),
            ("--junitxml", self.junitxml),
            ("--oot-timeout", self.timeout),
            ("--oot-summary", self.summary),
        ):
            argv += [] if value is None else [flag, str(value)]
        if self.shard is not None:
            argv += [
                "-p",
                SHARD_PLUGIN,
                "--shard-index",
                str(self.shard[0]),
                "--shard-total",
                str(self.shard[1]),
            ]
        argv += [] if self.markexpr is None else ["-m", self.markexpr]
        return argv + [str(a) for a in self.extra] + [str(p) for p in self.paths]


def adapter_run(
    adapter: str, configs: Sequence[str], paths: Sequence[str], extra: Sequence[str] = (), **fields
) -> PytestCommand:
    """The plugin over `paths` with `configs` through one adapter (auto | native | patch): the
    one spelling of the runs the adapter parity tests and tools/bench/native_bench.py compare."""
    return PytestCommand(
        paths=list(paths),
        plugins=[PLUGIN],
        configs=list(configs),
        extra=["--oot-adapter", adapter, *extra],
        cache=False,
        **fields,
    )
