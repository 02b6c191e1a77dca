"""Loading a config: the one YAML reader's tree (testing.yamldoc: round trip, file:line
errors) validated against the models.

``read_yaml``/``parse_yaml``/``round_trip`` are testing.yamldoc's, named here for the
contract's users (every tool reads its YAML through them, so a syntax error reads the same
everywhere); ``load`` validates a test-suite config. ruamel.yaml keeps line numbers, so every
error names file:line and the key (errors.py). Pure reading: nothing is merged or
interpreted here; writing is edit.py's.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from pydantic import ValidationError

from testing.base.errors import ConfigError, Loc
from testing.config import comments, modelops
from testing.config.models import ConfigDocument
from testing.config.validation import validation_error
from testing.yamldoc.locate import line_at
from testing.yamldoc.read import parse_yaml, read_yaml, round_trip

__all__ = ["Keys", "Loaded", "load", "parse_yaml", "plain", "read_yaml", "round_trip"]


Keys = tuple[Any, ...]  # a key path under test_suite_config: ("files", 0, "tests", 2)


@dataclass(frozen=True)
class Loaded:
    """One config file: the model, the ruamel tree it came from and its text lines.

    Readers of the model ask it where a part of the model was written (``loc``) and which
    reason its YAML comments give (``reason``, ``name_reasons``), by the part's key path,
    so no reader outside this package walks a ruamel tree.
    """

    path: str
    doc: ConfigDocument
    raw: Any
    lines: list[str]

    def node(self, *keys: Any) -> Any:
        node = self.raw["test_suite_config"]
        for key in keys:
            node = node[key]
        return node

    def loc(self, *keys: Any) -> Loc:
        """file:line of the part at `keys`."""
        return Loc(self.path, line_at(self.raw, ("test_suite_config",) + keys))

    def reason(self, *keys: Any, after: Iterable[str] = ("mode",)) -> Optional[str]:
        """The nearest YAML comment of the list item at `keys` (comments.py): after one of
        its `after` keys' values, the comment lines above it, or after its first line."""
        *seq, idx = keys
        return comments.item_reason(self.lines, self.node(*seq), idx, keys=after)

    def name_reasons(self, *keys: Any) -> dict[str, str]:
        """{name: its own comment} of the test entry at `keys` (a block list of names)."""
        return comments.name_reasons(self.lines, self.node(*keys))

    def name_lines(self, *keys: Any) -> tuple[tuple[str, int], ...]:
        """(name, line) of each name of the test entry at `keys` when they are a block list."""
        names = self.node(*keys).get("names")
        if not isinstance(names, list):
            return ()
        return tuple((str(n), self.loc(*keys, "names", i).line) for i, n in enumerate(names))


def load(path: str) -> Loaded:
    """Parse and validate one config file."""
    raw, text = read_yaml(path)
    if not isinstance(raw, dict) or not ("test_suite_config" in raw or modelops.is_cases_document(raw)):
        raise ConfigError(Loc(path, 1), "test_suite_config", "missing top-level key 'test_suite_config'")
    # Model-op configs (testing/config/modelops.py): a `cases:` document, their test path.
    data = modelops.adapt(plain(raw), raw, Path(path).stem)
    if modelops.is_cases_document(raw):  # read as a suite config: its tree, each case on its line
        raw = modelops.as_tree(data)
    try:
        doc = ConfigDocument.model_validate(data)
    except ValidationError as err:
        raise validation_error(path, raw, err) from None
    return Loaded(path, doc, raw, text.splitlines())


def plain(node: Any) -> Any:
    """ruamel containers and scalars -> plain dict/list/str (pydantic wants builtins)."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, str):
        return str(node)  # a quoted scalar is a str subclass that remembers its quotes
    return node
