"""lint_sources / lint_test: ruff and buildifier over every package's sources."""

load("@pydeps//:requirements.bzl", "requirement")
load("@rules_python//python:defs.bzl", "py_binary", "py_test")

_LINT = "//tools/build/private:lint.py"
_CONFIG = "//:ruff.toml"
_BUILDIFIER = "@buildifier//:bin"

def lint_sources(name = "lint_srcs", exclude = []):
    """The package's Python and Starlark files, for //:lint (subpackages lint their own)."""
    native.filegroup(
        name = name,
        srcs = native.glob(["**/*.py", "**/*.bzl", "BUILD.bazel"], exclude = exclude),
        visibility = ["//:__pkg__"],
    )

    # The package's Markdown (its README): //tools/ci:doc_commands_test runs their commands.
    native.filegroup(
        name = "md_srcs",
        srcs = native.glob(["**/*.md"]),
        visibility = ["//tools/ci:__pkg__"],
    )

def lint_test(name, packages, generated = [], **kwargs):
    """`name`: the check over `packages`' lint_srcs; `format`: rewrites the workspace in place.

    Args:
      name: the test's name.
      packages: labels of lint_sources filegroups.
      generated: workspace paths that only their generator writes (left out of `format`).
      **kwargs: passed to the py_test.
    """
    common = dict(
        main = _LINT,
        srcs = [_LINT],
        deps = [requirement("ruff")],
        python_version = "PY3",
    )
    tool_args = ["--config", "$(rootpath %s)" % _CONFIG, "--buildifier", "$(rootpath %s)" % _BUILDIFIER]
    py_test(
        name = name,
        data = packages + [_CONFIG, _BUILDIFIER],
        args = tool_args + ["check"] + ["$(rootpaths %s)" % p for p in packages],
        **dict(common, **kwargs)
    )
    py_binary(
        name = "format",
        data = [_CONFIG, _BUILDIFIER],
        args = tool_args + ["fix"] + ["--generated=%s" % g for g in generated],
        **common
    )
