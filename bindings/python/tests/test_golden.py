"""The golden cases (tests/golden/README.md at the repository root): every
``tests/golden/*.json`` is one pytest item, run on a FLUSHALLed database,
its steps in order; a failing item names each failing step as
``file: step name: expected ..., got ...``. ``golden_sample/`` holds this
runner's own small cases. REDVOTE_GOLDEN_DIR runs another directory."""

from __future__ import annotations

import inspect
import json
import os
import re
from pathlib import Path
from typing import Any, List, Tuple

import pytest
import redis

import redvote

from conftest import GOLDEN_TALLY, HERE, REPO_ROOT, Server, digest

GOLDEN_DIR = Path(os.environ.get("REDVOTE_GOLDEN_DIR") or REPO_ROOT / "tests" / "golden")
SAMPLE_DIR = HERE / "golden_sample"
GOLDEN = sorted(GOLDEN_DIR.glob("*.json"))
SAMPLES = sorted(SAMPLE_DIR.glob("*.json"))

STEP_KEYS = {"name", "script", "command", "keys", "args", "expect", "unchanged"}
NOW = re.compile(r"\$\{now(?:([+-])(\d+))?\}")
DIGITS = re.compile(r"[0-9]+")


def raw_client(server: Server) -> "redis.Redis":
    """A client answering RESP2 as it comes: no response callbacks (SET is
    "OK", not True), strings decoded."""
    # redis-py 5 takes protocol= (and redis-py 8 defaults to RESP3); older
    # ones speak RESP2 only
    kwargs = {"protocol": 2} if "protocol" in inspect.signature(redis.Redis.__init__).parameters else {}
    client = server.client(decode_responses=True, **kwargs)
    client.response_callbacks.clear()
    return client


def server_now(client: "redis.Redis") -> int:
    seconds, _ = client.execute_command("TIME")
    return int(seconds)


def substitute(values: List[Any], client: "redis.Redis") -> List[str]:
    out = []
    for v in values:
        if not isinstance(v, str):
            raise ValueError(f"arguments are strings, got {v!r}")
        if "${now" in v:
            now = server_now(client)

            def repl(m: "re.Match[str]") -> str:
                n = int(m.group(2) or 0)
                return str(now + n if m.group(1) == "+" else now - n)

            v = NOW.sub(repl, v)
        out.append(v)
    return out


