"""Public entry point for wheels (stand-in for @rules_python//python:packaging.bzl)."""

load("//python/private:py_wheel.bzl", _py_wheel = "py_wheel")

py_wheel = _py_wheel
