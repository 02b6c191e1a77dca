"""Test targets implied by configs/: generated, do not edit.

Regenerate: python3 -m testing.targets.generate (checked by //testing/targets:generated_test).
"""

CONFIGS = {}

OPS = {}

DTYPES = {}