def as_json(value: Any) -> Any:
    """A reply as the README writes it."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value


def matches(expected: Any, got: Any) -> bool:
    if isinstance(expected, dict):
        if set(expected) != {"$type"}:
            raise ValueError(f"an object in a reply must be {{\"$type\": ...}}, got {expected!r}")
        kind = expected["$type"]
        if kind == "any":
            return True
        if kind == "integer":
            return isinstance(got, int) and not isinstance(got, bool)
        if kind == "string":
            return isinstance(got, str)
        if kind == "digits":
            return isinstance(got, str) and DIGITS.fullmatch(got) is not None
        if kind == "array":
            return isinstance(got, list)
        raise ValueError(f"unknown $type {kind!r}")
    if isinstance(expected, list):
        return isinstance(got, list) and len(got) == len(expected) and all(
            matches(e, g) for e, g in zip(expected, got)
        )
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got
    return type(expected) is type(got) and expected == got


def error_code(error: Exception) -> str:
    if isinstance(error, redvote.RedvoteError):
        return error.code
    message = str(error)
    status = getattr(error, "status_code", None)  # redis-py strips ERR, NOSCRIPT, ... from the message
    return status or (message.split(" ")[0] if message else type(error).__name__)


def run_case(path: Path, server: Server) -> Tuple[int, List[str]]:
    """Run one file; answer the steps run and the failures."""
    case = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(case.get("steps"), list) or not case["steps"]:
        return 0, [f"{path.name}: no steps"]
    client = raw_client(server)
    scripts = redvote.Scripts(client)
    client.flushall()
    failures: List[str] = []
    ran = 0
    try:
        for i, step in enumerate(case["steps"]):
            name = step.get("name", f"step {i + 1}")
            where = f"{path.name}: {name}"
            ran += 1
            unknown = set(step) - STEP_KEYS
            if unknown or ("script" in step) == ("command" in step):
                failures.append(f"{where}: malformed step (script xor command; unknown fields {sorted(unknown)})")
                continue
            expect = step.get("expect")
            if "script" in step and expect is None:
                failures.append(f"{where}: a script step without expect")
                continue
            if expect is not None and (not isinstance(expect, dict) or len(expect) != 1 or not set(expect) <= {"reply", "error"}):
                failures.append(f"{where}: expect must be exactly one of reply, error: {expect!r}")
                continue
            before = digest(client) if step.get("unchanged") else None
            try:
                if "script" in step:
                    if step["script"] not in scripts:
                        failures.append(f"{where}: no script {step['script']!r} in the manifest")
                        continue
                    keys = substitute(step.get("keys", []), client)
                    args = substitute(step.get("args", []), client)
                    reply: Any = scripts.run(step["script"], keys, args)
                else:
                    reply = client.execute_command(*substitute(step["command"], client))
                outcome: Tuple[str, Any] = ("reply", as_json(reply))
            except redis.exceptions.ResponseError as e:
                outcome = ("error", error_code(e))
            if expect is not None:
                (kind, wanted), = expect.items()
                if kind == "reply":
                    ok = outcome[0] == "reply" and matches(wanted, outcome[1])
                else:
                    ok = outcome == ("error", wanted)
                if not ok:
                    got = f"reply {json.dumps(outcome[1])}" if outcome[0] == "reply" else f"error {outcome[1]}"
                    failures.append(f"{where}: expected {kind} {json.dumps(wanted)}, got {got}")
            if before is not None:
                after = digest(client)
                if after != before:
                    failures.append(f"{where}: expected DEBUG DIGEST unchanged, got {before} -> {after}")
    finally:
        client.close()
    return ran, failures


def check(path: Path, server: Server) -> None:
    ran, failures = run_case(path, server)
    GOLDEN_TALLY["files"][0] += 1
    GOLDEN_TALLY["steps"][0] += ran
    if failures:
        pytest.fail(f"{len(failures)} of {ran} steps failed:\n" + "\n".join(failures), pytrace=False)


def test_the_golden_cases_are_there() -> None:
    # a missing or mistyped directory must fail, not collect zero cases
    assert GOLDEN, "no golden cases (*.json) found: run the tests from the repository, or set REDVOTE_GOLDEN_DIR"


@pytest.mark.parametrize("path", GOLDEN, ids=[p.name for p in GOLDEN])
def test_golden(path: Path, server: Server) -> None:
    check(path, server)


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_golden_sample(path: Path, server: Server) -> None:
    check(path, server)


def test_digits_matches_a_string_of_decimal_digits_only() -> None:
    digits = {"$type": "digits"}
    assert matches(digits, "1931515200123") and matches(digits, "0")
    assert not any(matches(digits, v) for v in ("", "12a", "-1", "1.5", " 1", 12, None, ["1"]))


def test_the_runner_reports_failing_steps_by_name(tmp_path: Path, server: Server) -> None:
    case = {
        "about": "a case that fails on purpose",
        "steps": [
            {"name": "post", "script": "post", "keys": ["article:"], "args": ["u", "t", "https://t"], "expect": {"reply": 2}},
            {"name": "refused", "script": "vote", "keys": ["article:"], "args": ["u", "1:x"], "expect": {"error": "REDVOTE_UNKNOWN_ARTICLE"}},
            {"name": "writes", "script": "vote", "keys": ["article:"], "args": ["u2", "1"], "expect": {"reply": {"$type": "array"}}, "unchanged": True},
            {"name": "no expect", "script": "config", "keys": ["article:"], "args": []},
        ],
    }
    path = tmp_path / "failing.json"
    path.write_text(json.dumps(case))
    ran, failures = run_case(path, server)
    assert ran == 4
    assert failures[0] == "failing.json: post: expected reply 2, got reply 1"
    assert failures[1] == "failing.json: refused: expected error \"REDVOTE_UNKNOWN_ARTICLE\", got error REDVOTE_INVALID_ID"
    assert failures[2].startswith("failing.json: writes: expected DEBUG DIGEST unchanged")
    assert failures[3] == "failing.json: no expect: a script step without expect"
