"""Test targets generated from configs/ (data in configs.bzl, written by generate.py).

    load("//testing/targets:defs.bzl", "config_test_targets")
    config_test_targets(deps = [...])

creates, in the calling package:
  config_<file>  every in-tree suite of one config file;
  op_<name>      -m op__<name> over the suites of the configs naming that op;
  dtype_<name>   -m dtype__<name>, likewise;
  model_<name>   -m model__<name>: one model's model-op cases (configs/README.md), run by
                 pytest --isolate rather than the shard runner (its per-model report);
  test_suites    configs, ops, dtypes, models and generated (all of them).
Every target but model_<name> runs the shard runner (//tools/shard): duration-balanced
Bazel sharding, crash recovery, test-level reruns with flaky verdicts.
"""

load("@rules_python//python:defs.bzl", "py_test")
load("//testing/targets:configs.bzl", "CONFIGS", "DTYPES", "MODELS", "OPS")
load("//tools/build:defs.bzl", "py_pytest")

_MAIN = "//tools/shard:bazel_main.py"

def _runner_args(reruns, pytest_args):
    return ["--reruns=%d" % reruns, "--"] + pytest_args

def _config_args(configs):
    args = []
    for config in configs:
        args += ["--config", config]
    return args

def _one(name, configs, suites, files, marks, common):
    pytest_args = common["plugin_args"] + common["extra_args"] + _config_args(configs) + marks + suites
    py_test(
        name = name,
        main = _MAIN,
        srcs = [_MAIN],
        deps = common["deps"] + ["//tools/shard"],
        data = common["data"] + files,
        args = _runner_args(common["reruns"], pytest_args),
        env = {"PYTHONDONTWRITEBYTECODE": "1", "HF_HUB_OFFLINE": "1", "OOT_TARGET": name},
        size = common["size"],
        shard_count = common["shard_count"].get(name),
        tags = [] if name in common["always"] else ["manual"],
        python_version = "PY3",
    )
    return name

def _model(name, model, common):
    """A model's cases: pytest with the plugin's own crash isolation (--isolate), whose report
    (the per-model counts in the terminal summary and as JUnit testsuite properties) the shard
    runner's merged JUnit would not keep."""
    pytest_args = common["plugin_args"] + common["extra_args"] + _config_args(model["configs"]) + ["-m", model["mark"], "--isolate"]
    py_pytest(
        name = name,
        srcs = [d for d in model["data"] if d.endswith(".py")],
        data = common["data"] + [d for d in model["data"] if not d.endswith(".py")],
        deps = common["deps"],
        args = pytest_args,
        env = {"OOT_TARGET": name},
        size = common["size"],
        tags = [] if name in common["always"] else ["manual"],
    )
    return name

def config_test_targets(**kwargs):
    """The targets for the configs in configs/ (see generated_test_targets)."""
    generated_test_targets(CONFIGS, OPS, DTYPES, models = MODELS, **kwargs)

def generated_test_targets(
        configs,
        ops,
        dtypes,
        deps,
        plugin_args = ["-p", "testing.plugin"],
        extra_args = [],
        reruns = 1,
        always = [],
        shard_count = {},
        size = "medium",
        data = [],
        models = {}):
    """Declares the generated test targets and their test_suites.

    Args:
      configs, ops, dtypes: the data generate.py writes into configs.bzl.
      deps: py_library deps the suites need (the plugin, the backend).
      plugin_args: pytest arguments that load the adaptation plugin.
      extra_args: further pytest arguments for every target (e.g. a backend).
      reruns: reruns of a failing test; fail-then-pass is reported flaky.
      always: target names that run under `bazel test //...`; all others are
        tagged manual (run them by name or through the test_suites).
      shard_count: {target name: Bazel shards}, balanced by recorded durations.
      size: Bazel test size.
      data: extra runtime files.
      models: model_<name> targets (-m model__<name>), data as for ops.
    """
    common = {
        "always": always,
        "data": data,
        "deps": deps,
        "extra_args": extra_args,
        "plugin_args": plugin_args,
        "reruns": reruns,
        "shard_count": shard_count,
        "size": size,
    }

    groups = {"configs": [], "ops": [], "dtypes": [], "models": []}
    for key, config in configs.items():
        if config["suites"]:
            groups["configs"].append(_one("config_" + key, config["configs"], config["suites"], config["data"], [], common))
    for key, op in ops.items():
        groups["ops"].append(_one("op_" + key, op["configs"], op["suites"], op["data"], ["-m", op["mark"]], common))
    for key, dtype in dtypes.items():
        groups["dtypes"].append(_one("dtype_" + key, dtype["configs"], dtype["suites"], dtype["data"], ["-m", dtype["mark"]], common))
    for key, model in models.items():
        groups["models"].append(_model("model_" + key, model, common))

    # test_suites are manual too: listing tests explicitly would otherwise pull
    # every manual target into `bazel test //...`.
    # (An empty `tests` would mean every test of the package, so empty groups are skipped.)
    groups["generated"] = groups["configs"] + groups["ops"] + groups["dtypes"] + groups["models"]
    for group, tests in groups.items():
        if tests:
            native.test_suite(name = group, tests = tests, tags = ["manual"])
