"""Mutation benchmark of change-aware selection (manual: a full suite run per mutant).

    tools/bazel run //tools/bench:select_mutation_bench -- [--mutants 50] [--feature F ...]
    tools/bazel run //tools/bench:select_mutation_bench -- --upstream-root ~/pt --extra-configs ~/cfg

In one run: the change map is built with coverage on and again with it off (the memory build
cost ratio; the coverage-off run also gives every test's unmutated outcome and duration);
then >= 50 mutants of torch/**/*.py functions the suites execute (select_mutants.py) are each
laid over the wheel through the handler's core overlay (crcr/upstream/overlay.py; the
installed wheel is never written) and the whole configured suite runs on each. A mutant is
killed by a selection when it holds a test that passed unmutated and fails (or is not
collected) with the mutant. The selections read their outcomes from that full run (tests are
independent; --verify N re-runs the change-map selection for real through --oot-only on N
killed mutants and checks the verdict is the same). Cost: the selected tests' recorded time
over the suite's (per-leg start-up is not counted). The map's selection is scored with every
reached test (no budget) and under each --budget (a ranked share of each leg's recorded
time: testing/changes/budget.py), all from the same runs. Baselines: the file-name heuristic
(test files named after the changed module) and a random selection of the same cost as the
map's, for the map without a budget and under the first budget.

Legs, by rule: every leg the handler plans for a dispatch, i.e. every feature of configs/
and of the fixture's config directory; with --upstream-root, the legs of --extra-configs
only (the real upstream file is what is measured); --feature narrows either. A leg named by
--shard FEATURE=N is measured on its first of N shards (default: op_consistency, 1 of 4).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from crcr.handler.runner import Upstream
from crcr.upstream.overlay import build_overlay, core_delta, wheel_torch_dir
from testing.base import flags
from testing.base.cliargs import Parser, user_path
from testing.base.command import command
from testing.changes.budget import BudgetError, parse_share
from testing.changes.changemap import ChangeMap, digests, test_file
from testing.changes.decide import select_tests
from testing.changes.only import resolve, write_only
from testing.config.features import discover_features
from tools.bench.select_mutants import Mutant, mutate
from tools.select.changes.build import build, leg_files, leg_of, record_leg, roots_of
from tools.select.changes.cmd import core_versions, fixture_upstream, root_upstream, workspace

DEFAULT_BUDGETS = ("25%", "10%")
# the one leg whose whole run outweighs the others several times over (842 tests, 241 s with
# coverage here, against 13-219 tests and 16-35 s): measured on 1 of 4 duration-balanced
# shards (the handler's own --shards slicing) so that 50 full-suite mutant runs fit an hour
DEFAULT_SHARDS = ("spyre-op_consistency=4",)
PER_TEST_TIMEOUT = ["--oot-timeout", "60"]  # a mutant that hangs fails its test instead


@dataclass
class Outcome:
    mutant: Mutant
    killed: set  # test ids that passed unmutated and fail with the mutant
    selected: set  # every reached test (no budget)
    full: bool
    reason: str
    applied: bool  # every leg imported torch from the mutant's overlay
    budgeted: dict  # budget share -> (selected tests, whether the budget cut a leg)


def budget_share(text: str):
    try:
        return parse_share(text)
    except BudgetError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def shard_spec(text: str) -> tuple[str, int]:
    name, _, n = text.partition("=")
    if not name or not n.isdigit() or int(n) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: FEATURE=N with N >= 1")
    return name, int(n)


def args_parser() -> argparse.ArgumentParser:
    p = Parser(prog="select_mutation_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--mutants", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--feature", action="append", default=[], help="only these legs (default: by rule, above)")
    p.add_argument(
        "--budget",
        action="append",
        type=budget_share,
        default=[],
        help=f"selection budgets scored beside the full selection (default: {' '.join(DEFAULT_BUDGETS).replace('%', '%%')})",
    )
    flags.upstream_checkout(p, configs_help="feature configs naming its files (repeatable)")
    p.add_argument("--verify", type=int, default=3, help="killed mutants re-run through --oot-only")
    p.add_argument("--work", type=user_path, help="keep runs here (default: a temp dir)")
    p.add_argument(
        "--shard",
        action="append",
        default=[],
        type=shard_spec,
        metavar="FEATURE=N",
        help=f"measure FEATURE on shard 1 of N (default: {' '.join(DEFAULT_SHARDS)}; =1: whole)",
    )
    p.add_argument("--jobs", type=int, default=2, help="mutants run side by side")
    p.add_argument("--leg-jobs", type=int, default=2, help="legs of one mutant run side by side")
    return p


def pick_mutants(m: ChangeMap, torch_dir: Path, n: int, rng: random.Random) -> list[Mutant]:
    """Functions some test executes (not only at import), shuffled; one mutant each."""
    fids = [i for i, f in enumerate(m.functions) if f.tested]
    rng.shuffle(fids)
    out: list[Mutant] = []
    for i in fids:
        f = m.functions[i]
        try:
            source = (torch_dir / f.file.removeprefix("torch/")).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        mutant = mutate(f.file, source, f.name, f.start, f.end, rng)
        if mutant:
            out.append(mutant)
        if len(out) == n:
            break
    return out


def overlay_for(mutant: Mutant, torch_dir: Path, work: Path) -> Path:
    root = work / "checkout"
    target = root / mutant.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(mutant.mutated, encoding="utf-8")
    delta = core_delta("0" * 40, "1" * 40, [("M", mutant.path)])
    return build_overlay(torch_dir, root, delta, work / "cache")


def filename_pick(mutant: Mutant, tests: dict) -> set:
    stem = Path(mutant.path).stem.strip("_")
    return {t for t in tests if stem and stem in Path(test_file(t)).stem.removeprefix("test_")}


def equal_cost_pick(cost: float, tests: dict, total: float, rng: random.Random) -> set:
    order = sorted(tests)
    rng.shuffle(order)
    out, spent = set(), 0.0
    for t in order:
        if spent >= cost * total:
            break
        out.add(t)
        spent += tests[t]
    return out


def summarize(name: str, outcomes: list, picks: list, tests: dict, total: float) -> str:
    killed = [(o, p) for o, p in zip(outcomes, picks) if o.killed]
    caught = sum(1 for o, p in killed if o.killed & p)
    costs = [sum(tests[t] for t in p) / total for p in picks]
    killed_costs = [sum(tests[t] for t in p) / total for _, p in killed] or [float("nan")]
    recall = caught / len(killed) if killed else float("nan")
    return (
        f"| {name:<24} | {caught:>3}/{len(killed):<3} | {recall:6.3f} | {statistics.mean(costs):9.3f} "
        f"| {statistics.median(costs):11.3f} | {statistics.mean(killed_costs):18.3f} |"
    )


def progress(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr, flush=True)


@command("select_mutation_bench")
def main(argv=None) -> int:
    args = args_parser().parse_args(argv)
    env = dict(os.environ)
    ws = workspace(env)
    rng = random.Random(args.seed)
    torch_dir = wheel_torch_dir()
    with tempfile.TemporaryDirectory(prefix="mutation-bench-") as tmp:
        work = Path(args.work or tmp)
        if args.upstream_root:
            upstream, extra = (
                root_upstream(Path(args.upstream_root), args.suite_sha),
                [Path(e).resolve() for e in args.extra_configs],
            )
        else:
            upstream, configs = fixture_upstream(work / "state", env)
            extra = [configs]
        in_tree = {f.name for f in discover_features(ws, [])}
        found = discover_features(ws, extra)
        wanted = args.feature or [f.name for f in found if not (args.upstream_root and f.name in in_tree)]
        features = [f for f in found if f.name in wanted]
        budgets = [b for b in args.budget or map(parse_share, DEFAULT_BUDGETS) if b is not None]
        shards = dict(args.shard or ([] if args.upstream_root else map(shard_spec, DEFAULT_SHARDS)))
        legs = [replace(leg_of(f, upstream.sha), shard_total=shards.get(f.name, 1)) for f in features]
        tv, gv = core_versions()
        say = progress
        m, on = build(legs, ws, upstream, work / "on", env, torch_version=tv, git_version=gv, progress=say)
        _, off = build(
            legs,
            ws,
            upstream,
            work / "off",
            env,
            torch_version=tv,
            git_version=gv,
            coverage=False,
            progress=say,
        )
        base = {t: r for run in off for t, r in run.tests.items()}
        tests = {t: float(r["seconds"]) for t, r in base.items()}
        total = sum(tests.values())
        mutants = pick_mutants(m, torch_dir, args.mutants, rng)
        say(f"{len(mutants)} mutants over {len(tests)} tests ({total:.1f} s recorded)")
        run = Runs(legs, ws, upstream, torch_dir, work, env, args.leg_jobs)
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:  # mutants side by side
            outcomes = list(
                pool.map(lambda im: run_mutant(im[0], im[1], m, run, base, budgets), enumerate(mutants))
            )
        verified = verify(outcomes, run, args.verify, say)
        print_report(m, on, off, outcomes, tests, total, budgets, rng, verified, legs)
    return 0


@dataclass
class Runs:
    """What every mutant run shares: the legs, where they run, the wheel it is laid over."""

    legs: list
    ws: Path
    upstream: Upstream
    torch_dir: Path
    work: Path
    env: dict
    leg_jobs: int

    def legs_on(self, overlay: Path, out: Path, selection=None) -> list:
        """Every leg on one core overlay, leg_jobs at a time (a leg is mostly start-up)."""
        up = Upstream(self.upstream.root, self.upstream.sha, overlay, "")
        # a selection names tests of the measured shard already: sliced again it would lose some
        legs = [replace(g, shard_total=1) for g in self.legs] if selection else self.legs
        with ThreadPoolExecutor(max_workers=max(1, self.leg_jobs)) as pool:
            return list(
                pool.map(
                    lambda leg: record_leg(
                        leg,
                        self.ws,
                        up,
                        out / leg.feature,
                        self.env,
                        coverage=False,
                        only=selection,
                        pytest_args=PER_TEST_TIMEOUT,
                    ),
                    legs,
                )
            )


def outcomes_of(runs) -> dict:
    return {t: r for run in runs for t, r in run.tests.items()}


def overlay_applied(runs, overlay: Path) -> bool:
    """Each leg's torch came from the overlay (else a kill count would measure the wheel)."""
    return all(r.torch_dirs and r.torch_dirs[0].startswith(str(overlay)) for r in runs)


