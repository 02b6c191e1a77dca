"""What the plugin's tests (and the spyre suites in testing/tests) share: the repository root,
the plugin's pytester arguments and a subprocess environment that imports this repository."""

import os
import sys

# The plugin as the pytester runs load it: unknown marks are errors (every mark it adds is registered).
PLUGIN = (
    "-p",
    "testing.plugin",
    "-p",
    "no:cacheprovider",
    "-W",
    "error::pytest.PytestUnknownMarkWarning",
    "-W",
    "ignore::pytest.PytestAssertRewriteWarning",
)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def subprocess_environ(*import_roots: str, **variables: str) -> dict:
    """os.environ for a python subprocess that imports this repository (testing.plugin and
    `import_roots`) and everything this interpreter can, plus `variables`."""
    paths = [REPO_ROOT, *import_roots, *sys.path]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p), **variables)
