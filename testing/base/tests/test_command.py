"""The command runner: a known error is one line and its status, Ctrl-C and a closed pipe end quietly."""

from __future__ import annotations

import pytest

from testing.base import flags
from testing.base.cliargs import Parser
from testing.base.command import EXIT_INTERRUPTED, command
from testing.base.errors import ConfigError, Loc, OotError


class Rejected(OotError):
    pass


def test_a_known_error_is_one_line_with_its_status(capsys):
    @command("tool", {Rejected: 3, OotError: 2})
    def main(argv=None):
        raise Rejected("the relay said no")

    assert main() == 3
    assert capsys.readouterr().err == "tool: error: the relay said no\n"


def test_the_first_matching_class_gives_the_status_and_a_prefix_keeps_old_wording(capsys):
    @command("tool", {(KeyError, ConfigError): 4, OotError: 2}, prefix="tool: ")
    def main():
        raise ConfigError(Loc("a.yaml", 3), "global.device", "unknown device")

    assert main() == 4
    assert capsys.readouterr().err == "tool: a.yaml:3: global.device: unknown device\n"


def test_an_unknown_error_keeps_its_traceback():
    @command("tool")
    def main():
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError):
        main()


def test_the_default_mapping_is_the_root_with_the_usage_status(capsys):
    @command("tool")
    def main(argv):
        assert argv == ["x"]
        raise ConfigError("--token-env T:\n variable   is empty")

    assert main(["x"]) == 2
    assert capsys.readouterr().err == "tool: error: --token-env T: variable is empty\n"


def test_ctrl_c_and_a_closed_pipe(capsys):
    @command("tool")
    def interrupted():
        raise KeyboardInterrupt

    @command("tool", broken_pipe=0)
    def reader_left():
        raise BrokenPipeError

    assert interrupted() == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "tool: interrupted\n"
    assert reader_left() == 0


def test_bad_arguments_stay_argparse_exits(capsys):
    @command("tool")
    def main(argv):
        Parser(prog="tool").parse_args(argv)
        return 0

    with pytest.raises(SystemExit) as exit:
        main(["--bogus"])
    assert exit.value.code == 2
    assert capsys.readouterr().err == "tool: error: unknown option --bogus (see --help)\n"


def test_shared_options_are_declared_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUILD_WORKING_DIRECTORY", raising=False)
    p = Parser(prog="tool")
    flags.upstream_checkout(p)
    flags.warehouse(p)
    flags.json_output(p)
    args = p.parse_args(["--upstream-root", "pt", "--extra-configs", "c", "--json", "--warehouse", "w"])
    assert (args.upstream_root, args.extra_configs) == (tmp_path / "pt", [tmp_path / "c"])
    assert (args.suite_sha, args.json, args.warehouse) == (None, True, "w")


def test_a_config_error_is_one_of_the_root_and_a_value_error():
    err = ConfigError(Loc("a.yaml", 0), "", "cannot read config: No such file")
    assert isinstance(err, OotError) and isinstance(err, ValueError)
    assert (str(err), err.loc, err.key) == (
        "a.yaml:0: cannot read config: No such file",
        Loc("a.yaml", 0),
        "",
    )
    assert ConfigError("x" * 400).args[0].endswith("...") and len(str(ConfigError("x" * 400))) == 300


def test_a_mistyped_option_is_named_with_the_closest_one(capsys):
    # argparse blamed the value after it: `--evnt e.json` read as an invalid choice 'e.json'
    p = Parser(prog="tool")
    p.add_argument("mode", nargs="?", choices=("cycle", "plan"))
    p.add_argument("--event")
    sub = Parser(prog="tool").add_subparsers(dest="cmd")
    sub.add_parser("plan").add_argument("--shards")
    for parser, argv, line in (
        (p, ["--evnt", "e.json", "plan"], "unknown option --evnt (closest: --event)"),
        (p, ["--eve", "e.json", "cycle"], None),  # a prefix argparse expands is no typo
        (sub._name_parser_map["plan"], ["--shrds", "2"], "unknown option --shrds (closest: --shards)"),
    ):
        if line is None:
            assert parser.parse_args(argv).event == "e.json"
            continue
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
        assert (
            capsys.readouterr().err
            == f"tool{' plan' if parser is not p else ''}: error: {line} (see --help)\n"
        )