def select_all(m: ChangeMap, mutant: Mutant, run: Runs, budget) -> tuple[set, bool, bool, list]:
    """(selected tests over every leg, some leg ran full, the budget cut some leg, lines)."""
    selected, full, cut, lines = set(), False, False, []
    roots = roots_of(run.ws, run.upstream)
    for leg in run.legs:
        cfg, tfs = leg_files(leg, run.ws, run.upstream)
        sel = select_tests(
            m, leg.feature, [mutant.change()], digests(tfs, roots), digests(cfg, roots), budget=budget
        )
        selected |= set(m.features[leg.feature].tests) if sel.full else set(sel.tests)
        full |= sel.full
        cut |= sel.cut is not None
        lines.append(sel.line())
    return selected, full, cut, lines


def run_mutant(i, mutant, m, run: Runs, base, budgets) -> Outcome:
    overlay = overlay_for(mutant, run.torch_dir, run.work / f"m{i}")
    runs = run.legs_on(overlay, run.work / f"m{i}")
    ran, applied = outcomes_of(runs), overlay_applied(runs, overlay)
    killed = {
        t
        for t, r in base.items()
        if r["outcome"] == "passed" and ran.get(t, {}).get("outcome", "failed") == "failed"
    }
    selected, full, _, reasons = select_all(m, mutant, run, None)
    budgeted = {b: select_all(m, mutant, run, b)[::2] for b in budgets}
    why = next((r for r in reasons if r.startswith("full leg")), "")
    caps = " ".join(
        f"{100 * b:.0f}%:{len(sel)}{'c' if cut else ''}/{bool(killed & sel)}"
        for b, (sel, cut) in budgeted.items()
    )
    progress(
        f"{i + 1} {mutant.describe()}: killed by {len(killed)} tests, selected {len(selected)}"
        f"{' (full)' if full else ''}, caught={bool(killed & selected)} budgets {caps}"
        f"{'' if applied else ', OVERLAY NOT APPLIED'}" + (f" [{why[:160]}]" if why else "")
    )
    return Outcome(mutant, killed, selected, full, " | ".join(reasons), applied, budgeted)


