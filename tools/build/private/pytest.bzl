"""py_pytest: a py_test that runs pytest over its test files."""

load("@pydeps//:requirements.bzl", "requirement")
load("@rules_python//python:defs.bzl", "py_test")

_RUNNER = "//tools/build/private:pytest_runner.py"

def py_pytest(name, srcs, deps = [], data = [], args = [], env = {}, size = "small", tags = [], imports = [], **kwargs):
    """Runs pytest on `srcs`; JUnit XML goes to $XML_OUTPUT_FILE.

    Args:
      name: target name.
      srcs: test files (all collected) plus helper modules.
      deps: py_library deps; pytest is always added.
      data: runtime files.
      args: extra pytest arguments, placed before the test files.
      env: extra environment for the test.
      size: Bazel test size (timeout class).
      tags: Bazel tags (e.g. "manual" for heavy runs).
      imports: extra import roots, as in py_test.
      **kwargs: passed to py_test (shard_count, timeout, flaky, ...).
    """

    test_files = [s for s in srcs if s.endswith(".py") and (s.split("/")[-1].startswith("test_") or s.endswith("_test.py"))]
    py_test(
        name = name,
        main = _RUNNER,
        srcs = srcs + [_RUNNER],
        deps = deps + [requirement("pytest")],
        data = data,
        args = args + ["$(rootpath %s)" % s for s in test_files],
        env = dict({"PYTHONDONTWRITEBYTECODE": "1", "HF_HUB_OFFLINE": "1"}, **env),
        size = size,
        tags = tags,
        imports = imports,
        python_version = "PY3",
        **kwargs
    )
