"""The native adapter: a loaded config compiled to torch's own test-reuse API.

torch 2.13.0 ships ``set_test_configs(op_allowlist, op_overrides, test_exclusions)``
on the device test bases and the ``bypass_device_restrictions`` class attribute
(torch/testing/_internal/common_device_type.py). Where a config rule can be said
that way it is; our patches (testing/plugin/instantiate.py) add only what the API
cannot say. Modules:

* ``choice.py``  — ``adapter: auto | native | patch`` and the one line that says which ran;
* ``compile.py`` — pure: plan + support -> ``NativePlan`` (the settings) and one
  ``Applied`` row per config rule (native or patched, and why);
* ``runtime.py`` — the torch glue: feature detection, DecorateInfos, set_test_configs;
* ``export.py``  — ``python -m testing.plugin.native.export``: the natively
  expressible part of a config as a standalone module;
* ``xfail.py``   — a pytest plugin: a native xfail_strict that passed, said the patch
  adapter's way.

The seam the patches ask (``Generation``; ``runtime.NativeRuntime`` is its native way):
testing/plugin/adapters.py.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""
