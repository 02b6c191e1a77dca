"""Runs README commands as written, each in a scratch clone's root, and checks them.

    tools/bazel test //tools/ci:doc_commands_test                 # the check + the fast ones (in //...)
    tools/bazel run //tools/ci:doc_commands -- --manual           # the manual ones (nested Bazel, network)
    tools/bazel run //tools/ci:doc_commands -- --list             # every command and how it is checked
    tools/bazel run //tools/ci:doc_commands -- --missing          # entries to complete for new commands
    tools/bazel run //tools/ci:doc_commands -- --manual --only 'backend:demo'

Under `bazel run` the clone is made from the checkout you ran it in (BUILD_WORKSPACE_DIRECTORY):
its tracked and unignored files as they are now, committed into a new git repository, plus
your user.bazelrc (gitignored, your machine's Bazel settings). In the test, from the
runfiles tree. One new HOME per run (as one newcomer: one nested Bazel server, shut down at
the end); `env: venv` adds the documented Python
environment (README.md, "Outside Bazel"): a venv holding the pinned packages and the
backend wheel, first on PATH.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from testing.base.cliargs import Parser, workspace_dir
from testing.base.command import command
from testing.supervisor.children import stop_group
from testing.tests.clean_venv import bare_venv
from tools.ci.readme_commands import extract, figures, manifest, quoted
from tools.ci.readme_commands.manifest import Entry

TAIL = 40  # output lines shown for a failed command
INTERRUPT_GRACE = 60.0  # seconds a timed-out command gets to end after SIGINT


@dataclass(frozen=True)
class Outcome:
    where: str
    command: str
    ok: bool
    detail: str  # "ok (N s)", or why it failed and the output's tail
    seconds: float
    output: str = ""  # all it printed (--show prints it: a benchmark's figures)


class Venv:
    """The documented Python environment, made once per run: pinned packages via a .pth
    (the same pins as third_party/requirements_lock.txt) and the backend wheel installed."""

    def __init__(self, root: Path, wheels: list[Path]) -> None:
        self.root = root
        self.wheels = wheels
        self._made = False

    def bin(self) -> Path:
        if not self._made:
            self._make()
        return self.root / "bin"

    def _make(self) -> None:
        _, site = bare_venv(self.root)
        for wheel in self.wheels:
            shutil.unpack_archive(str(wheel), site, format="zip")
        self._made = True


def clone_from_runfiles(dest: Path) -> Path:
    """The test's scratch clone: its runfiles tree, symlinks resolved, as a git repository."""
    src = Path(os.environ["TEST_SRCDIR"], os.environ.get("TEST_WORKSPACE", ""))
    shutil.copytree(src, dest, symlinks=False, ignore=shutil.ignore_patterns("*.runfiles*", "__pycache__"))
    return _commit(dest)


