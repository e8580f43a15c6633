"""Typed calls in pipelines (MULTI/EXEC or not), raw scripts on a redis-py
pipeline, and NOSCRIPT in a pipeline after SCRIPT FLUSH."""

from __future__ import annotations

import pytest

import redvote
from redvote import errors

from conftest import digest

T = 1767225600
DOC = {"boards": {"stars": {"options": {"wy": {}, "zly": {}}}}}


@pytest.mark.parametrize("transaction", [True, False])
def test_typed_calls_in_one_pipeline(r, transaction):
    spring = redvote.Campaign(r, "spring")
    site = redvote.Site(r)
    pipe = redvote.Pipeline(r, transaction=transaction)
    configured = pipe.add(spring.calls.configure(DOC))
    ballots = pipe.add(spring.calls.vote("user:1", [("stars", "wy")], time=T))
    pipe.add(spring.calls.vote("user:2", [("stars", "wy"), ("stars", "zly")], time=T))
    top = pipe.add(spring.calls.top("stars", time=T))
    posted = pipe.add(site.calls.post("u", "t", "https://t"))
    raw = pipe.command("ZCARD", "{c:spring}:b:stars:real:total")
    assert len(pipe) == 6
    results = pipe.execute()
    assert len(results) == 6
    assert configured.result().options == 2
    assert ballots.result()[0].scores == {"total": "1.00"}
    assert [(m.member, m.score) for m in top.result()[0].members] == [("wy", "2.00"), ("zly", "1.00")]
    assert results[3] == top.result() and posted.result() == 1 and raw.result() == 2


def test_a_refusal_in_a_pipeline_is_its_class_and_the_others_run(r):
    spring = redvote.Campaign(r, "spring")
    spring.configure(DOC)
    with spring.pipeline() as pipe:
        good = pipe.add(spring.calls.vote("user:1", [("stars", "wy")], time=T))
        bad = pipe.add(spring.calls.vote("user:1", [("stars", "nope")], time=T))
        with pytest.raises(errors.UnknownOption):
            pipe.execute()
    assert good.result()[0].option == "wy"
    with pytest.raises(errors.UnknownOption) as refused:
        bad.result()
    assert refused.value.code == "REDVOTE_UNKNOWN_OPTION"

    pipe = redvote.Pipeline(r)
    pipe.add(spring.calls.top("nope", time=T))
    pipe.add(spring.calls.top("stars", time=T))
    out = pipe.execute(raise_on_error=False)
    assert isinstance(out[0], errors.UnknownBoard) and out[1][0].board == "stars"


def test_a_pending_call_has_no_value_before_the_pipeline_ran(r):
    pending = redvote.Pipeline(r).add(redvote.Site(r).calls.config())
    assert not pending.done
    with pytest.raises(RuntimeError):
        pending.result()


def test_pipelines_load_the_scripts_after_script_flush(r):
    spring = redvote.Campaign(r, "spring")
    spring.configure(DOC)
    for transaction in (True, False):
        r.script_flush()
        pipe = redvote.Pipeline(r, transaction=transaction)
        pipe.add(spring.calls.vote("user:1", [("stars", "wy")], time=T))
        pipe.add(spring.calls.top("stars", time=T))
        ballots, pages = pipe.execute()
        assert pages[0].members[0].member == "wy"


def test_scripts_run_on_a_redis_py_pipeline(r):
    scripts = redvote.Scripts(r)
    r.script_flush()
    pipe = r.pipeline()
    assert scripts.run("post", ["article:"], ["u", "t", "https://t"], client=pipe) is pipe
    scripts.run("vote", ["article:"], ["u2", "1"], client=pipe)
    scripts.run("vote", ["article:"], ["u2", "1:x"], client=pipe)
    posted, voted, refused = pipe.execute(raise_on_error=False)
    assert posted == 1 and voted[0] == 1
    assert isinstance(errors.convert(refused), errors.InvalidId)


def test_a_refused_pipeline_call_writes_nothing(r):
    redvote.Site(r).post("u", "t", "https://t")
    before = digest(r)
    pipe = redvote.Pipeline(r)
    pipe.add(redvote.Site(r).calls.vote("", 1))
    pipe.add(redvote.Site(r).calls.vote("u", 99))
    out = pipe.execute(raise_on_error=False)
    assert [type(e) for e in out] == [errors.InvalidUser, errors.UnknownArticle]
    assert digest(r) == before
