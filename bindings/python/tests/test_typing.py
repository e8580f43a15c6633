"""Type hints everywhere: mypy --strict passes on the package and on a user's
program that imports it, and the installed package carries py.typed (PEP 561)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List

import redis

import redvote

from conftest import PACKAGE_ROOT


def test_the_installed_package_is_marked_typed():
    assert (Path(redvote.__file__).parent / "py.typed").exists()


def mypy_strict(tmp_path: Path, target: str) -> List[str]:
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), target]
    if not (Path(redis.__file__).parent / "py.typed").exists():
        # redis-py before 5 ships no type hints: its names are Any
        command += ["--ignore-missing-imports", "--allow-subclassing-any", "--no-warn-return-any"]
        command += ["--disable-error-code", "import-untyped", "--disable-error-code", "unused-ignore"]
    return command


def test_mypy_strict_passes(tmp_path):
    done = subprocess.run(
        mypy_strict(tmp_path, "src/redvote"),
        cwd=PACKAGE_ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# A user's program: the package's names by attribute and by from-import,
# checked against the installed package (run from a directory without src/).
USER_PROGRAM = """\
from typing import List, Type

import redis
import redis.asyncio

import redvote
import redvote.aio
from redvote import Ballot, Campaign, CampaignRegistry, Pipeline, RedvoteError, Site, errors
from redvote.errors import VoteIdReused

r = redis.Redis()
spring: Campaign = redvote.Campaign(r, "spring2026")
also: redvote.Campaign = Campaign(r, "summer")
ballots: List[Ballot] = spring.vote("user:1", [("stars", "wy")])
first: redvote.Ballot = ballots[0]
vote_id: "str | None" = first.vote_id
site: redvote.Site = Site(r)
registry: CampaignRegistry = redvote.CampaignRegistry(r)
pipe: Pipeline = redvote.Pipeline(r)
pending: redvote.Pending[List[redvote.Ballot]] = pipe.add(spring.calls.vote("user:2", [("stars", "wy")]))
refused: Type[RedvoteError] = errors.VoteIdReused
reused: Type[VoteIdReused] = redvote.errors.VoteIdReused
top: List[redvote.BoardPage] = spring.top("stars")
hot = redvote.Campaign(r, "final")
hot.configure({"mode": "buffered", "fold_ms": 500, "boards": {"stars": {"options": {"wy": {}}}}})
buffered: "int | None" = hot.vote("user:1", [("stars", "wy")])[0].folded
step: redvote.Folded = hot.fold(max=1000)
while step.left > 0:
    step = hot.fold()
until: int = step.until
page_folded: "int | None" = hot.top("stars")[0].folded
version: str = redvote.VERSION
later: redvote.aio.Campaign = redvote.aio.Campaign(redis.asyncio.Redis(), "spring2026")
"""


def test_mypy_strict_passes_on_a_program_using_the_package(tmp_path):
    program = tmp_path / "program.py"
    program.write_text(USER_PROGRAM, encoding="utf-8")
    done = subprocess.run(
        mypy_strict(tmp_path, str(program)),
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_package_exports_every_reply_type():
    assert set(redvote.types.__all__) <= set(redvote.__all__)
    assert len(redvote.__all__) == len(set(redvote.__all__))
    missing = [name for name in redvote.__all__ if not hasattr(redvote, name)]
    assert not missing
