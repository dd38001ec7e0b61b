"""The repository's scripts (``proto/generate.py``, ``proto/wire_lock.py``, ``docs/*.py``), which are not
packages, loaded as modules for the tests that check what they write."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(path: str) -> ModuleType:
    """The script at ``path`` (from the repository root) as a module named after its file, registered in
    ``sys.modules`` (a script's dataclasses look their module up there); raises ImportError when it cannot
    be loaded."""
    file = ROOT / path
    found = importlib.util.spec_from_file_location(file.stem, file)
    if found is None or found.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(found)
    sys.modules[found.name] = module
    found.loader.exec_module(module)
    return module
