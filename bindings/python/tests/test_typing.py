"""Type hints everywhere: mypy --strict passes on the package, and the
installed package carries py.typed (PEP 561)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import redis

import redvote

from conftest import PACKAGE_ROOT


def test_the_installed_package_is_marked_typed():
    assert (Path(redvote.__file__).parent / "py.typed").exists()


def test_mypy_strict_passes(tmp_path):
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "src/redvote"]
    if not (Path(redis.__file__).parent / "py.typed").exists():
        # redis-py before 5 ships no type hints: its names are Any
        command += ["--ignore-missing-imports", "--allow-subclassing-any", "--no-warn-return-any"]
        command += ["--disable-error-code", "import-untyped", "--disable-error-code", "unused-ignore"]
    done = subprocess.run(
        command,
        cwd=PACKAGE_ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
