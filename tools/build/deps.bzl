"""External dependencies of the monorepo, called once from WORKSPACE."""

load("@rules_python//python:pip.bzl", "pip_parse")

def oot_ci_dependencies():
    # All Python packages (torch 2.13.0+cpu included), hash-pinned; see third_party/.
    pip_parse(
        name = "pydeps",
        requirements_lock = "//third_party:requirements_lock.txt",
    )
