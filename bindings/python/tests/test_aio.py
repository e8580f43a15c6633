"""The asyncio flavour (redvote.aio over redis.asyncio.Redis): the same
calls, awaited. Each test runs its own event loop (asyncio.run)."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio

import redvote
import redvote.aio
from redvote import errors


T = 1767225600
DOC = {"boards": {"stars": {"options": {"wy": {"weight": 2}, "zly": {}}}}}


def run(server, body):
    async def main():
        client = redis.asyncio.Redis(host="127.0.0.1", port=server.port, decode_responses=True)
        try:
            await client.flushall()
            return await body(client)
        finally:
            await client.aclose() if hasattr(client, "aclose") else await client.close()

    return asyncio.run(main())


def test_site_and_campaign_calls(server):
    async def body(r):
        site = redvote.aio.Site(r)
        assert await site.post("u", "t", "https://t") == 1
        assert (await site.vote("u2", 1)).votes == 2
        assert (await site.article(1, "u2")).vote == "up"
        page = await site.page(with_scores=True)
        assert page.articles[0].member == "article:1" and page.articles[0].score is not None
        await site.groups(1, add=["g"])
        assert (await site.group_page("g")).total == 1
        assert (await site.config()).page_size == 25

        spring = redvote.aio.Campaign(r, "spring")
        assert (await spring.configure(DOC)).options == 2
        await spring.vote("user:1", [("stars", "zly")], time=T)
        ballots = await spring.vote("user:2", [("stars", "wy")], time=T, vote_id="a1")
        replay = await spring.vote("user:2", [("stars", "wy")], time=T, vote_id="a1")
        assert replay[0].replay and replay[0].scores == ballots[0].scores
        (top,) = await spring.top("stars", time=T)
        assert [(m.member, m.score) for m in top.members] == [("wy", "2.00"), ("zly", "1.00")]
        assert (await spring.standing("stars", "zly", time=T))[0].ahead == "wy"
        assert (await spring.participants("stars", ["wy"])).options == {"wy": 1}
        hot = redvote.aio.Campaign(r, "hot")
        await hot.configure({"mode": "buffered", "fold_ms": 60000, **DOC})
        (buffered,) = await hot.vote("user:1", [("stars", "wy")], time=T)
        # folded up to the switch to buffered: nothing waited then
        assert buffered.scores == {} and isinstance(buffered.folded, int) and buffered.folded > 0
        assert (await hot.top("stars", time=T))[0].members == []
        folded = await hot.fold()
        assert (folded.folded, folded.left) == (1, 0) and isinstance(folded.until, int)
        assert [m.score for m in (await hot.top("stars", time=T))[0].members] == ["2.00"]
        reg = redvote.aio.CampaignRegistry(r)
        assert await reg.register("spring") == 1
        assert (await reg.registry()).names == ["spring"]

    run(server, body)


def test_refusals_are_their_class_and_write_nothing(server):
    async def body(r):
        site = redvote.aio.Site(r)
        await site.post("u", "t", "https://t")
        before = await r.execute_command("DEBUG", "DIGEST")
        with pytest.raises(errors.UnknownArticle) as refused:
            await site.vote("u", 99)
        assert refused.value.code == "REDVOTE_UNKNOWN_ARTICLE" and refused.value.detail
        with pytest.raises(errors.UnknownCampaign):
            await redvote.aio.Campaign(r, "nope").top("b", time=T)
        assert await r.execute_command("DEBUG", "DIGEST") == before

    run(server, body)


def test_script_flush_and_pipelines(server):
    async def body(r):
        spring = redvote.aio.Campaign(r, "spring")
        await spring.configure(DOC)
        await r.script_flush()
        assert (await spring.vote("user:1", [("stars", "wy")], time=T))[0].scores == {"total": "2.00"}
        for transaction in (True, False):
            await r.script_flush()
            async with redvote.aio.Pipeline(r, transaction=transaction) as pipe:
                voted = await pipe.add(spring.calls.vote("user:2", [("stars", "zly")], time=T))
                bad = await pipe.add(spring.calls.top("nope", time=T))
                top = await pipe.add(spring.calls.top("stars", time=T))
                count = pipe.command("ZCARD", "{c:spring}:b:stars:real:total")
                out = await pipe.execute(raise_on_error=False)
            assert isinstance(out[1], errors.UnknownBoard)
            assert voted.result()[0].option == "zly" and top.result()[0].size == 2 and count.result() == 2
            with pytest.raises(errors.UnknownBoard):
                bad.result()
        scripts = redvote.aio.Scripts(r)
        await r.script_flush()
        assert await scripts.run("campaign_settings", [spring.root]) is not None
        assert (await scripts.load())["vote"] == redvote.SCRIPTS["vote"].sha1

    run(server, body)


def test_concurrent_votes_with_ids_count_once(server):
    async def body(r):
        spring = redvote.aio.Campaign(r, "spring")
        await spring.configure(DOC)
        calls = [spring.vote(f"user:{i % 10}", [("stars", "zly")], time=T, vote_id=f"id-{i % 10}") for i in range(50)]
        results = await asyncio.gather(*calls)
        assert sum(1 for b in results if not b[0].replay) == 10
        (top,) = await spring.top("stars", time=T)
        assert top.members[0].score == "10.00"

    run(server, body)
