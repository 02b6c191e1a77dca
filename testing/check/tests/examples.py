"""What the check's tests share: issue 28's example configs, a plugin run, the check CLI."""

import os
import subprocess
import sys
from pathlib import Path

from testing.check import cli
from testing.config.runs import PLUGIN, PytestCommand

REPO = Path(__file__).resolve().parents[3]
TYPO_LINE = 7  # configs/cpu/smoke.yaml's supported_dtypes, with float16 misspelt


def typo_config(directory: Path) -> Path:
    smoke = (REPO / "configs/cpu/smoke.yaml").read_text()
    assert smoke.splitlines()[TYPO_LINE - 1].strip().startswith("supported_dtypes: [float32, float16,")
    path = directory / "cpu" / "smoke.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(smoke.replace("float32, float16,", "float32, flaot16,"))
    return path


LACKS = """\
test_suite_config:
  files:
    - path: ${REPO_ROOT}/testing/suites/test_op_consistency.py
      tests:
        - names: TestOpConsistency::test_matches_cpu
          ops: [atan2]
"""


def run_plugin(configs: list, *args: str, paths=("testing/suites/test_tensor_basics.py",)):
    cmd = PytestCommand(
        paths=paths, plugins=[PLUGIN], configs=[str(c) for c in configs], extra=args, cache=False
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO)] + sys.path))
    return subprocess.run(cmd.argv(), cwd=REPO, env=env, capture_output=True, text=True)


def check(capsys, *args: str) -> tuple[int, list[str], list[str]]:
    """The check CLI in process: (exit code, stdout lines, stderr lines without progress)."""
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out.splitlines(), [x for x in err.splitlines() if not x.startswith("check: [")]
