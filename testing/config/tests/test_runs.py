import sys

from testing.config import runs


def test_a_pytest_command_spells_every_option_once_and_keeps_the_callers_order():
    argv = runs.PytestCommand(
        paths=["testing/suites"],
        plugins=[runs.PLUGIN],
        configs=["configs/spyre/device.yaml", "configs/spyre/nn.yaml"],
        args=["-p", "mine"],
        extra=["-x"],
        quiet=True,
        cache=False,
        upstream_root="/src/pytorch",
        junitxml="j.xml",
        shard=(1, 4),
        markexpr="op__add",
    ).argv()
    assert argv[:5] == [sys.executable, "-m", "pytest", "-p", "mine"]  # the caller's own first
    assert argv[-2:] == ["-x", "testing/suites"]
    configs = [argv[i + 1] for i, a in enumerate(argv) if a == "--config"]
    assert configs == ["configs/spyre/device.yaml", "configs/spyre/nn.yaml"]  # merge order kept
    i = argv.index(runs.SHARD_PLUGIN)
    assert argv[i + 1 : i + 5] == ["--shard-index", "1", "--shard-total", "4"]
    assert argv[argv.index("--upstream-root") + 1] == "/src/pytorch" and "no:cacheprovider" in argv
    assert argv[argv.index("-m", 3) + 1] == "op__add" and argv[argv.index("--junitxml") + 1] == "j.xml"


def test_an_empty_command_is_plain_pytest():
    assert runs.PytestCommand(python="py").argv() == ["py", "-m", "pytest"]
