"""The deploy files name only what exists: every cardarena command and option in the compose file and the
Kubernetes manifests is one of the CLI's (Typer app introspection), every CARDARENA_* variable they set is a
field of ``config.Settings``, and the health checks and restart policies are those the cluster test
(tests/cluster) shows a deployment needs. Also: the guide's cluster block (what deploy.cluster runs) uses
only real commands and options."""

from __future__ import annotations

import re
from pathlib import Path

from typing import Any

import pytest
import yaml
from typer.main import get_command

from cli.main import app
from config import Settings
from deploy.cluster.guide import commands as guide_commands

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def resolve(argv: list[str]) -> tuple[Any, list[str]]:
    """The CLI command ``argv`` names (group, then subcommand) and the rest of the words.
    Raises AssertionError naming an unknown command."""
    command: Any = get_command(app)
    rest = list(argv)
    while hasattr(command, "commands") and rest and not rest[0].startswith("-"):
        name = rest.pop(0)
        assert name in command.commands, f"no command {name!r} in {argv}"
        command = command.commands[name]
    assert not hasattr(command, "commands"), f"{argv} names a group, not a command"
    return command, rest


def check_options(argv: list[str]) -> None:
    """Every --option of ``argv`` exists on the command it names."""
    command, rest = resolve(argv)
    known = {opt for param in command.params for opt in [*param.opts, *param.secondary_opts]}
    for word in rest:
        if word.startswith("--"):
            assert word.split("=", 1)[0] in known, f"{' '.join(argv)}: no option {word} (has {sorted(known)})"


def settings_vars() -> set[str]:
    return {f"CARDARENA_{name.upper()}" for name in Settings.model_fields}


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())


def manifests() -> list[dict]:
    return [doc for path in sorted((DEPLOY / "k8s").glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text())
            if doc]


def cardarena_services() -> dict[str, dict]:
    return {name: s for name, s in compose()["services"].items()
            if "build" in s or str(s.get("image", "")).startswith("cardarena")}


def containers() -> list[dict]:
    return [c for doc in manifests() if doc["kind"] == "Deployment"
            for c in doc["spec"]["template"]["spec"]["containers"]]


def test_every_compose_command_and_option_exists() -> None:
    services = cardarena_services()
    assert services
    for name, service in services.items():
        check_options([str(w) for w in service["command"]])


def test_every_manifest_command_and_option_exists() -> None:
    cardarena = [c for c in containers() if str(c.get("image", "")).startswith("cardarena")]
    assert cardarena
    for container in cardarena:
        check_options([str(w) for w in container["args"]])


def test_every_cardarena_variable_is_a_setting() -> None:
    known = settings_vars()
    used: set[str] = set()
    for service in compose()["services"].values():
        used |= {k for k in (service.get("environment") or {}) if k.startswith("CARDARENA_")}
    for doc in manifests():
        for key in ("data", "stringData"):
            used |= {k for k in (doc.get(key) or {}) if k.startswith("CARDARENA_")}
    for container in containers():
        used |= {e["name"] for e in container.get("env", []) if e["name"].startswith("CARDARENA_")}
    text = (DEPLOY / "README.md").read_text() + (DEPLOY / "docker-compose.yml").read_text()
    used |= set(re.findall(r"CARDARENA_[A-Z_]+[A-Z]", text))
    assert used, "no CARDARENA_ variable found"
    # not settings: `bot register --server`'s variable, and the cluster test's profile
    assert used <= known | {"CARDARENA_ARENA", "CARDARENA_CLUSTER_PROFILE"}, sorted(used - known)


def test_the_guides_cluster_commands_exist() -> None:
    block = guide_commands()
    assert {"worker", "server", "bot", "register", "season create", "season run", "ladder create", "ladder run",
            "ladder standings", "ladder verify"} <= set(block)
    for role, line in block.items():
        words = line.split()
        if words[0] == "cardarena":
            check_options(words[1:])


def test_a_store_host_cut_mid_transaction_cannot_hold_its_locks() -> None:
    # the cluster test: a worker host cut between two statements kept its row locks until TCP gave up,
    # and every claim and the sweeper waited; PostgreSQL must end such sessions
    postgres = compose()["services"]["postgres"]
    assert any("idle_in_transaction_session_timeout" in str(w) for w in postgres.get("command", [])), postgres
    assert "idle_in_transaction_session_timeout" in (DEPLOY / "README.md").read_text()


@pytest.mark.parametrize("service", ["postgres", "redis"])
def test_the_store_and_the_broker_have_health_checks(service: str) -> None:
    assert "healthcheck" in compose()["services"][service]


def test_long_running_parts_restart() -> None:
    # the cluster test: a worker or bot host that loses its network keeps running and comes back by
    # itself; a process that exits (a crash, the broker unreachable at start) must be started again
    services = compose()["services"]
    for name in ["server", "worker", "redis", "postgres", *[s for s in services if s.startswith("bot-")]]:
        assert services[name].get("restart") in ("unless-stopped", "always", "on-failure"), name
    for doc in manifests():
        if doc["kind"] == "Deployment":
            assert doc["spec"]["template"]["spec"].get("restartPolicy", "Always") == "Always"
