"""The Dockerfile against the README and the CLI (there is no Docker engine here to build it):
an unprivileged user, a health check on /healthz, migration before serving, the catalog in a
volume, and the port and volume the README's `docker run` uses."""

import json
import re
import shlex

import pytest
from typer.main import get_command

from app.cli import cli
from app.config import PROJECT_ROOT


def instructions() -> list[tuple[str, str]]:
    text = (PROJECT_ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines
            if line and not line.startswith("#")]


def the(name: str) -> list[str]:
    return [argument for instruction, argument in instructions() if instruction == name]


def exec_form(argument: str) -> list[str]:
    return json.loads(argument) if argument.startswith("[") else shlex.split(argument)


def readme_docker_commands() -> list[list[str]]:
    readme = (PROJECT_ROOT / "README.md").read_text()
    block = readme.split("## Docker", 1)[1].split("```", 2)[1]
    return [shlex.split(line) for line in block.splitlines() if line.startswith("docker ")]


def test_runs_as_an_unprivileged_user():
    (user,) = the("USER")
    assert user not in ("root", "0") and not user.startswith("0:")
    assert "useradd" in " ".join(the("RUN")) and user in " ".join(the("RUN"))


def test_catalog_lives_in_a_volume_the_readme_mounts():
    (volume,) = the("VOLUME")
    env = dict(re.findall(r"(\w+)=(\S+)", " ".join(the("ENV"))))
    assert env["CATALOG_DATA_DIR"] == volume
    run = next(c for c in readme_docker_commands() if c[1] == "run")
    mounts = [run[i + 1] for i, arg in enumerate(run) if arg in ("-v", "--volume")]
    assert any(mount.split(":")[1] == volume for mount in mounts)


def test_serves_on_the_exposed_port_the_readme_publishes_and_checks_its_health():
    (expose,) = the("EXPOSE")
    (command,) = the("CMD")
    shell = exec_form(command)[-1]
    serve = next(c for c in shell.split("&&") if "catalog serve" in c)
    assert f"--port {expose}" in serve and "--host 0.0.0.0" in serve
    run = next(c for c in readme_docker_commands() if c[1] == "run")
    published = [run[i + 1] for i, arg in enumerate(run) if arg in ("-p", "--publish")]
    assert any(p.split(":")[-1] == expose for p in published)
    (health,) = the("HEALTHCHECK")
    assert f"127.0.0.1:{expose}/healthz" in health and "--start-period" in health


def test_migrates_then_loads_the_seeds_then_serves_with_commands_the_cli_has():
    (command,) = the("CMD")
    steps = [shlex.split(step.replace("exec ", "")) for step in
             exec_form(command)[-1].split("&&")]
    assert [step[:2] for step in steps] == [["catalog", "migrate"], ["catalog", "ingest"],
                                           ["catalog", "serve"]]
    known = set(get_command(cli).commands)  # type: ignore[attr-defined]
    assert {step[1] for step in steps} <= known
    copied = {argument.split()[0] for argument in the("COPY")}
    assert "seeds" in copied and steps[1][2] == "seeds"


@pytest.mark.parametrize("sub", ["build", "run"])
def test_readme_says_how_to_build_and_run(sub: str):
    assert any(c[:2] == ["docker", sub] for c in readme_docker_commands())
