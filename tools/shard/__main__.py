import sys

from testing.base.environment import require

require("python3 -m tools.shard", ("ruamel", "pydantic"))  # before the imports that need them

from tools.shard.cli import main  # noqa: E402

sys.exit(main())
