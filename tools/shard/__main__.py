import sys

from tools.shard.cli import main

sys.exit(main())
