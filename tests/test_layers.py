"""The layers of docs/design.md hold: every import-linter contract of pyproject.toml is kept.

``lint-imports`` reads the contracts from ``[tool.importlinter]``; a module importing from a
layer above its own (or the bot SDK importing the platform) fails here, naming the import.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
CONTRACTS = [c["id"] for c in tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]]


def test_the_design_names_every_contract() -> None:
    design = (REPO / "docs" / "design.md").read_text()
    assert {"layers", "referee-layers", "botsdk-alone", "dashboard-reads"} <= set(CONTRACTS)
    missing = [c for c in CONTRACTS if f"`{c}`" not in design]
    assert not missing, f"contracts not described in docs/design.md: {', '.join(missing)}"


@pytest.mark.parametrize("contract", CONTRACTS)
def test_the_contract_is_kept(contract: str) -> None:
    result = subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo", "--contract", contract],
                            cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_the_bot_sdk_imports_only_the_protocol_grpc_protobuf_and_the_standard_library() -> None:
    import grimp

    graph = grimp.build_graph("botsdk", "cardarena", include_external_packages=True, cache_dir=None)
    allowed = set(sys.stdlib_module_names) | {"botsdk", "cardarena", "grpc", "grpc_health", "google"}
    imported = {(module, other) for module in graph.modules if module.split(".")[0] == "botsdk"
                for other in graph.find_modules_directly_imported_by(module)}
    outside = sorted(f"{module} -> {other}" for module, other in imported if other.split(".")[0] not in allowed)
    assert not outside, "the bot SDK imports beyond the protocol, grpc and protobuf:\n" + "\n".join(outside)



#: The product's packages: everything but the tests (a game's own tests, ``referee.games.<game>.tests``, are left out too).
PRODUCT = ["cardarena", "botsdk", "config", "referee", "league", "store", "workers", "arena", "dashboard", "cli",
           "bench", "deploy"]


def test_no_two_modules_of_the_product_import_each_other() -> None:
    """No circle of imports: no two modules import each other, directly or through a loop of other modules.
    The graph is grimp's (import-linter's), imports inside functions included; the standard library's
    ``graphlib`` finds a circle (one at a time: fix it and run again)."""
    import grimp
    from graphlib import CycleError, TopologicalSorter

    graph = grimp.build_graph(*PRODUCT, cache_dir=None)
    product = {m for m in graph.modules if ".tests" not in f"{m}."}
    imports = {m: graph.find_modules_directly_imported_by(m) & product for m in sorted(product)}
    try:
        TopologicalSorter(imports).prepare()
    except CycleError as exc:
        pytest.fail("modules of the product import each other: " + " -> ".join(exc.args[1]))
