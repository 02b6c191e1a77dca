"""How configs are run: the pytest plugins that read them and the generated targets' names.

Every runner (the CRCR handler's legs, testing/targets' generator, tools/shard's matrix)
takes these from here instead of spelling module paths and target names itself.
"""

from __future__ import annotations

import re
from pathlib import Path

from testing.config.features import CONFIG_DIR

# `pytest -p <PLUGIN> --config <yaml>`: the adaptation plugin (testing/plugin).
PLUGIN = "testing.plugin"
# `-p <SHARD_PLUGIN> --shard-index I --shard-total N`: duration-balanced shards (tools/shard).
SHARD_PLUGIN = "tools.shard.plugin"
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
