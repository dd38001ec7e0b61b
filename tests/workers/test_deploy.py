"""deploy/ is parsed and checked here (Docker cannot run in CI): compose, Kubernetes manifests, Dockerfile."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from typer.main import get_command

from cli.main import app

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def cli_commands() -> set[str]:
    """Top-level commands and 'group sub' pairs of the cardarena CLI."""
    root = get_command(app)
    names: set[str] = set()
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        names.add(name)
        names.update(f"{name} {sub}" for sub in getattr(command, "commands", {}))
    return names


def test_compose_has_every_part_and_runs_real_commands() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"redis", "postgres", "server", "worker"} <= set(services)
    bots = [s for s in services if s.startswith("bot-")]
    assert len(bots) >= 3
    known = cli_commands()
    for name, service in services.items():
        command = service.get("command", [])
        if "build" in service or "image" in service and service["image"].startswith("cardarena"):
            words = [w for w in command if not w.startswith("-")]
            assert words[0] in known or " ".join(words[:2]) in known, (name, command)
    assert services["worker"]["command"][0] == "worker"
    assert services["server"]["command"][0] == "server"
    for bot in bots:
        assert services[bot]["command"][:2] == ["bot", "serve"] and "0.0.0.0" in services[bot]["command"]
    env = services["worker"]["environment"]
    assert env["CARDARENA_DB_URL"].startswith("postgresql+psycopg://") and env["CARDARENA_BROKER_URL"].startswith("redis://")


def test_kubernetes_manifests_parse_and_name_their_parts() -> None:
    kinds: dict[str, set[str]] = {}
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            assert {"apiVersion", "kind", "metadata"} <= set(doc), path
            kinds.setdefault(doc["kind"], set()).add(doc["metadata"]["name"])
            if doc["kind"] == "Deployment":
                spec = doc["spec"]
                assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
    assert {"cardarena-worker", "cardarena-server"} <= kinds["Deployment"]
    assert "cardarena-server" in kinds["Service"] and "cardarena" in kinds["ConfigMap"]
    worker = next(d for d in yaml.safe_load_all((DEPLOY / "k8s" / "worker.yaml").read_text()) if d["kind"] == "Deployment")
    container = worker["spec"]["template"]["spec"]["containers"][0]
    assert container["args"][0] == "worker"
    assert worker["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] >= 60


def test_the_dockerfile_copies_every_package_the_project_installs() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    pyproject = (DEPLOY.parent / "pyproject.toml").read_text()
    include = re.search(r"include = \[(.*?)\]", pyproject)
    assert include is not None
    packages = {p.strip().strip('"').rstrip("*") for p in include.group(1).split(",")} - {"cardarena"}
    for package in packages:
        assert re.search(rf"^COPY {package} \./{package}$", dockerfile, re.MULTILINE), package
    assert 'ENTRYPOINT ["cardarena"]' in dockerfile


def test_the_guide_names_the_commands_it_tells_you_to_run() -> None:
    guide = (DEPLOY / "README.md").read_text()
    for needle in ("cardarena worker", "season run", "--broker", "celery -A workers.celery_app inspect", "flower",
                   "games/s", "capacity"):
        assert needle in guide, needle
