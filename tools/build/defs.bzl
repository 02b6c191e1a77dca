"""Public build macros of the monorepo."""

load("//tools/build/private:lint.bzl", _lint_sources = "lint_sources", _lint_test = "lint_test")
load("//tools/build/private:pytest.bzl", _py_pytest = "py_pytest")
load("//tools/build/private:wheel_sources.bzl", _wheel_sources = "wheel_sources")

py_pytest = _py_pytest
lint_sources = _lint_sources
lint_test = _lint_test
wheel_sources = _wheel_sources

# The wheels (docs/adopting.md, tools/ci:wheels_test): one version, one license, and the
# installed name of the `testing` import root (no top-level `testing` in site-packages; the
# monorepo keeps its folders and imports, wheel_sources rewrites them at build time).
WHEEL_VERSION = "0.1.0"
WHEEL_LICENSE = "BSD-3-Clause"
WHEEL_PYTHON = ">=3.11"
WHEEL_RENAMES = {"testing": "oot_ci_testing"}

# Requires-Dist of a wheel on the shared one (testing/results), bounded to this release line.
RESULTS_REQUIREMENT = "oot-ci-results>=0.1.0,<0.2"
