"""Public build macros of the monorepo."""

load("//tools/build/private:lint.bzl", _lint_sources = "lint_sources", _lint_test = "lint_test")
load("//tools/build/private:pytest.bzl", _py_pytest = "py_pytest")
load(
    "//tools/build/private:wheel_sources.bzl",
    _WHEEL_LICENSE = "WHEEL_LICENSE",
    _WHEEL_LICENSE_FILES = "WHEEL_LICENSE_FILES",
    _WHEEL_PYTHON = "WHEEL_PYTHON",
    _WHEEL_RENAMES = "WHEEL_RENAMES",
    _WHEEL_VERSION = "WHEEL_VERSION",
    _oot_wheel = "oot_wheel",
)

py_pytest = _py_pytest
lint_sources = _lint_sources
lint_test = _lint_test
oot_wheel = _oot_wheel
WHEEL_LICENSE = _WHEEL_LICENSE
WHEEL_LICENSE_FILES = _WHEEL_LICENSE_FILES
WHEEL_PYTHON = _WHEEL_PYTHON
WHEEL_RENAMES = _WHEEL_RENAMES
WHEEL_VERSION = _WHEEL_VERSION

# Requires-Dist of a wheel on the shared one (testing/results), bounded to this release line;
# with its `yaml` extra for a wheel that reads YAML through testing/yamldoc (shipped there too).
RESULTS_REQUIREMENT = "oot-ci-results>=0.1.0,<0.2"
RESULTS_YAML_REQUIREMENT = "oot-ci-results[yaml]>=0.1.0,<0.2"
RUAMEL_REQUIREMENT = "ruamel.yaml>=0.18,<0.20"
