"""Generate (or check) the JSON Schema of the config format from the pydantic model.

python -m testing.config.schema            # print
python -m testing.config.schema --write    # update configs/schema/test_suite_config.schema.json

"""

from __future__ import annotations

import json
import os
import sys

from testing.base.cliargs import Parser
from testing.base.command import command
from testing.config.models import ConfigDocument

SCHEMA_PATH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "configs",
    "schema",
    "test_suite_config.schema.json",
)


def render() -> str:
    schema = ConfigDocument.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "test_suite_config"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


@command("schema")
def main(argv: list[str]) -> int:
    parser = Parser(prog="schema", description="the JSON schema of a test-suite config, on stdout")
    parser.add_argument("--write", action="store_true", help=f"write it to {SCHEMA_PATH} instead")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        from testing.base.atomic import write_text

        write_text(SCHEMA_PATH, text)
        print(f"wrote {SCHEMA_PATH}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
