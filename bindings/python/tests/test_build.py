"""Packaging: the scripts are committed once, in the repository's lua/, and
the build hook (setup.py) puts them in the package. A wheel built from the
checkout, an sdist, and a wheel built from that sdist alone (no lua/ beside
it) each carry exactly the scripts of lua/manifest.json, byte for byte."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Dict

from conftest import PACKAGE_ROOT, REPO_ROOT

MANIFEST = REPO_ROOT / "lua" / "manifest.json"


def expected() -> Dict[str, str]:
    """The files redvote/lua/ must hold, with their SHA1: every script of
    the checkout's manifest, and the manifest itself."""
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    files = {Path(e["file"]).name: e["sha1"] for e in manifest["scripts"]}
    files["manifest.json"] = hashlib.sha1(MANIFEST.read_bytes()).hexdigest()
    return files


def carried(contents: Dict[str, bytes], prefix: str) -> Dict[str, str]:
    """The files under ``prefix`` of an archive, with their SHA1."""
    return {
        name[len(prefix):]: hashlib.sha1(data).hexdigest()
        for name, data in contents.items()
        if name.startswith(prefix) and not name.endswith("/")
    }


def wheel_contents(wheel: Path) -> Dict[str, bytes]:
    with zipfile.ZipFile(wheel) as z:
        return {name: z.read(name) for name in z.namelist()}


def run(command: list, cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


def test_a_wheel_built_from_the_checkout_carries_exactly_the_manifests_scripts(tmp_path):
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q",
         "-w", str(tmp_path), str(PACKAGE_ROOT)], tmp_path)
    (wheel,) = tmp_path.glob("redvote-*.whl")
    assert carried(wheel_contents(wheel), "redvote/lua/") == expected()


def test_an_sdist_carries_the_scripts_and_a_wheel_builds_from_it_alone(tmp_path):
    # python -m build makes the sdist, then the wheel from that sdist
    # unpacked in a directory of its own, where no lua/ lies beside it
    run([sys.executable, "-m", "build", "--outdir", str(tmp_path), str(PACKAGE_ROOT)], tmp_path)
    (sdist,) = tmp_path.glob("redvote-*.tar.gz")
    with tarfile.open(sdist) as t:
        members = {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}  # type: ignore[union-attr]
    top = sdist.name[: -len(".tar.gz")]
    assert carried(members, f"{top}/src/redvote/lua/") == expected()
    (wheel,) = tmp_path.glob("redvote-*.whl")
    assert carried(wheel_contents(wheel), "redvote/lua/") == expected()


def test_a_build_without_the_scripts_is_refused_by_name(tmp_path):
    alone = tmp_path / "python"
    shutil.copytree(PACKAGE_ROOT, alone, ignore=shutil.ignore_patterns("build", "*.egg-info", "lua", "__pycache__"))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-w", str(tmp_path), str(alone)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode != 0
    assert "no scripts to package" in done.stdout + done.stderr and "manifest.json is missing" in done.stdout + done.stderr
    assert not list(tmp_path.glob("*.whl"))
