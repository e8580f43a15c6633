"""The typed calls read the same under RESP2 and RESP3 (redis-py 8 speaks
RESP3 by default, redis-py 4 RESP2 only), str or bytes replies."""

from __future__ import annotations

import inspect

import pytest
import redis

import redvote

T = 1767225600
PROTOCOLS = [2, 3] if "protocol" in inspect.signature(redis.Redis.__init__).parameters else [None]


@pytest.mark.parametrize("decode", [True, False])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_same_replies_whatever_the_protocol(server, protocol, decode):
    kwargs = {"protocol": protocol} if protocol else {}
    r = server.client(decode_responses=decode, **kwargs)
    r.flushall()
    site = redvote.Site(r)
    site.post("u", "t", "https://t")
    voted = site.vote("u2", 1)
    assert voted.votes == 2
    page = site.page(with_scores=True)
    assert page.articles[0].fields["title"] == "t" and float(page.articles[0].score or 0) == float(voted.score)
    assert site.article(1).score == voted.score
    spring = redvote.Campaign(r, "p")
    spring.configure({"boards": {"b": {"periods": ["day", "total"], "options": {"o": {}}}}})
    (ballot,) = spring.vote("u", [("b", "o")], time=T, vote_id="x", channel="web")
    assert ballot.scores == {"day:2026-01-01": "1.00", "total": "1.00"}
    assert spring.top("b", time=T)[0].members[0].score == "1.00"
    assert spring.stats("b", "day", T, T + 86400)[0].channels == {"web": 1}
    assert spring.settings()["boards"]["b"]["periods"] == ["day", "total"]
    pipe = redvote.Pipeline(r)
    cfg = pipe.add(site.calls.config())
    pipe.execute()
    assert cfg.result().page_size == 25
    r.close()
