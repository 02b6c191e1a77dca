"""suites_test: the in-tree suites (testing/suites) under the adaptation plugin."""

load("//tools/build:defs.bzl", "py_pytest")

def suites_test(name, configs, pytest_args = [], deps = [], **kwargs):
    """pytest -p testing.plugin over testing/suites with `configs`.

    Args:
      name: target name.
      configs: YAML config labels, each passed as --config.
      pytest_args: further pytest arguments (marks, --isolate, ...).
      deps: what the configs' device needs beyond the plugin and the suites.
      **kwargs: passed to py_pytest (size, tags, ...).
    """
    py_pytest(
        name = name,
        srcs = native.glob(["suites/test_*.py"]),
        args = ["-p", "testing.plugin"] + pytest_args + ["--config=$(rootpath %s)" % c for c in configs],
        data = configs,
        deps = [":plugin", ":suites"] + deps,
        **kwargs
    )