def clone_from_checkout(ws: Path, dest: Path) -> Path:
    """The manual run's scratch clone: the checkout's tracked and unignored files as they are."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ws,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for name in filter(None, listed.split("\0")):
        src = ws / name
        if src.is_file() or src.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name, follow_symlinks=False)
    if (ws / "user.bazelrc").is_file():
        shutil.copy2(ws / "user.bazelrc", dest / "user.bazelrc")
    return _commit(dest)


def _commit(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    git = [
        "git",
        "-c",
        "user.name=doc-commands",
        "-c",
        "user.email=doc@commands",
        "-c",
        "init.defaultBranch=main",
    ]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "scratch clone", "--no-verify"]):
        subprocess.run(git + args, cwd=dest, check=True, capture_output=True)
    return dest


def run_one(command: extract.Command, entry: Entry, clone: Path, home: Path, venv: Venv | None) -> Outcome:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BUILD_", "TEST_", "RUNFILES", "PYTHON"))}
    env.update(HOME=str(home), PWD=str(clone))
    if entry.env == "venv":
        assert venv is not None
        env["PATH"] = f"{venv.bin()}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(venv.root)
    script = f"{entry.setup}\n{command.text}" if entry.setup else command.text
    if entry.check:
        script += f"\nstatus=$?\n{entry.check}\nexit $status"
    before = tree_state(clone)
    start = time.monotonic()
    try:
        status, output = (_serve if entry.serves else _run)(script, entry, clone, env)
    finally:
        if entry.teardown:
            subprocess.run(
                ["bash", "-c", entry.teardown], cwd=clone, env=env, capture_output=True, timeout=120
            )
    left = () if entry.edits else tuple(sorted(tree_state(clone) - before))
    return _judge(command, entry, status, output, time.monotonic() - start, left)


def tree_state(clone: Path) -> set[str]:
    """`git status` of the clone, one entry per changed or unignored new file."""
    listed = subprocess.run(
        ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"],
        cwd=clone,
        capture_output=True,
        text=True,
    )
    return set(filter(None, listed.stdout.split("\0"))) if listed.returncode == 0 else set()


def _start(script: str, clone: Path, env: dict) -> subprocess.Popen:
    """bash running `script` in its own session: stopping it stops the whole group (a bazel
    client, a server it started), output and errors in one stream."""
    return subprocess.Popen(
        ["bash", "-c", script],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _run(script: str, entry: Entry, clone: Path, env: dict) -> tuple[int | None, str]:
    proc = _start(script, clone, env)
    try:
        output, _ = proc.communicate(timeout=entry.timeout)
    except subprocess.TimeoutExpired:
        # Interrupt first, as Ctrl-C would: a bazel client then cancels its command on the
        # server (a daemon outside this group), which a SIGKILL of the client would leave
        # running, and the next command would wait on it.
        stop_group(proc, INTERRUPT_GRACE, first=signal.SIGINT)
        output, _ = proc.communicate()
        return None, output
    return proc.returncode, output


def _serve(script: str, entry: Entry, clone: Path, env: dict) -> tuple[int | None, str]:
    """A server: read its output until the expected line, then stop its process group."""
    proc = _start(script, clone, env)
    lines: list[str] = []
    timer = threading.Timer(entry.timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    try:
        for line in proc.stdout:
            lines.append(line)
            if entry.expect in line:
                return entry.exit, "".join(lines)  # it serves: what it printed is the check
        return proc.wait(), "".join(lines)  # it ended on its own: a failure unless expected
    finally:
        timer.cancel()
        stop_group(proc, grace=30)


def _judge(
    command, entry: Entry, status: int | None, output: str, seconds: float, left: tuple[str, ...] = ()
) -> Outcome:
    if status is None:
        why = f"timed out after {entry.timeout:.0f} s"
    elif status != entry.exit:
        why = f"exit {status}, expected {entry.exit}"
    elif not any(entry.expect in line for line in output.splitlines()):
        why = f"no output line contains {entry.expect!r}"
    elif left:
        names = ", ".join(x[3:] for x in left[:5])
        why = f"left the checkout changed ({names}): outputs belong under out/ or outside the tree"
    else:
        return Outcome(command.where, command.key, True, f"ok ({seconds:.1f} s)", seconds, output)
    tail = "\n    ".join(output.splitlines()[-TAIL:])
    return Outcome(command.where, command.key, False, f"{why}; output tail:\n    {tail}", seconds, output)


def check(root: Path) -> tuple[list[str], manifest.Coverage]:
    """The cheap part: every README command has an entry, every entry a command, every
    quoted output is checked by a test or marked an example (quoted.py), and every figure
    the tree decides is the tree's (figures.py)."""
    entries = manifest.load(root / manifest.MANIFEST)
    coverage = manifest.cover(extract.commands(root), entries)
    documents = extract.documents(root)
    found = manifest.problems(coverage) + quoted.problems(root, documents)
    return found + figures.problems(root) + figures.undated(root, documents), coverage


