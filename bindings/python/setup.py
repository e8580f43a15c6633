"""The build hook of the redvote package (the rest is pyproject.toml).

The scripts are committed once, at the repository root: ``lua/*.lua`` and
``lua/manifest.json``. Building the package copies them into the build's
``redvote/lua/`` (the package reads only that copy at run time). An sdist
carries them in ``src/redvote/lua/``, and a build from an sdist takes those.
Each file is checked against the manifest's SHA1 as it is copied, and the
build's ``redvote/lua/`` holds nothing else.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import List

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
CHECKOUT_LUA = HERE.parent.parent / "lua"
CARRIED_LUA = HERE / "src" / "redvote" / "lua"


def script_source() -> Path:
    """Where the scripts come from: an sdist's own copies (an sdist has
    PKG-INFO at its top), else the checkout's ``lua/``."""
    if (HERE / "PKG-INFO").exists() and (CARRIED_LUA / "manifest.json").exists():
        return CARRIED_LUA
    if (CHECKOUT_LUA / "manifest.json").exists():
        return CHECKOUT_LUA
    raise SystemExit(
        f"redvote: no scripts to package: {CHECKOUT_LUA / 'manifest.json'} is missing "
        "(build the package from a checkout of the redvote repository, or from its sdist)"
    )


def script_files(source: Path) -> List[Path]:
    """``manifest.json`` and every script it lists, each checked against
    the manifest's SHA1 so a build never packages a script its manifest
    does not describe."""
    manifest = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    files = [source / "manifest.json"]
    for entry in manifest["scripts"]:
        path = source / Path(entry["file"]).name
        if not path.exists():
            raise SystemExit(f"redvote: {path} is missing (listed in {source / 'manifest.json'})")
        digest = hashlib.sha1(path.read_bytes()).hexdigest()
        if digest != entry["sha1"]:
            raise SystemExit(f"redvote: {path} has SHA1 {digest}, its manifest says {entry['sha1']}")
        files.append(path)
    return files


def copy_scripts(target: Path) -> None:
    """Make ``target`` hold exactly the scripts and their manifest (a
    build directory may keep files of an earlier build)."""
    source = script_source()
    files = script_files(source)
    if target.resolve() == source.resolve():
        return
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for path in files:
        shutil.copyfile(path, target / path.name)


class BuildPyWithScripts(build_py):
    """``build_py``, then the scripts into the build's ``redvote/lua/`` (an
    editable install reads ``src/redvote/lua/``: they go there instead)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            copy_scripts(CARRIED_LUA)
        else:
            copy_scripts(Path(self.build_lib) / "redvote" / "lua")


class SdistWithScripts(sdist):
    """``sdist``, carrying the scripts in ``src/redvote/lua/``."""

    def make_release_tree(self, base_dir: str, files: List[str]) -> None:
        super().make_release_tree(base_dir, files)
        copy_scripts(Path(base_dir) / "src" / "redvote" / "lua")


setup(cmdclass={"build_py": BuildPyWithScripts, "sdist": SdistWithScripts})
