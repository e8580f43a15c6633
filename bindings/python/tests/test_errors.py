"""Errors: one class per REDVOTE_* code (generated from the code table), a
refusal of each kind writes nothing (DEBUG DIGEST unchanged), other Redis
errors pass through."""

from __future__ import annotations

import json
import pickle
import re
import sys
from typing import Any, Callable, Dict, Optional

import pytest
import redis

import redvote
from redvote import errors
from redvote._calls import arg

from conftest import PACKAGE_ROOT, REPO_ROOT, digest

T = 1767225600


def manifest_codes() -> set:
    codes = {c for s in redvote.MANIFEST["scripts"] for c in s["errors"]}
    codes.add("REDVOTE_INTERNAL")
    return codes


def documented_codes() -> set:
    path = REPO_ROOT / "docs" / "errors.md"
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| ((?:`REDVOTE_[A-Z_]+`(?:, )?)+) \|", line)
        if m:
            found.update(re.findall(r"REDVOTE_[A-Z_]+", m.group(1)))
    return found


def test_every_code_has_its_class():
    wanted = manifest_codes() | documented_codes()
    missing = sorted(wanted - set(errors.BY_CODE))
    assert not missing, (
        f"no exception class for {missing}: run python3 bindings/python/tools/gen_errors.py"
    )
    for code in wanted:
        cls = errors.BY_CODE[code]
        assert cls.CODE == code and issubclass(cls, errors.RedvoteError)
        assert issubclass(cls, redis.exceptions.ResponseError)
        assert cls.__name__ == "".join(w.capitalize() for w in code[8:].split("_"))
        assert getattr(errors, cls.__name__) is cls


def test_the_generated_file_is_the_generators_output():
    sys.path.insert(0, str(PACKAGE_ROOT / "tools"))
    try:
        import gen_errors
    finally:
        sys.path.pop(0)
    current = (PACKAGE_ROOT / "src" / "redvote" / "_codes.py").read_text(encoding="utf-8")
    assert current == gen_errors.render(), "run python3 bindings/python/tools/gen_errors.py"


def test_messages_convert_to_their_class():
    e = errors.from_message("REDVOTE_UNKNOWN_ARTICLE article 9 does not exist")
    assert isinstance(e, errors.UnknownArticle)
    assert (e.code, e.detail) == ("REDVOTE_UNKNOWN_ARTICLE", "article 9 does not exist")
    assert str(e) == "REDVOTE_UNKNOWN_ARTICLE article 9 does not exist"
    assert pickle.loads(pickle.dumps(e)).detail == e.detail
    piped = errors.from_message("Command # 2 (EVALSHA abc 1 article: u 1:x) of pipeline caused error: REDVOTE_INVALID_ID x")
    assert isinstance(piped, errors.InvalidId) and piped.detail == "x"
    future = errors.from_message("REDVOTE_SOMETHING_NEW later")
    assert type(future) is errors.RedvoteError and future.code == "REDVOTE_SOMETHING_NEW"
    assert errors.from_message("WRONGTYPE Operation against a key") is None
    plain = redis.exceptions.ResponseError("ERR unknown")
    assert errors.convert(plain) is plain


@pytest.fixture
def state(r):
    site = redvote.Site(r)
    site.post("u", "old", "https://x", time=1000)  # article 1: its window closed long ago
    site.post("u", "new", "https://y")  # article 2
    c = redvote.Campaign(r, "g")
    c.configure({
        "vote_id_ttl": 3600,
        "limits": [{"name": "one-a-day", "by": ["user"], "window": "day", "limit": 1}],
        "deny": {"users": ["user:banned"], "channels": []},
        "boards": {"b": {"periods": ["total"], "options": {"o1": {}, "o2": {}}}},
    })
    # by the server's clock: a counter of a past day would expire at once
    c.vote("spender", [("b", "o1")], vote_id="used")
    redvote.Campaign(r, "closed").configure({"start": T, "end": T + 3600, "boards": {"b": {"options": {"o": {}}}}})
    redvote.Campaign(r, "layout").configure({"boards": {"b": {"options": {"o": {}}}}})
    r.hset("{c:layout}:campaign", "layout", "999")
    r.set("{c:g}:vid:old", json.dumps(["request", []]))  # a record of 0.5: no amounts
    # a removal under way on board b of campaign rm: o2 is still on its boards
    rm = redvote.Campaign(r, "rm")
    rm.configure({"boards": {"b": {"periods": ["total"], "options": {"o1": {}, "o2": {}}}}})
    rm.vote("u", [("b", "o2")])
    rm.configure({"boards": {"b": {"remove": ["o2"]}}})
    # a buffered campaign holding more votes than one call folds (a vote
    # folds at 1000, so the buffer is written by hand, as lib/fold lays it
    # out): configure must refuse
    hot = redvote.Campaign(r, "hot")
    hot.configure({"mode": "buffered", "boards": {"b": {"periods": ["total"], "options": {"o": {}}}}})
    line = "\t".join(["1", str(T * 1000), "0", str(T), "u", "", "", "1"])
    r.rpush("{c:hot}:buf:b:o", *[line] * 1001)
    r.zadd("{c:hot}:bufs", {"b:o": T * 1000 * 64})
    r.hset("{c:hot}:campaign", mapping={"buffered": 1001, "fold_due": T * 1000 + 200})
    return {"r": r, "site": site, "c": c, "rm": rm, "hot": hot}


