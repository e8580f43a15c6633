"""The packaged scripts (SHA1 against the manifest), the Scripts registry
(EVALSHA, NOSCRIPT after SCRIPT FLUSH), and the coverage of the typed calls."""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import shutil
from pathlib import Path

import pytest

import redvote
import redvote.aio
from redvote import _calls
from redvote._lua import load_scripts

from conftest import PACKAGE_ROOT, REPO_ROOT

# the installed package's scripts (the build hook copied them from lua/)
PACKAGED = Path(redvote.__file__).resolve().parent / "lua"


def test_every_packaged_script_hashes_to_its_manifest_sha1():
    manifest = json.loads((PACKAGED / "manifest.json").read_text())
    assert manifest["scripts"], "an empty manifest"
    for entry in manifest["scripts"]:
        data = (PACKAGED / Path(entry["file"]).name).read_bytes()
        assert hashlib.sha1(data).hexdigest() == entry["sha1"], entry["name"]
    # and what the installed package loaded is the same
    assert {n: s.sha1 for n, s in redvote.SCRIPTS.items()} == {e["name"]: e["sha1"] for e in manifest["scripts"]}


def test_the_installed_scripts_are_the_checkouts_and_nothing_else():
    lua = REPO_ROOT / "lua"
    if not (lua / "manifest.json").exists():
        pytest.fail(f"no {lua}/manifest.json: run the tests from a redvote checkout")
    manifest = json.loads((lua / "manifest.json").read_text())
    wanted = {Path(e["file"]).name for e in manifest["scripts"]} | {"manifest.json"}
    assert {p.name for p in PACKAGED.iterdir()} == wanted
    for name in sorted(wanted):
        assert (PACKAGED / name).read_bytes() == (lua / name).read_bytes(), (
            f"the installed {name} differs from lua/{name}: reinstall the package (pip install ./bindings/python)"
        )
    # the package reads its own copy, never the checkout's lua/
    assert not PACKAGED.is_relative_to(REPO_ROOT / "lua")


def test_a_changed_script_is_refused_at_load(tmp_path):
    copy = tmp_path / "lua"
    shutil.copytree(PACKAGED, copy)
    manifest, scripts = load_scripts(copy)
    assert set(scripts) == set(redvote.SCRIPTS)
    vote = copy / "vote.lua"
    vote.write_bytes(vote.read_bytes() + b"-- changed\n")
    with pytest.raises(redvote.ScriptMismatch, match=r"vote\.lua: SHA1 [0-9a-f]{40}, manifest says"):
        load_scripts(copy)
    vote.unlink()
    with pytest.raises(redvote.ScriptMismatch, match="vote.lua: missing"):
        load_scripts(copy)


def test_the_package_version_is_the_manifests():
    pyproject = (PACKAGE_ROOT / "pyproject.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M)
    assert version and version.group(1) == redvote.MANIFEST["redvote"] == redvote.__version__


def test_every_manifest_script_has_a_typed_call():
    unbound = sorted(set(redvote.SCRIPTS) - set(_calls.BOUND))
    assert not unbound, f"scripts without a typed call in redvote/_calls.py: {unbound}"
    owners = {
        "Site": (_calls.SiteCalls, redvote.Site, redvote.aio.Site),
        "Campaign": (_calls.CampaignCalls, redvote.Campaign, redvote.aio.Campaign),
        "Registry": (_calls.RegistryCalls, redvote.CampaignRegistry, redvote.aio.CampaignRegistry),
    }
    for script, where in _calls.BOUND.items():
        owner, method = where.split(".")
        calls, sync, aio = owners[owner]
        assert getattr(getattr(calls, method), "__redvote_script__") == script
        assert callable(getattr(sync, method, None)), f"{sync.__name__}.{method} missing ({script})"
        assert inspect.iscoroutinefunction(getattr(aio, method, None)), f"aio {aio.__name__}.{method} ({script})"


@pytest.mark.parametrize("name", ["Site", "Campaign", "CampaignRegistry", "Scripts", "Pipeline"])
def test_sync_and_asyncio_have_the_same_api(name):
    sync, aio = getattr(redvote, name), getattr(redvote.aio, name)
    public = lambda cls: {m for m in dir(cls) if not m.startswith("_")}  # noqa: E731
    assert public(sync) - {"__enter__", "__exit__"} == public(aio)
    for method in public(sync):
        a, b = getattr(sync, method), getattr(aio, method)
        if callable(a):
            assert str(inspect.signature(a)).replace("redis.asyncio.Redis", "redis.Redis") == str(
                inspect.signature(b)
            ).replace("redis.asyncio.Redis", "redis.Redis"), f"{name}.{method}"


def test_scripts_run_by_name_and_survive_script_flush(r):
    scripts = redvote.Scripts(r)
    assert "vote" in scripts and scripts.sha1("vote") == redvote.SCRIPTS["vote"].sha1
    assert scripts["vote"].sha == redvote.SCRIPTS["vote"].sha1
    assert scripts.run("post", ["article:"], ["u", "t", "https://t"]) == 1
    site = redvote.Site(r)
    for _ in range(3):
        r.script_flush()
        assert r.script_exists(redvote.SCRIPTS["vote"].sha1) == [False]
        assert site.vote("u2", 1).votes == 2
        assert r.script_exists(redvote.SCRIPTS["vote"].sha1) == [True]
    loaded = scripts.load()
    assert loaded == {n: s.sha1 for n, s in redvote.SCRIPTS.items()}


def test_the_sha1_is_what_the_server_answers_for_the_bytes(r):
    for name, info in redvote.SCRIPTS.items():
        assert r.script_load(info.source) == info.sha1, name


def test_calls_are_plain_data():
    c = _calls.CampaignCalls("spring")
    vote = c.vote("user:1", [("b", "o")], vote_id="r1", cost=2)
    assert (vote.script, vote.keys) == ("campaign_vote", ("{c:spring}:campaign",))
    assert vote.args == ("user:1", "", "", "", "2", "r1", "b", "o")
    assert not vote.read_only and c.top("b").read_only
    assert _calls.SiteCalls("{s}:").vote("u", 7).args == ("u", "7", "up")
