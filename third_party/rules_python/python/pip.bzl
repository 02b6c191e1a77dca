"""Public entry point for pip dependencies (stand-in for @rules_python//python:pip.bzl).

`pip_parse(name, requirements_lock)` materialises a hash-pinned lock as one external
repository; `load("@<name>//:requirements.bzl", "requirement")` names its packages.
"""

load("//python/private:pip_repository.bzl", _pip_repository = "pip_repository")

def pip_parse(name, requirements_lock, python_interpreter = "python3.11", **kwargs):
    """Declare the repository `@<name>` holding every package of `requirements_lock`.

    Args:
      name: repository name, e.g. "pydeps".
      requirements_lock: label of a `pip-compile --generate-hashes` style lock file.
      python_interpreter: host interpreter looked up on PATH at fetch time.
      **kwargs: passed to the repository rule (e.g. timeout).
    """
    _pip_repository(
        name = name,
        requirements_lock = requirements_lock,
        python_interpreter = python_interpreter,
        **kwargs
    )
