"""The checked-in JSON Schema matches the pydantic model, and validates the shipped configs."""

import glob
import json
import os

import jsonschema
from ruamel.yaml import YAML

from testing.config import schema


def test_checked_in_schema_is_current():
    with open(schema.SCHEMA_PATH, encoding="utf-8") as f:
        assert f.read() == schema.render(), "stale: run `python -m testing.config.schema --write`"


def test_shipped_configs_validate_against_schema():
    configs = glob.glob(
        os.path.join(os.path.dirname(os.path.dirname(schema.SCHEMA_PATH)), "**", "*.yaml"), recursive=True
    )
    assert configs
    validator = jsonschema.Draft202012Validator(json.loads(schema.render()))
    for path in configs:
        with open(path, encoding="utf-8") as f:
            validator.validate(YAML(typ="safe").load(f))


def test_schema_rejects_unknown_key():
    validator = jsonschema.Draft202012Validator(json.loads(schema.render()))
    errors = list(validator.iter_errors({"test_suite_config": {"bogus": 1}}))
    assert errors
