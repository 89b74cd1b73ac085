"""The API's contract, checked whole: schemathesis, with every check, over the /api/ operations
of a served catalog of the seeds (issue 41: "schemathesis finds nothing over /api/").

    .venv/bin/python -m bench.contract [--seed N] [-- more schemathesis options]

Prints schemathesis' report and exits with its status: 0 when it found nothing. About 90 s;
tests/web/test_openapi.py runs a fast share of it in the suite (valid requests only, and each
bounded parameter just too long).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from bench.harness import BIN, free_port, start_server
from bench.hostile_files import scratch_catalog


def schemathesis_command(base: str, seed: int | None, extra: list[str]) -> list[str]:
    command = [str(BIN / "schemathesis"), "run", f"{base}/openapi.json",
               "--include-path-regex", "^/api/", "--checks", "all", "--workers", "1"]
    return command + (["--seed", str(seed)] if seed is not None else []) + extra


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, help="schemathesis' seed, to replay a run")
    parser.add_argument("extra", nargs="*", help="more schemathesis options, after --")
    args = parser.parse_args()
    with scratch_catalog() as (data, _work):
        port = free_port()
        server, _ = start_server({**os.environ, "CATALOG_DATA_DIR": str(data)}, port)
        try:
            run = subprocess.run(schemathesis_command(f"http://127.0.0.1:{port}", args.seed,
                                                      args.extra))
        finally:
            server.terminate()
            server.wait(timeout=30)
    sys.exit(run.returncode)


if __name__ == "__main__":
    main()