def verify(outcomes, run: Runs, n, say) -> str:
    """Re-run the map's selection for real (--oot-only) on n killed mutants: same verdict?"""
    done = same = 0
    for i, o in enumerate(outcomes):
        if done >= n or not o.killed or o.full:
            continue
        overlay = overlay_for(o.mutant, run.torch_dir, run.work / f"m{i}")
        only = write_only(run.work / f"v{i}.json", resolve(o.selected, [], roots_of(run.ws, run.upstream)))
        ran = outcomes_of(run.legs_on(overlay, run.work / f"v{i}", selection=only))
        failed = {t for t, r in ran.items() if r["outcome"] == "failed"}
        done += 1
        same += bool(failed & o.killed) == bool(o.selected & o.killed)
        say(f"verify {o.mutant.describe()}: selection run failed {len(failed)} tests")
    return f"{same}/{done} selected runs gave the verdict read from the full run"


def leg_name(run, legs) -> str:
    leg = next(g for g in legs if g.feature == run.feature)
    return run.feature + (f" (shard 1 of {leg.shard_total})" if leg.shard_total > 1 else "")


def print_report(m, on, off, outcomes, tests, total, budgets, rng, verified, legs) -> None:
    wall_on, wall_off = sum(r.wall for r in on), sum(r.wall for r in off)
    killed = sum(1 for o in outcomes if o.killed)
    print(
        f"suite: {len(tests)} tests in {len(on)} legs ({', '.join(leg_name(r, legs) for r in on)}), "
        f"{total:.1f} s recorded"
    )
    print(
        f"mutants: {len(outcomes)} ({killed} killed by the full suite, {len(outcomes) - killed} survived it); "
        f"map fell back to the full leg for {sum(o.full for o in outcomes)}"
    )
    print("| selection                | caught  | recall | mean cost | median cost | mean cost (killed) |")
    print("|--------------------------|---------|--------|-----------|-------------|--------------------|")
    rows = [("change map, no budget", [o.selected for o in outcomes])]
    rows += [(f"change map, budget {100 * b:.0f} %", [o.budgeted[b][0] for o in outcomes]) for b in budgets]
    for name, picks in rows:
        print(summarize(name, outcomes, picks, tests, total))
    print(
        summarize(
            "file-name heuristic", outcomes, [filename_pick(o.mutant, tests) for o in outcomes], tests, total
        )
    )
    for name, picks in rows[:2]:  # random at the cost of the map without a budget and with the first
        costs = [sum(tests[t] for t in p) / total for p in picks]
        rand = [equal_cost_pick(c, tests, total, rng) for c in costs]
        label = "random = no budget" if name.endswith("no budget") else f"random = {name.split(', ')[1]}"
        print(summarize(label, outcomes, rand, tests, total))
    # not a selection anyone can make ahead: exactly the tests each mutant kills, the cost floor
    # of any selection that runs every test a change breaks
    print(summarize("killed tests (floor)", outcomes, [o.killed for o in outcomes], tests, total))
    for b in budgets:
        cut = [o for o in outcomes if o.budgeted[b][1]]
        print(
            f"budget {100 * b:.0f} %: cut the selection for {len(cut)} of {len(outcomes)} mutants "
            f"({sum(1 for o in cut if o.killed)} of them killed)"
        )
    print(f"memory build: coverage on {wall_on:.1f} s, off {wall_off:.1f} s, ratio {wall_on / wall_off:.2f}")
    print(f"verification: {verified}")
    applied = sum(o.applied for o in outcomes)
    print(f"overlay: torch imported from the mutant's overlay in {applied}/{len(outcomes)} mutant runs")
    for name, picks in rows:
        for o, p in zip(outcomes, picks):
            if o.killed and not o.killed & p:
                print(f"missed ({name}): {o.mutant.describe()}: killed by {len(o.killed)}, selected {len(p)}")


if __name__ == "__main__":
    sys.exit(main())
