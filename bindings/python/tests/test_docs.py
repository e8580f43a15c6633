"""docs/python.md: every code block runs. The ```python blocks run in order,
each as its own program, against a throwaway server named by REDVOTE_URL;
a ```text block right after one is what it must print. The ```sh block
(install from the repository) runs in a temporary directory, into a fresh
venv."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import List, Tuple

import pytest

from conftest import REPO_ROOT

DOC = REPO_ROOT / "docs" / "python.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def blocks() -> List[Tuple[str, str]]:
    if not DOC.exists():
        pytest.fail(f"{DOC} is missing")
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(DOC.read_text(encoding="utf-8"))]


def test_every_block_is_a_kind_this_test_runs():
    kinds = [k for k, _ in blocks()]
    assert kinds, "no code blocks"
    assert set(kinds) <= {"python", "text", "sh"}, kinds
    for i, (kind, _) in enumerate(blocks()):
        if kind == "text":
            assert i > 0 and kinds[i - 1] == "python", "a text block follows a python block"


def test_the_python_blocks_run_and_print_what_the_doc_says(r, server):
    found = blocks()
    ran = 0
    env = dict(os.environ, REDVOTE_URL=server.url, PYTHONDONTWRITEBYTECODE="1")
    for i, (kind, body) in enumerate(found):
        if kind != "python":
            continue
        done = subprocess.run(
            [sys.executable, "-c", body], env=env, capture_output=True, text=True, timeout=60
        )
        first = body.strip().splitlines()[0]
        assert done.returncode == 0, f"block {i} ({first}...) failed:\n{done.stderr}"
        if i + 1 < len(found) and found[i + 1][0] == "text":
            assert done.stdout == found[i + 1][1], f"block {i} printed:\n{done.stdout}"
        ran += 1
    assert ran >= 5


def test_the_install_block_installs_the_package(tmp_path):
    (sh,) = [body for kind, body in blocks() if kind == "sh"]
    (tmp_path / "bindings").symlink_to(REPO_ROOT / "bindings")
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        ["bash", "-euc", sh], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^\d+\.\d+\.\d+ \d+ scripts$", done.stdout, re.M), done.stdout
