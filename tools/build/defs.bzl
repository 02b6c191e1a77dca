"""Public build macros of the monorepo."""

load("//tools/build/private:lint.bzl", _lint_sources = "lint_sources", _lint_test = "lint_test")
load("//tools/build/private:pytest.bzl", _py_pytest = "py_pytest")

py_pytest = _py_pytest
lint_sources = _lint_sources
lint_test = _lint_test
