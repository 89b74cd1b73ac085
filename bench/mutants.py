"""The mutation score per module, from the results of the last `mutmut run` (`make mutants`).

    .venv/bin/python -m bench.mutants [--set catalog] [--run [--modules M ...]] [--recheck]
                                      [--survivors]

Two sets of modules, both in pyproject's `[tool.mutmut]`: `units` (`only_mutate`, against
the catalog-free tests of `pytest_add_cli_args_test_selection`: minutes) and `catalog`
(its keys prefixed `catalog_` in place of their own: other modules, against tests that build
a catalog, a mutant taking seconds). mutmut reads its configuration only from
./pyproject.toml, so the `catalog` set runs in .venv/mutants-catalog/: links to the
repository's folders and a pyproject.toml whose `[tool.mutmut]` is the set's. `--run` runs mutmut
afresh (`make mutants [SET=catalog] [MODULES="app.paging ..."]`), with two children, its
output in .venv/mutmut-SET.log; `--modules` runs only those modules' mutants (the others are
"not run").

A mutant is caught when a test fails on it (or it hangs past mutmut's timeout); "no tests"
means no selected test reaches its function. mutmut 3.8's fork server reported many mutants
of the catalog set as ended by SIGKILL (its "segfault"), most of them mutants whose tests fail
when run on their own: `--recheck` runs each such mutant's tests again, one mutant at a time
(two at once), as mutmut does, and records the verdict in place of mutmut's.

Prints a markdown table, modules in the order of the set's list, and with `--survivors` each
surviving mutant's name (`mutmut show NAME`, run where the set ran, prints its diff).
docs/testing.md explains the survivors kept.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
CAUGHT = {"killed", "timeout"}
# What a set's copy of the repository links to: what mutmut copies (source_paths, also_copy,
# tests) and what pytest reads.
LINKED = ["app", "tests", "bench", "seeds", "templates", "static"]
# "app.web.pagecache.x_cacheable__mutmut_1", "app.web.pagecache.xǁPageCacheǁ__call____mutmut_3"
_MODULE = re.compile(r"^(?P<module>[\w.]+?)\.x[_ǁ]")


def settings() -> dict:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["tool"]["mutmut"]


def sets() -> list[str]:
    return ["units"] + [key.removesuffix("_only_mutate") for key in settings()
                        if key.endswith("_only_mutate") and key != "only_mutate"]


def modules(name: str) -> list[str]:
    key = "only_mutate" if name == "units" else f"{name}_only_mutate"
    return [path.removesuffix(".py").replace("/", ".") for path in settings()[key]]


def workspace(name: str) -> Path:
    """Where mutmut runs for a set: the repository for `units`, .venv/mutants-NAME otherwise."""
    return ROOT if name == "units" else VENV / f"mutants-{name}"


def lay_out(name: str) -> Path:
    """A set's workspace: links to the repository's folders, and pyproject.toml with the
    set's `[tool.mutmut]` (each `NAME_key` in place of `key`). Its mutants/ is kept."""
    place = workspace(name)
    place.mkdir(parents=True, exist_ok=True)
    for folder in LINKED:
        if not (place / folder).is_symlink():
            (place / folder).symlink_to(ROOT / folder)
    prefixes = tuple(f"{s}_" for s in sets() if s != "units")
    config = settings()
    own = {key: config[key] for key in config if not key.startswith(prefixes)}
    own.update({key.removeprefix(f"{name}_"): value for key, value in config.items()
                if key.startswith(f"{name}_")})
    lines = [f"{key} = {json.dumps(value)}" for key, value in own.items()]
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    head, _, section = text.partition("[tool.mutmut]\n")
    rest = section[section.index("\n[") + 1:] if "\n[" in section else ""
    (place / "pyproject.toml").write_text(
        head + "[tool.mutmut]\n" + "\n".join(lines) + "\n\n" + rest, encoding="utf-8")
    return place