Case = Optional[Callable[[Dict[str, Any]], Any]]

# code -> a call refused with it
CASES: Dict[str, Case] = {
    "REDVOTE_USAGE": lambda s: redvote.Scripts(s["r"]).run("vote", ["not-the-root"], ["u", "2"]),
    "REDVOTE_INVALID_USER": lambda s: s["c"].vote("", [("b", "o1")], time=T),
    "REDVOTE_INVALID_VOTE_ID": lambda s: s["c"].vote("u", [("b", "o1")], time=T, vote_id="bad\x01id"),
    "REDVOTE_VOTE_ID_REUSED": lambda s: s["c"].vote("spender", [("b", "o2")], vote_id="used"),
    "REDVOTE_UNKNOWN_VOTE": lambda s: s["c"].void("never"),
    "REDVOTE_INVALID_CURSOR": lambda s: s["rm"].remove_step("b", "1|shown:total|1"),
    "REDVOTE_NOT_VOIDABLE": lambda s: s["c"].void("old"),
    "REDVOTE_INVALID_ID": lambda s: s["site"].vote("u2", "1:x"),
    "REDVOTE_INVALID_TEXT": lambda s: s["site"].post("u", "", "https://x"),
    "REDVOTE_INVALID_NUMBER": lambda s: s["site"].page("score", 0),
    "REDVOTE_INVALID_VOTE": lambda s: s["site"].vote("u2", 2, "sideways"),
    "REDVOTE_INVALID_ORDER": lambda s: s["site"].page("random", 1),
    "REDVOTE_INVALID_GROUP": lambda s: s["site"].groups(2, add=["a b"]),
    "REDVOTE_INVALID_CONFIG": lambda s: s["site"].configure(page_size=0),
    "REDVOTE_CONFIG_LOCKED": lambda s: s["site"].configure(vote_score=1),
    "REDVOTE_UNKNOWN_ARTICLE": lambda s: s["site"].vote("u2", 99),
    "REDVOTE_VOTING_CLOSED": lambda s: s["site"].vote("u2", 1),
    "REDVOTE_INVALID_NAME": lambda s: s["c"].top("a b", time=T),
    "REDVOTE_INVALID_PERIOD": lambda s: s["c"].top("b", period="year", time=T),
    "REDVOTE_UNKNOWN_CAMPAIGN": lambda s: redvote.Campaign(s["r"], "nope").top("b", time=T),
    "REDVOTE_UNKNOWN_BOARD": lambda s: s["c"].top("nope", time=T),
    "REDVOTE_UNKNOWN_OPTION": lambda s: s["c"].vote("u", [("b", "nope")], time=T),
    "REDVOTE_CAMPAIGN_CLOSED": lambda s: redvote.Campaign(s["r"], "closed").vote("u", [("b", "o")], time=T + 7200),
    "REDVOTE_OUT_OF_RANGE": lambda s: s["c"].import_("b", {"o1": "9007199254740993"}, time=T),
    "REDVOTE_RATE_LIMITED": lambda s: s["c"].vote("spender", [("b", "o2")]),
    "REDVOTE_DENIED": lambda s: s["c"].vote("user:banned", [("b", "o1")], time=T),
    "REDVOTE_LAYOUT_VERSION": lambda s: redvote.Campaign(s["r"], "layout").top("b", time=T),
    "REDVOTE_UNFOLDED": lambda s: s["hot"].configure({"boards": {"b": {"options": {"o": {"weight": 2}}}}}),
    "REDVOTE_INTERNAL": None,  # Redis refusing a command inside a script, or a bug: no input reaches it
}


def test_every_code_of_the_manifest_has_a_refusal_case():
    assert sorted(CASES) == sorted(manifest_codes())


@pytest.mark.parametrize("code", sorted(c for c, call in CASES.items() if call is not None))
def test_a_refusal_is_its_class_and_writes_nothing(state, code):
    call = CASES[code]
    assert call is not None
    before = digest(state["r"])
    with pytest.raises(errors.RedvoteError) as refused:
        call(state)
    assert refused.value.code == code, str(refused.value)
    assert isinstance(refused.value, errors.error_class(code))
    assert isinstance(refused.value.detail, str)
    assert digest(state["r"]) == before, f"{code}: DEBUG DIGEST changed"


def test_a_rate_limit_refusal_carries_its_json_detail(state):
    with pytest.raises(errors.RateLimited) as refused:
        state["c"].vote("spender", [("b", "o2")])
    assert refused.value.info["rule"] == "one-a-day"
    assert isinstance(refused.value.info["retry_after"], int)


def test_other_redis_errors_pass_through(state, server):
    r = state["r"]
    r.set("plain", "x")
    with pytest.raises(redis.exceptions.ResponseError) as wrong:
        r.hget("plain", "f")
    assert not isinstance(wrong.value, errors.RedvoteError)
    # a registry of the wrong type is the script's own refusal
    r.set("{c}:campaigns", "a string")
    with pytest.raises(errors.InvalidConfig):
        redvote.CampaignRegistry(r).register("x")
    # a server that is not there: redis-py's ConnectionError, untouched
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    gone = redis.Redis(port=1, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))
    with pytest.raises(redis.exceptions.ConnectionError):
        redvote.Site(gone).config()


def test_a_bool_is_not_an_argument():
    with pytest.raises(TypeError):
        arg(True)
