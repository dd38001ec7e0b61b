"""The protocol: committed stubs are current, and the service is what bot authors implement."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee.bots import load_bot
from cardarena.v1 import bot_pb2, bot_pb2_grpc
from referee.games import games, spec
from referee.games.conformance import conformance
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
V1 = ROOT / "proto" / "cardarena" / "v1"


def test_generated_stubs_are_current(tmp_path: Path) -> None:
    load_script("proto/generate.py").generate(tmp_path)
    generated = sorted((tmp_path / "cardarena" / "v1").glob("*_pb2*.py*"))
    assert generated, "protoc produced nothing"
    committed = sorted(V1.glob("*_pb2*.py*"))
    assert [p.name for p in generated] == [p.name for p in committed], "a .proto has no committed stubs, or stubs without a .proto"
    stale = [p.name for p in generated if p.read_bytes() != (V1 / p.name).read_bytes()]
    assert not stale, f"stale stubs, run `make proto` and commit: {stale}"
    assert all((V1 / p.name.replace("_pb2.py", "_pb2.pyi")).exists() for p in generated if p.name.endswith("_pb2.py"))


def test_every_message_and_rpc_is_documented() -> None:
    """Every message, enum, field and rpc in the .proto files carries a comment (leading or trailing)."""
    undocumented = []
    for proto in sorted(V1.glob("*.proto")):
        lines = proto.read_text().splitlines()
        for i, line in enumerate(lines):
            text = line.strip()
            is_decl = text.startswith(("message ", "enum ", "rpc ", "service ")) or (
                text.endswith(";") and "=" in text and not text.startswith(("syntax", "option", "package", "import"))
            )
            if not is_decl:
                continue
            previous = lines[i - 1].strip() if i else ""
            if "//" not in text and not previous.startswith("//") and not _self_explanatory(text):
                undocumented.append(f"{proto.name}:{i + 1}: {text}")
    assert not undocumented, "\n".join(undocumented)


def _self_explanatory(text: str) -> bool:
    # the zero value of an enum, and an empty request message
    return "_UNSPECIFIED = 0" in text or text == "message DescribeRequest {}"


@pytest.mark.parametrize("game", games())
def test_a_served_bot_answers_describe_and_health(bot_server, game: str) -> None:
    strong = conformance(game).strong_bot
    endpoint = bot_server(load_bot(strong))
    with grpc.insecure_channel(endpoint) as channel:
        described = bot_pb2_grpc.BotStub(channel).Describe(bot_pb2.DescribeRequest(), timeout=5)
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service="cardarena.v1.Bot"), timeout=5)
    assert described.name == strong and list(described.games) == [spec(game).proto_enum]
    assert health.status == health_pb2.HealthCheckResponse.SERVING


def test_a_busy_port_is_an_error_not_a_shared_port(bot_server) -> None:
    """gRPC's default SO_REUSEPORT would let two bot servers split one port's traffic silently."""
    from botsdk import serve

    endpoint = bot_server(load_bot("random"))
    with pytest.raises(RuntimeError, match="cannot bind"):
        serve(load_bot("random"), port=int(endpoint.rsplit(":", 1)[1]))


def test_protos_cite_only_what_the_repository_holds() -> None:
    """No reference to a text outside the repository: rules are cited as `rules §N.M` (sections of
    docs/rules/, whose chapters its README lists), and every path a comment names exists."""
    import re

    from tests.test_rules_docs import CHAPTER_FILES

    problems = []
    for proto in sorted(V1.glob("*.proto")):
        text = proto.read_text()
        for word in ("RUL" + "INGS", "STYLE", "DESIGN", "seed" + " text", "seed" + "s/"):  # spelt apart: no file names them
            if word in text:
                problems.append(f"{proto.name}: cites {word!r}, which is not in the repository")
        for path in re.findall(r"\b((?:docs|proto)/[\w./-]*\w)", text):
            if not (ROOT / path).exists():
                problems.append(f"{proto.name}: names {path}, which does not exist")
        for section in re.findall(r"§\s*(\d+)", text):
            if int(section) not in CHAPTER_FILES:
                problems.append(f"{proto.name}: rules §{section} is not a chapter of docs/rules/ ({sorted(CHAPTER_FILES)})")
    assert not problems, "\n".join(problems)


def test_every_enum_starts_with_its_unspecified_zero() -> None:
    """Every enum's zero value is <ENUM_PREFIX>_UNSPECIFIED, so an unset field never reads as a real value."""
    import re

    from cardarena.v1 import arena_pb2

    bad = []
    for module in (bot_pb2, arena_pb2, *game_modules()):
        for enum in module.DESCRIPTOR.enum_types_by_name.values():
            prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper()
            zero = enum.values_by_number.get(0)
            if zero is None or zero.name != f"{prefix}_UNSPECIFIED" or enum.values[0].number != 0:
                bad.append(f"{enum.full_name}: zero value is {zero.name if zero else 'missing'}, expected {prefix}_UNSPECIFIED")
    assert not bad, "\n".join(bad)


