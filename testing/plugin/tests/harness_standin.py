"""A STAND-IN for upstream's capability gating, written for this project to its documented
contract (no upstream code): neither pinned wheel (2.13.0, 2.14.1) has the API, so tests and
the generated local upstream add this to torch's ``common_device_type`` namespace.

The contract, as pytorch main and the PRs in review describe it (downstream-practice.md §3):

* ``Capability``: a namespace of ``"<category>.<name>"`` strings in inner classes
  (``Capability.dtype.fp8 == "dtype.fp8"``);
* a device test base's ``_capabilities()`` classmethod: capability -> predicate (a callable
  answering True/False);
* ``@requires_capabilities(*caps)``: a capability the running class does not declare fails
  the test (``AssertionError``, checked first); one declared but answered False skips it
  (``unittest.SkipTest``);
* two registration forms for out-of-tree backends: ``register_privateuse1_capabilities(provider)``
  (``provider()`` returns such a map; ``PrivateUse1TestBase._capabilities()`` merges every
  registered one), the newer one in review; or overriding ``PrivateUse1TestBase._capabilities``.

``add_to(namespace, form)`` puts the API into a module's namespace: ``form`` is ``"register"``
(both: the registration function and the merging ``_capabilities``) or ``"override"`` (only
``_capabilities``, answering nothing: a backend overrides it). Loaded as a pytest plugin
(``-p testing.plugin.tests.harness_standin`` with ``OOT_STANDIN_FORM`` set, and the backend to
import first in ``OOT_STANDIN_BACKEND``), it adds the API to torch's real module before any
test file imports it; ``OOT_STANDIN_RESHAPE=1`` changes a piece the patch adapter wraps (reshape).
"""

from __future__ import annotations

import functools
import importlib
import os
import unittest


def add_to(ns: dict, form: str) -> None:
    if form not in ("register", "override"):
        raise ValueError(f"stand-in form {form!r}: register or override")

    class Capability:
        class dtype:
            fp8 = "dtype.fp8"
            bf16 = "dtype.bf16"

        class attention:
            flash_attention = "attention.flash_attention"
            mem_efficient_attention = "attention.mem_efficient_attention"

        class distributed:
            backend = "distributed.backend"

    def requires_capabilities(*caps):
        def decorate(fn):
            @functools.wraps(fn)
            def gated(self, *args, **kwargs):
                declared = type(self)._capabilities()
                missing = [c for c in caps if c not in declared]
                if missing:
                    raise AssertionError(
                        f"{type(self).__name__} does not declare capability {', '.join(missing)}"
                    )
                lacking = [c for c in caps if not declared[c]()]
                if lacking:
                    raise unittest.SkipTest(f"device lacks capability {', '.join(lacking)}")
                return fn(self, *args, **kwargs)

            return gated

        return decorate

    ns["Capability"] = Capability
    ns["requires_capabilities"] = requires_capabilities
    ns["DeviceTypeTestBase"]._capabilities = classmethod(lambda cls: {})
    if form == "override":
        ns["PrivateUse1TestBase"]._capabilities = classmethod(lambda cls: {})
        return
    providers: list = []

    def register_privateuse1_capabilities(provider) -> None:
        providers.append(provider)

    def merged(cls) -> dict:
        out: dict = {}
        for provider in providers:
            out.update(provider())
        return out

    ns["_PRIVATEUSE1_CAPABILITY_PROVIDERS"] = providers
    ns["register_privateuse1_capabilities"] = register_privateuse1_capabilities
    ns["PrivateUse1TestBase"]._capabilities = classmethod(merged)


def reshape(ns: dict) -> None:
    """A harness whose ``instantiate_test`` changed shape (keywords passed through, no
    ``generic_cls`` of its own), as upstream's refactors do: it still works, but the patch
    adapter no longer recognises it."""
    base = ns["DeviceTypeTestBase"]
    original = base.__dict__["instantiate_test"].__func__

    def instantiate_test(cls, name, test, **kwargs):
        return original(cls, name, test, **kwargs)

    base.instantiate_test = classmethod(instantiate_test)


def _as_plugin() -> None:
    """Loaded with -p: the API is in torch's module before the adaptation plugin configures (it
    looks for the API once the module has loaded), after the backend that registers the device."""
    form, reshaped = os.environ.get("OOT_STANDIN_FORM"), os.environ.get("OOT_STANDIN_RESHAPE")
    if not (form or reshaped):
        return
    backend = os.environ.get("OOT_STANDIN_BACKEND")
    if backend:
        importlib.import_module(backend)
    from torch.testing._internal import common_device_type

    if form:
        add_to(vars(common_device_type), form)
    if reshaped:
        reshape(vars(common_device_type))


_as_plugin()
