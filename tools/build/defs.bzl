"""Public build macros of the monorepo."""

load("//tools/build/private:pytest.bzl", _py_pytest = "py_pytest")

py_pytest = _py_pytest
