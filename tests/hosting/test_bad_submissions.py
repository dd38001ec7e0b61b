"""Bad submissions: a huge archive, archive bombs, absolute paths, ``..``, links out of the submission, hard
links, special files, a manifest or requirements file that is a link to the machine's files; and a stored
artifact swapped behind its hash.

Each is refused with one line naming the entry, through the Arena as through ``pack``, and nothing is
stored; a worker refuses to run bytes that do not hash to the bot's version.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import update

from arena.registry import ErrorKind, Registry, RegistryConfig, RegistryError
from hosting.artifact import ArtifactError, Limits, pack
from hosting.launch import HostingConfig
from hosting.supervisor import HostingError, Supervisor
from store import Store
from store.models import Artifact as ArtifactRow
from tests.a_game import GAME
from tests.hosting.conftest import bot_dir, store_bot

LIMITS = Limits(max_bytes=1 << 20, max_unpacked_bytes=4 << 20, max_entries=200)
MANIFEST = b'[bot]\nserve = "bot:Hostile"\n'


def tar_of(members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def member(name: str, data: bytes | None = b"x", kind: bytes = tarfile.REGTYPE, link: str = "") -> tuple[tarfile.TarInfo, bytes | None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info, data if kind == tarfile.REGTYPE else None


def with_manifest(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    return tar_of([member("cardarena.toml", MANIFEST), member("bot.py", b"from botsdk import Bot\n"), *members])


def zip_bomb() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("cardarena.toml", MANIFEST)
        archive.writestr("zeros", b"\0" * (64 << 20))  # 64 MiB of zeros in ~64 KiB
    return out.getvalue()


def tar_bomb() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        info = tarfile.TarInfo("zeros")
        info.size = 64 << 20
        tar.addfile(info, io.BytesIO(b"\0" * info.size))
    return out.getvalue()


BAD: dict[str, tuple[bytes, str]] = {
    "huge archive": (os.urandom((1 << 20) + 1), "at most 1048576 are accepted"),
    "zip bomb": (zip_bomb(), "once unpacked"),
    "tar bomb": (tar_bomb(), "once unpacked"),
    "absolute path": (with_manifest(member("/etc/cron.d/evil")), "absolute name"),
    "dot-dot": (with_manifest(member("../../../../tmp/evil")), "climbs out"),
    "dot-dot inside": (with_manifest(member("lib/../../evil")), "climbs out"),
    "absolute symlink": (with_manifest(member("passwd", None, tarfile.SYMTYPE, "/etc/passwd")), "absolute path"),
    "symlink out": (with_manifest(member("lib/up", None, tarfile.SYMTYPE, "../../..")), "points out"),
    "symlink then write through it": (with_manifest(member("up", None, tarfile.SYMTYPE, ".."), member("up/evil")),
                                      "points out"),
    "hard link": (with_manifest(member("copy", None, tarfile.LNKTYPE, "/etc/shadow")), "hard link"),
    "device": (with_manifest(member("mem", None, tarfile.CHRTYPE)), "special file"),
    "fifo": (with_manifest(member("pipe", None, tarfile.FIFOTYPE)), "special file"),
    "twice the same name": (with_manifest(member("bot.py", b"again")), "two entries"),
    "too many entries": (with_manifest(*(member(f"f{i}") for i in range(250))), "more than 200 entries"),
    "not an archive": (b"#!/bin/sh\nrm -rf /\n" * 10, "not a readable"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_pack_refuses_a_bad_archive(case: str) -> None:
    data, said = BAD[case]
    with pytest.raises(ArtifactError, match=said):
        pack(data, LIMITS)


def test_a_directory_with_a_link_out_is_refused(tmp_path: Path) -> None:
    d = bot_dir(tmp_path, "x = 1\n")
    (d / "passwd").symlink_to("/etc/passwd")
    with pytest.raises(ArtifactError, match="absolute path"):
        pack(d, LIMITS)
    (d / "passwd").unlink()
    (d / "up").symlink_to("../..")
    with pytest.raises(ArtifactError, match="points out"):
        pack(d, LIMITS)
    (d / "up").unlink()
    os.mkfifo(d / "pipe")
    with pytest.raises(ArtifactError, match="special file"):
        pack(d, LIMITS)


@pytest.mark.parametrize("case", ["huge archive", "zip bomb", "absolute path", "symlink out", "hard link", "device"])
def test_the_arena_refuses_a_bad_archive_and_stores_nothing(case: str, store: Store, config: HostingConfig) -> None:
    registry = Registry(store, RegistryConfig.from_settings(), hosting=HostingConfig(
        config.directory, config.limits, config.tmp_bytes, LIMITS))
    with pytest.raises(RegistryError) as raised:
        registry.submit("bad-bot", [GAME], BAD[case][0])
    assert raised.value.kind is ErrorKind.INVALID_ARGUMENT
    assert BAD[case][1] in raised.value.message
    assert store.bots.get_bot_by_name("bad-bot") is None
    with store.db.read() as s:
        assert s.query(ArtifactRow).count() == 0


@pytest.mark.parametrize("what", ["manifest", "requirements"])
def test_a_manifest_or_requirements_file_that_links_to_the_machine_is_refused(what: str, store: Store,
                                                                             config: HostingConfig) -> None:
    members = [member("bot.py", b"from botsdk import Bot\n")]
    if what == "manifest":
        members.append(member("cardarena.toml", None, tarfile.SYMTYPE, "bot.py/../../../etc/passwd"))
    else:
        members += [member("cardarena.toml", MANIFEST + b'requirements = "req.txt"\n'),
                    member("req.txt", None, tarfile.SYMTYPE, "bot.py")]
    registry = Registry(store, RegistryConfig.from_settings())
    with pytest.raises(RegistryError) as raised:
        registry.submit("linky", [GAME], tar_of(members))
    assert raised.value.kind is ErrorKind.INVALID_ARGUMENT
    assert "link" in raised.value.message or "points out" in raised.value.message
    assert store.bots.get_bot_by_name("linky") is None


def test_an_artifact_swapped_in_the_store_is_never_run(tmp_path: Path, store: Store, config: HostingConfig,
                                                       supervisor: Supervisor) -> None:
    good = store_bot(store, bot_dir(tmp_path, f"from botsdk import Bot\nclass Hostile(Bot):\n    games = ({GAME!r},)\n"),
                     config)
    other = pack(bot_dir(tmp_path, f"from botsdk import Bot\nclass Hostile(Bot):\n    games = ({GAME!r},)\n"),
                 config.artifact_limits)
    from hosting.artifact import stored_bytes

    with store.db.write() as s:  # another program's bytes under the bot's hash
        s.execute(update(ArtifactRow).where(ArtifactRow.sha256 == good.sha256).values(data=stored_bytes(other)))
    with pytest.raises(HostingError, match="hash to"):
        supervisor.endpoint(good)
    assert not (config.directory / "artifacts" / good.sha256).exists()
    assert supervisor.running() == {}


def test_the_canonical_form_makes_the_same_files_the_same_hash(tmp_path: Path) -> None:
    d = bot_dir(tmp_path, "x = 1\n", files={"data.txt": "same"})
    first = pack(d, LIMITS)
    os.utime(d / "data.txt", (400_000_000, 400_000_000))
    os.chmod(d / "bot.py", stat.S_IRUSR | stat.S_IWUSR)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        for p in sorted(d.iterdir()):
            z.write(p, p.name)
    assert pack(d, LIMITS).sha256 == first.sha256 == pack(archive.getvalue(), LIMITS).sha256
    (d / "data.txt").write_text("other")
    assert pack(d, LIMITS).sha256 != first.sha256
