"""mypy over the installed package, as pyproject.toml configures it: the rules core and
net/ strict, ai/ and cli/ in mypy's default mode.

mypy cannot follow the package-dir mapping (``net/`` is installed as ``tractor.net``), so
the check lays the imported package out as one tree of symbolic links: whatever
``import tractor`` finds (site-packages after ``pip install .``, the source folders after an
editable install) is what gets checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tractor
import tractor.ai
import tractor.cli
import tractor.net

CONFIG = Path(__file__).resolve().parent.parent / "pyproject.toml"
SUBPACKAGES = {"net": tractor.net, "ai": tractor.ai, "cli": tractor.cli}


def installed_tree(farm: Path) -> Path:
    """``farm/tractor``: the imported package's files, the subpackages where they are."""
    root = farm / "tractor"
    root.mkdir()
    core = Path(tractor.__path__[0])
    for entry in core.iterdir():
        if entry.name not in SUBPACKAGES and entry.name != "__pycache__":
            os.symlink(entry, root / entry.name)
    for name, package in SUBPACKAGES.items():
        os.symlink(Path(package.__path__[0]), root / name)
    return root


def test_mypy_finds_no_error(tmp_path: Path) -> None:
    installed_tree(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(CONFIG),
         "--cache-dir", str(tmp_path / "cache"), "-p", "tractor"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
