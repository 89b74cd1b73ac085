"""The mutation score per module, from the results of the last `mutmut run` (`make mutants`).

    .venv/bin/python -m bench.mutants [--survivors]

A mutant is caught when a test fails on it (or it hangs past mutmut's timeout); "no tests"
means no selected test reaches its function. Prints a markdown table, modules in the order of
pyproject's `[tool.mutmut] only_mutate`, and with `--survivors` each surviving mutant's name
(`mutmut show NAME` prints its diff). docs/testing.md explains the survivors kept.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CAUGHT = {"killed", "timeout"}
# "app.web.pagecache.x_cacheable__mutmut_1", "app.web.pagecache.xǁPageCacheǁ__call____mutmut_3"
_MODULE = re.compile(r"^(?P<module>[\w.]+?)\.x[_ǁ]")


def results() -> list[tuple[str, str, str]]:
    """(module, mutant, status) of every mutant of the last run."""
    mutmut = Path(sys.executable).with_name("mutmut")
    out = subprocess.run([str(mutmut), "results", "--all", "true"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        name, _, status = line.strip().rpartition(": ")
        match = _MODULE.match(name)
        if match:
            rows.append((match["module"], name, status))
    return rows


def modules() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [path.removesuffix(".py").replace("/", ".")
            for path in config["tool"]["mutmut"]["only_mutate"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--survivors", action="store_true")
    args = parser.parse_args()
    rows = results()
    counts: dict[str, Counter[str]] = {module: Counter() for module in modules()}
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
        for _, name, status in rows:
            if status not in CAUGHT:
                print(f"{status}: {name}")


if __name__ == "__main__":
    main()