def game_modules() -> list:
    """The generated module of every registered game's messages (the file of its view message)."""
    import importlib

    files = {bot_pb2.ActRequest.DESCRIPTOR.fields_by_name[spec(g).proto_field].message_type.file.name for g in games()}
    return [importlib.import_module(name.removesuffix(".proto").replace("/", ".") + "_pb2") for name in sorted(files)]


@pytest.mark.parametrize("game", games())
def test_fields_whose_absence_means_none_have_presence(game: str) -> None:
    """Each game's fields that can be "none" (its ``Conformance.presence_fields``) are proto3 optional."""
    from google.protobuf import descriptor_pool

    for message, name in conformance(game).presence_fields:
        found = descriptor_pool.Default().FindMessageTypeByName(f"cardarena.v1.{message}")
        assert found.fields_by_name[name].has_presence, f"{message}.{name}"


def test_every_game_has_its_own_generated_module() -> None:
    assert len(game_modules()) == len(games())


def test_the_protocol_guide_shows_what_the_platform_sends_now() -> None:
    """docs/protocol.md's requests and answers are the replays of real games as the platform plays them now."""
    module = load_script("docs/protocol_examples.py")
    text = module.DOC.read_text()
    assert module.updated(text) == text, "docs/protocol.md is stale: run `python docs/protocol_examples.py`"
    shown = {(example.record.game, example.title) for example in module.examples()}
    assert {game for game, _ in shown} == set(games())  # every game shows its decisions (its examples module)
    for game, title in shown:
        section = text.split(f"\n### {game}\n", 1)[1].split("\n### ", 1)[0]
        assert f"\n#### {title}\n" in section, (game, title)


def _wire_lock():  # type: ignore[no-untyped-def]
    return load_script("proto/wire_lock.py")


def test_the_protocol_stays_wire_compatible() -> None:
    """Every published field and enum value keeps its number and type (proto/wire.lock), and new ones are locked."""
    lock = _wire_lock()
    locked, current = lock.read_lock(), lock.entries()
    assert not lock.problems(locked, current), "\n".join(lock.problems(locked, current))
    assert not lock.keyword_names(current), "\n".join(lock.keyword_names(current))
    new = sorted(set(current) - set(locked))
    assert not new, f"new fields or values not locked yet, run `python proto/wire_lock.py` and commit: {new}"


def test_the_wire_lock_finds_what_breaks_old_bots() -> None:
    lock = _wire_lock()
    locked = {"v1.M.a": "1 uint32", "v1.M.b": "2 string"}
    assert lock.problems(locked, {"v1.M.a": "1 uint32", "v1.M.b": "2 string", "v1.M.c": "3 bool"}) == []
    assert lock.problems(locked, {"v1.M.a": "1 uint32", "v1.M.b": "3 string"}) == ["v1.M.b changed from 2 string to 3 string"]
    assert lock.problems(locked, {"v1.M.a": "1 uint32"}) == ["v1.M.b = 2 string was removed (reserve its number instead)"]
    assert lock.problems(locked, {"v1.M.a": "1 uint32", "v1.M.b": "2 string", "v1.M.z": "2 bool"}) == [
        "v1.M.z reuses number 2 of v1.M.b"]


def test_the_wire_lock_keeps_every_published_rpc() -> None:
    lock = _wire_lock()
    locked = {"v1.S/Act": "rpc (v1.Q) returns (v1.A)", "v1.M.a": "1 uint32"}
    added = {**locked, "v1.S/ActStream": "rpc (stream v1.SQ) returns (stream v1.SA)"}
    assert lock.problems(locked, added) == []  # a new rpc (with a new message) is compatible
    assert lock.problems(locked, {**added, "v1.S/Act": "rpc (stream v1.Q) returns (v1.A)"}) == [
        "v1.S/Act changed from rpc (v1.Q) returns (v1.A) to rpc (stream v1.Q) returns (v1.A)"]
    assert lock.problems(locked, {"v1.M.a": "1 uint32"}) == [
        "v1.S/Act = rpc (v1.Q) returns (v1.A) was removed (keep serving it)"]
    entries = lock.entries()
    assert entries["cardarena.v1.Bot/ActStream"] == (
        "rpc (stream cardarena.v1.ActStreamRequest) returns (stream cardarena.v1.ActStreamResponse)")
    assert entries["cardarena.v1.Bot/Act"] == "rpc (cardarena.v1.ActRequest) returns (cardarena.v1.ActResponse)"


def test_the_wire_lock_refuses_names_that_are_python_keywords() -> None:
    lock = _wire_lock()
    current = {"v1.M.pass": "1 bool", "v1.M.passes": "2 bool", "v1.E.None": "0", "v1.M.match": "3 bool"}
    assert lock.keyword_names(current) == [
        "v1.M.pass is named after the Python keyword 'pass'; choose another name",
        "v1.E.None is named after the Python keyword 'None'; choose another name"]
    assert lock.keyword_names(current, {"v1.M.pass": "published before the check", "v1.E.None": "idem"}) == []