def run(name: str, only: list[str]) -> None:
    """`mutmut run` of a set afresh (of the `only` modules' mutants when given), two children
    at a time; its output in the log."""
    place = lay_out(name) if name != "units" else ROOT
    shutil.rmtree(place / "mutants", ignore_errors=True)
    log = VENV / f"mutmut-{name}.log"
    log.parent.mkdir(exist_ok=True)
    with log.open("w") as out:
        done = subprocess.run([str(mutmut()), "run", "--max-children", "2",
                               *(f"{module}.*" for module in only)],
                              cwd=place, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.stdout.write(log.read_text(errors="replace")[-3000:])
        sys.exit(f"mutmut run failed (exit {done.returncode}): {log}")


def recheck(name: str) -> None:
    """Each mutant mutmut recorded as ended by SIGKILL (-9), its tests run again under
    MUTANT_UNDER_TEST, fastest first and stopping at the first failure, as mutmut runs them:
    their exit code (1 caught, 0 survived) replaces mutmut's."""
    mutants = workspace(name) / "mutants"
    stats = json.loads((mutants / "mutmut-stats.json").read_text(encoding="utf-8"))
    tests_of, seconds = stats["tests_by_mangled_function_name"], stats["duration_by_test"]
    metas = {path: json.loads(path.read_text(encoding="utf-8"))
             for path in (mutants / "app").rglob("*.py.meta")}
    killed = [(path, mutant) for path, meta in metas.items()
              for mutant, code in meta["exit_code_by_key"].items() if code == -9]

    def verdict(mutant: str) -> int:
        tests = sorted(tests_of.get(re.sub(r"__mutmut_\d+$", "", mutant), []),
                       key=lambda test: seconds.get(test, 0))
        try:
            return subprocess.run(
                [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x", "-q",
                 "--rootdir=.", *tests], cwd=mutants, capture_output=True, timeout=600,
                env={**os.environ, "MUTANT_UNDER_TEST": mutant, "PYTHONPATH": str(mutants)},
            ).returncode
        except subprocess.TimeoutExpired:
            return 36  # mutmut's timeout

    with ThreadPoolExecutor(2) as pool:
        codes = list(pool.map(verdict, [mutant for _, mutant in killed]))
    for (path, mutant), code in zip(killed, codes, strict=True):
        metas[path]["exit_code_by_key"][mutant] = code
    for path in {path for path, _ in killed}:
        path.write_text(json.dumps(metas[path], indent=4), encoding="utf-8")
    print(f"{len(killed)} mutants ended by SIGKILL run again: {dict(Counter(codes))}")


def mutmut() -> Path:
    return Path(sys.executable).with_name("mutmut")


def results(name: str) -> list[tuple[str, str, str]]:
    """(module, mutant, status) of every mutant of the set's last run."""
    out = subprocess.run([str(mutmut()), "results", "--all", "true"], cwd=workspace(name),
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        mutant, _, status = line.strip().rpartition(": ")
        match = _MODULE.match(mutant)
        if match:
            rows.append((match["module"], mutant, status))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="units", choices=sets())
    parser.add_argument("--run", action="store_true", help="run mutmut afresh first")
    parser.add_argument("--modules", nargs="*", default=[], metavar="MODULE",
                        help="with --run, only these modules' mutants (app.search.rank.bm25 ...)")
    parser.add_argument("--recheck", action="store_true",
                        help="run the mutants mutmut saw SIGKILLed again, one at a time")
    parser.add_argument("--survivors", action="store_true")
    args = parser.parse_args()
    unknown = set(args.modules) - set(modules(args.set))
    if unknown:
        parser.error(f"not in the {args.set} set: {', '.join(sorted(unknown))}")
    if args.run:
        run(args.set, args.modules)
    if args.recheck:
        recheck(args.set)
    rows = results(args.set)
    counts: dict[str, Counter[str]] = {module: Counter() for module in modules(args.set)}
    for module, _, status in rows:
        counts.setdefault(module, Counter())[status] += 1
    print("| module | mutants | caught | survived | no tests | not run | score |")
    print("|---|---|---|---|---|---|---|")
    for module, seen in [*counts.items(), ("all", sum(counts.values(), Counter()))]:
        total = sum(seen.values())
        caught = sum(seen[s] for s in CAUGHT)
        checked = total - seen["not checked"]
        score = f"{100 * caught / checked:.1f} %" if checked else "–"
        print(f"| {module} | {total} | {caught} | {seen['survived']} | {seen['no tests']} "
              f"| {seen['not checked']} | {score} |")
    if args.survivors:
        for _, mutant, status in rows:
            if status not in CAUGHT:
                print(f"{status}: {mutant}")


if __name__ == "__main__":
    main()