def run_selected(
    coverage: manifest.Coverage,
    kind: str,
    clone: Path,
    scratch: Path,
    only: list[str] | None,
    wheels: list[Path],
    venv: Venv | None = None,
    show: bool = False,
) -> list[Outcome]:
    """Every command of `kind` (once per distinct command), in README order, in one clone
    and one new HOME (as one newcomer would run them: one Bazel server for all)."""
    venv = venv or Venv(scratch / "venv", wheels)
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    outcomes, seen = [], set()
    try:
        for command, entry in coverage.matched:
            if entry.run != kind or command.key in seen or (only and not any(o in command.key for o in only)):
                continue
            seen.add(command.key)
            outcome = run_one(command, entry, clone, home, venv)
            print(result_line(outcome, os.getloadavg()[0]), flush=True)
            if not outcome.ok:
                print(f"  {outcome.detail}", flush=True)
            elif show:
                print("".join(f"    {line}\n" for line in outcome.output.splitlines()), end="", flush=True)
            outcomes.append(outcome)
    finally:
        if any(c.key.count("tools/bazel") for c, e in coverage.matched if e.run == kind):
            # the nested Bazel server of this HOME would outlive the scratch clone
            subprocess.run(
                ["bash", "-c", "tools/bazel shutdown"],
                cwd=clone,
                env=dict(os.environ, HOME=str(home)),
                capture_output=True,
                timeout=300,
            )
    return outcomes


def result_line(outcome: Outcome, load: float) -> str:
    """`PASS (83 s, load 7.9) README.md:99: command`: the closing note's table needs how long
    each manual command took and how busy the machine was when it ended."""
    verdict = "PASS" if outcome.ok else "FAIL"
    return f"{verdict} ({outcome.seconds:.0f} s, load {load:.1f}) {outcome.where}: {outcome.command}"


def listing(coverage: manifest.Coverage) -> str:
    rows = [
        f"{e.run:8} {c.where}: {c.key}" + (f"\n         why: {e.reason}" if e.reason else "")
        for c, e in coverage.matched
    ]
    kinds = [e.run for e in {e.key: e for _, e in coverage.matched}.values()]
    counts = ", ".join(f"{kinds.count(k)} {k}" for k in ("fast", "manual", "example", "tested"))
    return "\n".join(rows) + f"\n{len(kinds)} distinct commands: {counts}"


@command("doc_commands", {manifest.ManifestError: 2}, prefix="doc_commands: ")
def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="doc_commands", description=__doc__.split("\n\n")[0])
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--manual", action="store_true", help="run the manual commands (nested Bazel, network)")
    mode.add_argument("--fast", action="store_true", help="run the fast commands (what the test runs)")
    mode.add_argument("--list", action="store_true", help="print every command and how it is checked")
    mode.add_argument(
        "--missing", action="store_true", help="print a YAML entry to complete for each command without one"
    )
    p.add_argument(
        "--only", metavar="TEXT", action="append", help="only commands containing TEXT (repeatable)"
    )
    p.add_argument("--keep", action="store_true", help="keep the scratch clone (its path is printed)")
    p.add_argument("--show", action="store_true", help="print what each passing command printed (figures)")
    args = p.parse_args(argv)
    root = workspace_dir()
    found, coverage = check(root)
    for line in found:
        print(line, file=sys.stderr)
    if args.list:
        print(listing(coverage))
        return 1 if found else 0
    if args.missing:
        print("".join(manifest.stub(c) for c in coverage.missing), end="")
        return 0
    if found or not (args.manual or args.fast):
        return 1 if found else 0
    scratch = Path(tempfile.mkdtemp(prefix="doc-commands-"))
    try:
        clone = clone_from_checkout(root, scratch / "clone")
        outcomes = run_selected(
            coverage, "manual" if args.manual else "fast", clone, scratch, args.only, wheels(), show=args.show
        )
    finally:
        if args.keep:
            print(f"scratch clone kept: {scratch / 'clone'}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    failed = [o for o in outcomes if not o.ok]
    print(f"{len(outcomes) - len(failed)} of {len(outcomes)} commands ran as documented")
    return 1 if failed else 0


def wheels() -> list[Path]:
    """The backend wheel from the runfiles (DOC_WHEELS: runfiles-relative paths; a `bazel run`
    program and a test both start in their runfiles' workspace directory)."""
    return [Path(p).resolve() for p in os.environ.get("DOC_WHEELS", "").split()]


if __name__ == "__main__":
    sys.exit(main())
