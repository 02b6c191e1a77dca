"""Command line: ``select <stage> ...`` for the four stages, the delta and queries.

Under ``bazel run`` paths the user types are read where they stand (BUILD_WORKING_DIRECTORY);
the default repository root is the workspace (testing/base/cliargs.py).
Every user error is one line on stderr and exit code 2; nothing is half-written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from testing.base import flags
from testing.base.cachedir import user_cache
from testing.base.cliargs import Parser, user_path, workspace_dir
from testing.base.command import command
from testing.base.errors import ConfigError
from tools.errors import SelectError

DEFAULT_SCOPE_FEATURES = "autograd,compile,distributed,sparse,quantized,jit,complex,cuda_specific"


def workspace() -> Path:
    return workspace_dir()


def resolve(path: str | None) -> Path | None:
    return None if path is None else user_path(path)


def default_db() -> str:
    base = user_cache(os.environ)
    return str(base / "select" / "memory.db") if base else ".select-memory.db"


# ------------------------------------------------------------------ shared loaders


def _roots(args) -> list:
    from tools.select.memory.memory import SourceRoot

    roots = [SourceRoot("${REPO_ROOT}", resolve(args.repo_root) or workspace(), args.suites)]
    if args.upstream_root:
        upstream = resolve(args.upstream_root)
        if not (upstream / "test").is_dir():
            raise SelectError(f"--upstream-root {upstream}: no test/ directory (expected a PyTorch checkout)")
        roots.append(SourceRoot("${TORCH_ROOT}", upstream, "test/**/test_*.py"))
    return roots


def _caps(args):
    from tools.select.common import capabilities

    return capabilities.load(args.capabilities)


def _base_config(p) -> None:
    p.add_argument(
        "--base-config",
        action="append",
        default=[],
        metavar="YAML",
        help="config the generated one will run with, e.g. configs/spyre/device.yaml (repeatable): "
        "its supported ops/dtypes decide what the plugin generates",
    )


def _view(args, caps):
    """What the plugin generates on the device: its table, narrowed by any --base-config."""
    from tools.select.bucket import generation

    return generation.device_view(caps, [resolve(c) for c in args.base_config])


def _scope_out(args, caps) -> dict[str, str]:
    from tools.select.scope import scope

    spec = scope.load_scope(resolve(args.scope)) if args.scope else scope.ScopeSpec()
    return scope.out_features(spec, caps)


def _classes(args):
    if not getattr(args, "scope_record", None):
        return None
    from testing.config.load import read_yaml
    from tools.select.scope import scope

    return scope.chosen_classes(read_yaml(resolve(args.scope_record))[0])


def _engine(args):
    if args.engine == "llm":
        if not args.llm_url or not args.llm_model:
            raise SelectError("--engine llm needs --llm-url and --llm-model")
        from tools.select.bucket.llm import LLMEngine

        return LLMEngine(args.llm_url, args.llm_model, args.llm_key_env)
    from tools.select.bucket.engines import DeterministicEngine

    return DeterministicEngine()


def _memory(args):
    from tools.select.memory.store import Memory

    path = resolve(args.db)
    if args.command != "memory" and not path.exists():
        raise SelectError(f"--db {path}: no memory yet; run `select memory` first")
    return Memory(path)


# ------------------------------------------------------------------ commands


def cmd_scope(args) -> int:
    from testing.config import edit
    from tools.select.scope import scope
    from tools.select.scope.symbols import parse_file

    caps = _caps(args)
    spec = scope.load_scope(resolve(args.scope)) if args.scope else scope.ScopeSpec()
    out = scope.out_features(spec, caps)
    choices = [
        scope.decide_file(parse_file(p, rel), spec, out) for root in _roots(args) for rel, p in root.files()
    ]
    edit.write(resolve(args.out), scope.record(choices, spec, caps, out))
    kept = sum(c.analyse for c in choices)
    print(f"stage 1: {kept} of {len(choices)} files chosen for analysis; record in {args.out}")
    return 0


def _trace_plan(args):
    """What the device needs traced: its table (default backend:torch_spyre; without one, each
    unit is traced at one dtype) and the features out of scope (scope file or stage-1 record)."""
    from tools.select.memory.memory import TracePlan

    caps = None
    try:
        caps = _caps(args)
    except SelectError as exc:
        if args.capabilities:
            raise
        print(f"select: note: {exc}; tracing one dtype per unit", file=sys.stderr)
    out = {}
    if args.scope_record:
        from testing.config.load import read_yaml

        out = dict(read_yaml(resolve(args.scope_record))[0]["selection"].get("features_out") or {})
    elif caps is not None:
        out = _scope_out(args, caps)
    return TracePlan.for_device(caps, out)


def cmd_memory(args) -> int:
    from tools.select.memory.memory import MemoryBuilder

    plan = _trace_plan(args)
    with _memory(args) as memory:
        only = set(_classes(args) or {}) or None
        stats = MemoryBuilder(
            memory,
            trace=not args.no_trace,
            progress=not args.no_progress,
            trace_timeout=args.trace_timeout,
            jobs=args.jobs,
            plan=plan,
            forget=args.forget,
        ).build(_roots(args), only)
        print(f"stage 2: {stats.line()}")
        print("memory: " + ", ".join(f"{k} {v}" for k, v in memory.counts().items()))
    return 0


def keep_previous(path: Path) -> Path:
    """Copy ``path`` to ``<path>.prev`` (atomically) before a command replaces it."""
    from testing.base.atomic import write_bytes

    return write_bytes(path.with_name(path.name + ".prev"), path.read_bytes())


def _replacing(path: Path, allowed: bool) -> None:
    """bucket writes a whole config: over an existing file only when told, keeping the old one."""
    if not path.exists():
        return
    if not allowed:
        lines = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
        raise SelectError(
            f"--out {path} exists ({lines} lines) and bucket would replace it: nothing written, "
            "add --replace to replace it (the old file is kept as .prev)"
        )
    print(f"select: replacing {path}; the previous version is in {keep_previous(path)}", file=sys.stderr)


def cmd_bucket(args) -> int:
    from tools.select.bucket import bucket

    _replacing(resolve(args.out), args.replace)
    caps = _caps(args)
    view = _view(args, caps)
    with _memory(args) as memory:
        units, verdicts = bucket.run(
            memory, caps, _engine(args), _scope_out(args, caps), _classes(args), view
        )
    if not units:
        raise SelectError("the memory holds no test units; run `select memory` over some suites first")
    verdicts, check = bucket.write_checked(
        resolve(args.out), units, verdicts, caps, args.backend, args.engine, view
    )
    for where in check.silent_entries:
        print(
            f"select: warning: {where}: mandatory_success entry selects no test on {caps.device}",
            file=sys.stderr,
        )
    if args.decisions_out:
        bucket.save_decisions(resolve(args.decisions_out), units, verdicts)
    modes = {}
    for v in verdicts.values():
        modes[v.mode] = modes.get(v.mode, 0) + 1
    print(
        f"stage 3: {len(units)} units -> "
        + ", ".join(f"{n} {m}" for m, n in sorted(modes.items()))
        + f"; config {args.out}"
    )
    print(
        f"plugin check: every mandatory_success unit yields a test on {caps.device}"
        + (f" ({len(check.silent_units)} that would not were made skip)" if check.silent_units else "")
    )
    return 0


def cmd_refine(args) -> int:
    from tools.select.refine import refine, results

    cases = []
    for junit in args.junit:
        cases.extend(results.read_junit(resolve(junit)))
    cases = results.enrich_from_logs(cases, [resolve(p) for p in args.log])
    configs = [resolve(c) for c in args.config]
    outcome = refine.refine(configs, cases, source=Path(args.junit[0]).name, max_tolerance=args.max_tolerance)
    kinds = {}
    for p in outcome.proposals:
        kinds[p.mode] = kinds.get(p.mode, 0) + 1
    for diff in outcome.diffs.values():
        sys.stdout.write(diff)
    if args.diff_out:
        from testing.base.atomic import write_text

        write_text(resolve(args.diff_out), "".join(outcome.diffs.values()))
    if args.write:
        for path in outcome.texts:
            keep_previous(Path(path))
        outcome.write()
    failures = sum(c.failure is not None for c in cases)
    print(
        f"stage 4: {len(cases)} results, {failures} failures -> {len(outcome.proposals)} proposals ("
        + ", ".join(f"{n} {m}" for m, n in sorted(kinds.items()))
        + f"), {len(outcome.unmatched)} unmatched"
        + ("; configs written" if args.write else "; review the diff, rerun with --write to apply"),
        file=sys.stderr,
    )
    return 0


def cmd_delta(args) -> int:
    from tools.select.bucket import bucket
    from tools.select.delta import deltarun, wheel

    caps = _caps(args)
    new_internal = (
        resolve(args.new_internal)
        if args.new_internal
        else wheel.internal_for(args.version, resolve(args.wheel_cache) if args.wheel_cache else None)
    )
    prior = bucket.load_decisions(resolve(args.prior))[0] if args.prior else None
    with _memory(args) as memory:
        result = deltarun.run(
            memory,
            caps,
            _engine(args),
            _scope_out(args, caps),
            new_internal,
            args.version,
            prior,
            _classes(args),
            view=_view(args, caps),
        )
    print(result.report())
    if args.out:
        units = [u for u in result.delta_units]
        bucket.write_config(
            resolve(args.out),
            units,
            {u.unit_id: result.verdicts[u.unit_id] for u in units},
            caps,
            args.backend,
            args.engine,
            header=f"Delta {args.version}: only re-evaluated units.",
        )
    if args.decisions_out:
        from testing.base.atomic import write_text

        write_text(
            resolve(args.decisions_out),
            json.dumps(
                {
                    uid: {"mode": v.mode, "why": result.plan.affected.get(uid, "unchanged")}
                    for uid, v in sorted(result.verdicts.items())
                },
                indent=1,
            )
            + "\n",
        )
    return 1 if result.unchanged_mismatch else 0


def cmd_query(args) -> int:
    with _memory(args) as memory:
        users = memory.tests_using(args.op)
        if not users:
            ops = memory.counts()["op_index"]
            print(
                f"select: {args.op}: no traced test runs this op ({ops} op uses indexed; "
                "spell it add, add.Tensor or aten::add)",
                file=sys.stderr,
            )
            return 1
        for test_id, variant in users:
            print(f"{test_id}[{variant}]" if variant else test_id)
    return 0


# ------------------------------------------------------------------ parser


def _common(p: argparse.ArgumentParser, db=True, caps=False, roots=False, engine=False) -> None:
    if db:
        p.add_argument("--db", default=default_db(), help="SQLite memory file (default: %(default)s)")
    if caps:
        p.add_argument(
            "--capabilities",
            metavar="SRC",
            help="capability table: a JSON/YAML file, or backend:MODULE (default: backend:torch_spyre)",
        )
        p.add_argument("--scope", metavar="YAML", help="scope file with features in/out (see README)")
        p.add_argument(
            "--scope-record", metavar="YAML", help="stage-1 record: restrict to its chosen classes"
        )
    if roots:
        p.add_argument("--repo-root", metavar="DIR", help="repository root (default: the workspace)")
        p.add_argument(
            "--suites",
            default="testing/suites/test_*.py",
            help="glob of in-tree suites (default: %(default)s)",
        )
        flags.upstream_root(p, help="a PyTorch checkout whose test/ is indexed too")
    if engine:
        p.add_argument(
            "--engine",
            choices=("deterministic", "llm"),
            default="deterministic",
            help="decision engine for ties (default: %(default)s)",
        )
        p.add_argument("--llm-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
        p.add_argument("--llm-model", help="model name sent to the endpoint")
        p.add_argument(
            "--llm-key-env", default="OPENAI_API_KEY", help="env var holding the API key (optional)"
        )
        p.add_argument(
            "--backend",
            default="torch_spyre",
            help="backend module written into the config (default: %(default)s)",
        )


def parser() -> argparse.ArgumentParser:
    top = Parser(
        prog="select",
        description="Test selection for a privateuse1 backend: "
        "scope -> memory -> bucket -> refine, plus the delta between PyTorch versions.",
    )
    sub = top.add_subparsers(dest="command", required=True, metavar="STAGE")

    p = sub.add_parser("scope", help="stage 1: choose files and classes from capabilities + scope file")
    _common(p, db=False, caps=True, roots=True)
    p.add_argument("--out", required=True, help="where to write the stage-1 record (YAML)")
    p.set_defaults(func=cmd_scope)

    p = sub.add_parser("memory", help="stage 2: build/update the repository memory (incremental)")
    _common(p, roots=True)
    p.add_argument(
        "--scope-record",
        metavar="YAML",
        help="index only the files a stage-1 record chose; its out-of-scope features are not traced",
    )
    p.add_argument(
        "--capabilities",
        metavar="SRC",
        help="device table: units are traced at every dtype the device runs them in "
        "(default: backend:torch_spyre when importable, else one dtype per unit)",
    )
    p.add_argument(
        "--scope", metavar="YAML", help="scope file: tests using out-of-scope features are not traced"
    )
    p.add_argument(
        "--no-trace", action="store_true", help="skip the traced CPU execution (symbols+embeddings only)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument(
        "--trace-timeout", type=float, default=60.0, help="seconds per traced test (default: %(default)s)"
    )
    p.add_argument(
        "--jobs", type=int, default=2, help="parallel trace workers per file (default: %(default)s)"
    )
    p.add_argument(
        "--forget",
        action="store_true",
        help="drop the files this run does not cover (refused without it; the old memory is kept as .prev)",
    )
    p.set_defaults(func=cmd_memory)

    p = sub.add_parser("bucket", help="stage 3: bucket every unit, write a config with rationale comments")
    _common(p, caps=True, engine=True)
    p.add_argument("--out", required=True, help="config YAML to write")
    p.add_argument("--replace", action="store_true", help="replace an existing --out (kept as .prev)")
    p.add_argument(
        "--decisions-out", metavar="JSON", help="also write the decisions (input for `delta --prior`)"
    )
    _base_config(p)
    p.set_defaults(func=cmd_bucket)

    p = sub.add_parser("refine", help="stage 4: propose config changes from a run's JUnit XML and logs")
    p.add_argument("--config", action="append", required=True, help="config YAML (repeatable)")
    p.add_argument("--junit", action="append", required=True, help="JUnit XML of the run (repeatable)")
    p.add_argument(
        "--log", action="append", default=[], help="run log to mine for failure details (repeatable)"
    )
    p.add_argument(
        "--max-tolerance", type=float, default=0.1, help="largest atol/rtol proposed (default: %(default)s)"
    )
    p.add_argument("--diff-out", help="also write the unified diff here")
    p.add_argument("--write", action="store_true", help="apply the changes to the configs")
    p.set_defaults(func=cmd_refine)

    p = sub.add_parser("delta", help="re-evaluate only what changed between the installed torch and VERSION")
    _common(p, caps=True, engine=True)
    p.add_argument("--version", default="2.14.1", help="the newer torch (default: %(default)s)")
    p.add_argument(
        "--wheel-cache", help="where the wheel is cached (default: $XDG_CACHE_HOME/oot-ci/torch-wheels)"
    )
    p.add_argument("--new-internal", help="an extracted torch/testing/_internal of VERSION (skips the wheel)")
    p.add_argument("--prior", help="decisions JSON of the current version (default: decide now)")
    p.add_argument("--out", help="config YAML holding only the re-evaluated units")
    p.add_argument("--decisions-out", help="merged decisions JSON")
    _base_config(p)
    p.set_defaults(func=cmd_delta)

    from tools.select.changes.cmd import add_parser as add_changemap

    add_changemap(sub)

    p = sub.add_parser("query", help="reverse index: tests that run an aten op")
    _common(p)
    p.add_argument("op", help="aten op, e.g. add, add.Tensor or aten::mm")
    p.set_defaults(func=cmd_query)
    return top


# ConfigError: a YAML file read through testing.config. `select query ... | head`: the reader
# left; the runner says nothing and exits 141.
@command("select", {(SelectError, ConfigError): 2})
def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
