"""The article site's typed calls (redvote.Site) against a throwaway server."""

from __future__ import annotations

import redvote
from redvote import errors


def test_post_vote_and_read_an_article(r):
    site = redvote.Site(r)
    one = site.post("user:1", "Hello Redis", "https://example.com/hello")
    assert one == 1
    up = site.vote("user:2", 1)
    assert up.changed and up.previous == "none" and up.vote == "up"
    assert (up.votes, up.downvotes) == (2, 0)
    again = site.vote("user:2", "article:1")
    assert not again.changed and again.votes == 2 and again.score == up.score
    down = site.vote("user:3", 1, "down")
    assert down.downvotes == 1 and int(down.score) == int(up.score) - 432
    none = site.vote("user:3", 1, "none")
    assert none.previous == "down" and none.downvotes == 0

    article = site.article(1, "user:2")
    assert article.id == 1 and article.rank == 1 and article.vote == "up"
    assert article.title == "Hello Redis" and article.poster == "user:1"
    assert article.votes == 2 and article.score == none.score
    assert site.article("article:1").vote == ""


def test_pages_in_every_order_and_with_scores(r):
    site = redvote.Site(r)
    site.configure(rankings=["hot", "best"])
    for i in range(1, 6):
        site.post(f"user:{i}", f"title {i}", f"https://example.com/{i}")
    site.vote("user:9", 3)
    page = site.page("score", 1, 2)
    assert (page.total, page.per_page, page.page) == (5, 2, 1)
    assert [a.member for a in page.articles] == ["article:3", "article:5"]
    assert page.articles[0].title == "title 3" and page.articles[0].id == 3 and page.articles[0].votes == 2
    assert page.articles[0].score is None
    scored = site.page("score", 1, 2, with_scores=True)
    assert scored.articles[0].score is not None
    assert float(scored.articles[0].score) == float(site.article(3).score or 0)
    assert len(site.page("time").articles) == 5
    assert site.page("hot", 1, 1).articles[0].member == "article:3"
    assert site.page("best", 9).articles == []


def test_groups_and_group_pages(r):
    site = redvote.Site(r)
    site.post("user:1", "a", "https://a")
    site.post("user:1", "b", "https://b")
    change = site.groups(1, add=["redis", "lua"])
    assert (change.added, change.removed) == (2, 0)
    site.groups(2, add="redis")
    assert site.groups(1, remove=["lua"]).removed == 1
    assert site.groups(1, add=["redis"]).added == 0
    page = site.group_page("redis", "time")
    assert page.group == "redis" and page.total == 2
    assert [a.member for a in page.articles] == ["article:2", "article:1"]
    assert site.group_page("lua").articles == []


def test_configure_config_and_rerank(r):
    site = redvote.Site(r)
    config = site.config()
    assert (config.vote_score, config.window, config.page_size, config.rankings) == (432, 604800, 25, ())
    changed = site.configure(page_size=10, window=3600)
    assert changed.page_size == 10 and changed.window == 3600
    assert site.config() == changed
    for i in range(3):
        site.post("user:1", f"t{i}", f"https://t/{i}")
    site.configure(rankings="hot")
    assert site.config().rankings == ("hot",)
    assert r.zcard("hot:") == 0
    done = site.rerank(0, 2)
    assert (done.ranked, done.next) == (2, 2)
    assert site.rerank(done.next, 2).next == 0
    assert r.zcard("hot:") == 3
    try:
        site.configure(vote_score=10)
    except errors.ConfigLocked as e:
        assert e.code == "REDVOTE_CONFIG_LOCKED"
    else:
        raise AssertionError("vote_score changed after articles")


def test_a_prefixed_site_keeps_its_own_keys(r):
    site = redvote.Site(r, "{s1}:")
    site.post("user:1", "t", "https://t")
    assert r.exists("{s1}:article:1") and not r.exists("article:1")
    assert site.page().articles[0].member == "article:1"


def test_bytes_replies_parse_the_same(rb):
    site = redvote.Site(rb)
    site.post("user:1", "t", "https://t")
    assert site.article(1).title == "t"
    assert site.page().articles[0].fields["title"] == "t"
    assert site.config().page_size == 25


def test_upgrade_moves_a_site_to_layout_2(r):
    site = redvote.Site(r, prefix="up:")
    # a new site starts at layout 2: ask for layout 1 first, as the seeds' data is
    r.hset("up:redvote:config", "layout", "1")
    site.post("u", "a", "https://a")
    site.post("u", "b", "https://b")
    site.groups(1, add=["g"])
    site.groups(2, add=["g"])
    step, calls = site.upgrade("0", 1), 1
    while step.next != "0":
        step, calls = site.upgrade(step.next, 1), calls + 1
    assert calls > 1 and (step.from_, step.to) == (1, 2)
    assert r.hget("up:redvote:config", "layout") in (b"2", "2")
    site.vote("v", 2)
    page = site.group_page("g")
    assert [a.member for a in page.articles] == ["article:2", "article:1"]
    again = site.upgrade()
    assert (again.from_, again.to, again.next) == (2, 2, "0")
