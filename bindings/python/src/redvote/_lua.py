"""The scripts shipped inside the package, checked against their manifest.

``redvote/lua/`` holds byte-identical copies of the repository's ``lua/*.lua``
and ``lua/manifest.json``, put there when the package is built (setup.py's
build hook); the package never reads the repository's ``lua/``. At import
every script's SHA1 is compared with the manifest's ``sha1``: a mismatch
raises :class:`ScriptMismatch`, so the package never sends a script whose
contract it does not know.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Tuple, Union

from ._base import ScriptMismatch

try:  # Python >= 3.9
    from importlib.resources import files as _files
except ImportError:  # pragma: no cover
    _files = None  # type: ignore[assignment]


@dataclass(frozen=True)
class ScriptInfo:
    """One manifest entry, and the script's exact bytes."""

    name: str
    sha1: str
    source: bytes
    read_only: bool
    idempotent: str
    root: str
    argv: Tuple[Mapping[str, Any], ...]
    reply: str
    errors: Tuple[str, ...]
    entry: Mapping[str, Any]


def _lua_dir() -> Any:
    return _files("redvote").joinpath("lua")


def load_scripts(directory: Union[Path, Any, None] = None) -> Tuple[Dict[str, Any], Dict[str, ScriptInfo]]:
    """Read ``manifest.json`` and every script it lists from ``directory``
    (default: the package's ``lua/``), checking each file's SHA1.

    Returns the manifest and the scripts by name. Raises :class:`ScriptMismatch`
    when a file is missing or its bytes do not hash to the manifest's ``sha1``.
    """
    base = _lua_dir() if directory is None else directory
    manifest = json.loads(base.joinpath("manifest.json").read_bytes().decode("utf-8"))
    scripts: Dict[str, ScriptInfo] = {}
    problems: List[str] = []
    for entry in manifest["scripts"]:
        name = entry["name"]
        filename = Path(entry["file"]).name
        try:
            source = base.joinpath(filename).read_bytes()
        except (FileNotFoundError, OSError) as e:
            problems.append(f"{filename}: missing ({e})")
            continue
        digest = hashlib.sha1(source).hexdigest()
        if digest != entry["sha1"]:
            problems.append(f"{filename}: SHA1 {digest}, manifest says {entry['sha1']}")
            continue
        scripts[name] = ScriptInfo(
            name=name,
            sha1=entry["sha1"],
            source=source,
            read_only="no-writes" in entry["flags"],
            idempotent=entry["idempotent"],
            root=entry["key"]["root"],
            argv=tuple(entry["argv"]),
            reply=entry["reply"],
            errors=tuple(entry["errors"]),
            entry=entry,
        )
    if problems:
        raise ScriptMismatch(
            "redvote: the packaged scripts do not match lua/manifest.json ("
            + "; ".join(problems)
            + "); reinstall the package (from a checkout: pip install ./bindings/python)"
        )
    return manifest, scripts


MANIFEST, SCRIPTS = load_scripts()
VERSION: str = MANIFEST["redvote"]
