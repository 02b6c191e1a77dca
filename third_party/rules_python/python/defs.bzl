"""Public entry point for the Python rules (stand-in for @rules_python//python:defs.bzl).

Bazel 4.2.3 still ships the Python rules natively, so these forward to them; BUILD files
load them from here so that swapping in the real rules_python changes no BUILD file.
"""

load("@bazel_tools//tools/python:toolchain.bzl", _py_runtime_pair = "py_runtime_pair")

def py_library(**attrs):
    native.py_library(**attrs)

def py_binary(**attrs):
    native.py_binary(**attrs)

def py_test(**attrs):
    native.py_test(**attrs)

def py_runtime(**attrs):
    native.py_runtime(**attrs)

def py_runtime_pair(**attrs):
    _py_runtime_pair(**attrs)
