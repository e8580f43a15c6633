"""Exactly once without a vote id: a campaign vote the caller sent without
``vote_id`` still counts once when redis-py resends it after a dropped
connection (its default retry), in the sync flavour, in a pipeline and in
asyncio. The vote ids the package makes are also checked here: one per
call, carried by the ballots, and channel, device and cost are part of an
id's identity."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import Counter
from typing import Dict, List, Set, Tuple

import pytest
import redis
import redis.asyncio

import redvote
import redvote.aio
from redvote import errors

from conftest import Server, digest

OPTIONS_A_BOARD = 1000  # campaign_configure takes at most 1000 options a call
BOARDS = 12
#: the storm runs until this many resends were answered as replays...
ENOUGH_RESENDS = 25
#: ...and at least this long, at most that long (seconds)
AT_LEAST, AT_MOST = 2.0, 6.0


def slot(i: int) -> Tuple[str, str]:
    """Vote i's own (board, option): its real count is how often it was applied."""
    return f"b{i // OPTIONS_A_BOARD}", f"o{i % OPTIONS_A_BOARD}"


def make_campaign(admin: "redis.Redis", name: str) -> None:
    spring = redvote.Campaign(admin, name)
    for b in range(BOARDS):
        options = {f"o{j}": {} for j in range(OPTIONS_A_BOARD)}
        spring.configure({"boards": {f"b{b}": {"options": options}}})


def applied_counts(admin: "redis.Redis", name: str, sent: int) -> Dict[int, int]:
    """How many times each of votes 0..sent-1 was applied: its option's real
    score on its board."""
    spring = redvote.Campaign(admin, name)
    counts: Dict[int, int] = {}
    for start in range(0, sent, 100):
        chunk = list(range(start, min(sent, start + 100)))
        board = slot(chunk[0])[0]
        assert all(slot(i)[0] == board for i in chunk)
        for i, row in zip(chunk, spring.standing(board, [slot(i)[1] for i in chunk], kind="real")):
            counts[i] = int(row.score) if row.score is not None else 0
    return counts


class Storm:
    """A thread on a connection of its own that kills every other client
    connection (``CLIENT KILL TYPE normal SKIPME yes``) every 5 ms."""

    def __init__(self, server: Server) -> None:
        self.killer = server.client()
        self.stop = threading.Event()
        self.killed = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            self.killed += int(self.killer.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"))
            self.stop.wait(0.005)

    def __enter__(self) -> "Storm":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(10)
        self.killer.close()


class Tally:
    """What the voter saw: the votes acknowledged, those whose call raised,
    and how many acknowledged ballots were replays of a resend."""

    def __init__(self) -> None:
        self.acked: Set[int] = set()
        self.failed: Set[int] = set()
        self.replays = 0
        self.sent = 0
        self.started = time.monotonic()

    def more(self) -> bool:
        elapsed = time.monotonic() - self.started
        if self.sent >= BOARDS * OPTIONS_A_BOARD or elapsed >= AT_MOST:
            return False
        return elapsed < AT_LEAST or self.replays < ENOUGH_RESENDS

    def settle(self, votes: List[int], ballots: List[List[redvote.Ballot]]) -> None:
        for i, b in zip(votes, ballots):
            self.acked.add(i)
            self.replays += sum(1 for ballot in b if ballot.replay)


DROPPED = (redis.ConnectionError, redis.TimeoutError)

T0 = 1767225600  # 2026-01-01T00:00:00Z
DOC = {"vote_log": 100, "boards": {"stars": {"options": {"wy": {"weight": 2}, "zly": {}}}}}


@pytest.fixture
def spring(r: "redis.Redis") -> redvote.Campaign:
    campaign = redvote.Campaign(r, "spring")
    campaign.configure(DOC)
    return campaign


def real_count(spring: redvote.Campaign, option: str) -> str:
    return spring.standing("stars", option, kind="real", time=T0)[0].score or "0"


def test_a_vote_without_an_id_gets_one_of_its_own(spring: redvote.Campaign, r: "redis.Redis") -> None:
    first = spring.vote("user:1", [("stars", "wy"), ("stars", "zly")], time=T0)
    second = spring.vote("user:1", [("stars", "wy")], time=T0)
    before = r.execute_command("DEBUG", "DIGEST")
    with pytest.raises(errors.InvalidVoteId):
        spring.vote("user:1", [("stars", "wy")], time=T0, vote_id="")
    assert r.execute_command("DEBUG", "DIGEST") == before, "an empty id wrote"
    ids = [first[0].vote_id, second[0].vote_id]
    assert first[1].vote_id == ids[0]
    assert all(re.fullmatch(r"auto-[0-9a-f]{32}", str(i)) for i in ids) and len(set(ids)) == 2
    assert not any(b.replay for b in first + second)
    assert real_count(spring, "wy") == "2"
    # the script keeps the id's record for the campaign's vote_id_ttl (86400 s by default)
    assert 86000 < r.ttl(f"{spring.namespace}vid:{ids[1]}") <= 86400
    voided = spring.void(str(ids[1]))
    assert voided.status == "voided" and real_count(spring, "wy") == "1"


def test_a_call_object_is_one_vote_however_often_it_runs(spring: redvote.Campaign, r: "redis.Redis") -> None:
    call = spring.calls.vote("user:2", [("stars", "zly")], time=T0)
    scripts = redvote.scripts_for(r)
    first, again = scripts.call(call), scripts.call(call)
    assert not first[0].replay and again[0].replay and again[0].vote_id == first[0].vote_id
    pipe = redvote.Pipeline(r)
    one, other = pipe.add(call), pipe.add(spring.calls.vote("user:2", [("stars", "zly")], time=T0))
    pipe.execute()
    assert one.result()[0].replay and not other.result()[0].replay
    assert real_count(spring, "zly") == "2"


def test_a_caller_id_is_the_ballots_id(spring: redvote.Campaign) -> None:
    ballots = spring.vote("user:3", [("stars", "wy")], time=T0, vote_id="req-7")
    assert ballots[0].vote_id == "req-7" and not ballots[0].replay
    assert spring.vote("user:3", [("stars", "wy")], time=T0, vote_id="req-7")[0].replay
    # the id is not part of a ballot's equality: the ballots of two votes can be compared
    assert ballots[0] == redvote.Ballot("stars", "wy", ballots[0].scores)


@pytest.mark.parametrize("other", [{"channel": "app"}, {"device": "mobile"}, {"cost": 2}, {"time": T0 + 1}])
def test_channel_device_cost_and_time_are_part_of_an_ids_identity(
    spring: redvote.Campaign, r: "redis.Redis", other: Dict[str, object]
) -> None:
    context: Dict[str, object] = {"channel": "web", "device": "pc", "cost": 1, "time": T0}
    spring.vote("user:4", [("stars", "wy")], vote_id="req-8", **context)  # type: ignore[arg-type]
    before = digest(r)
    with pytest.raises(errors.VoteIdReused):
        spring.vote("user:4", [("stars", "wy")], vote_id="req-8", **{**context, **other})  # type: ignore[arg-type]
    assert digest(r) == before
    assert spring.vote("user:4", [("stars", "wy")], vote_id="req-8", **context)[0].replay  # type: ignore[arg-type]


def test_a_lower_vote_id_ttl_keeps_records_that_long(spring: redvote.Campaign, r: "redis.Redis") -> None:
    spring.configure({"vote_id_ttl": 600})
    ballots = spring.vote("user:5", [("stars", "wy")])
    assert 0 < r.ttl(f"{spring.namespace}vid:{ballots[0].vote_id}") <= 600


def test_asyncio_votes_get_ids_of_their_own(server: Server) -> None:
    async def body() -> List[List[redvote.Ballot]]:
        client = redis.asyncio.Redis(host="127.0.0.1", port=server.port, decode_responses=True)
        try:
            await client.flushall()
            spring = redvote.aio.Campaign(client, "spring")
            await spring.configure(DOC)
            call = spring.calls.vote("user:1", [("stars", "wy")], time=T0)
            scripts = redvote.aio.scripts_for(client)
            return [await spring.vote("user:1", [("stars", "wy")], time=T0), await scripts.call(call),
                    await scripts.call(call)]
        finally:
            await client.aclose() if hasattr(client, "aclose") else await client.close()

    plain, first, again = asyncio.run(body())
    assert plain[0].vote_id and first[0].vote_id and plain[0].vote_id != first[0].vote_id
    assert (first[0].replay, again[0].replay, again[0].vote_id) == (False, True, first[0].vote_id)


def check(admin: "redis.Redis", name: str, tally: Tally, storm: Storm) -> None:
    counts = applied_counts(admin, name, tally.sent)
    wrong = sorted(i for i in tally.acked if counts[i] != 1)
    times = Counter(counts[i] for i in wrong)
    assert not wrong, (
        f"{len(wrong)} of {len(tally.acked)} acknowledged votes were not applied exactly once "
        f"(applied n times: how many votes {dict(sorted(times.items()))}); {storm.killed} connections killed"
    )
    assert all(counts[i] <= 1 for i in tally.failed)
    assert tally.acked | tally.failed == set(range(tally.sent))
    # the storm did drop connections mid-call: resends were answered as replays
    assert storm.killed > 0 and tally.replays > 0, (storm.killed, tally.replays)


def test_sync_votes_without_ids_count_once_through_a_connection_storm(server: Server) -> None:
    admin = server.client(decode_responses=True)
    admin.flushall()
    make_campaign(admin, "storm")
    client = server.client(decode_responses=True)  # redis-py's default retry
    spring = redvote.Campaign(client, "storm")
    tally = Tally()
    with Storm(server) as storm:
        while tally.more():
            i = tally.sent
            tally.sent += 1
            try:
                tally.settle([i], [spring.vote(f"u{i}", [slot(i)])])
            except DROPPED:
                tally.failed.add(i)
    print(f"sync: {len(tally.acked)} acknowledged, {len(tally.failed)} failed, {tally.replays} replays, "
          f"{storm.killed} connections killed")
    check(admin, "storm", tally, storm)
    client.close()


def test_pipelined_votes_without_ids_count_once_through_a_connection_storm(server: Server) -> None:
    admin = server.client(decode_responses=True)
    admin.flushall()
    make_campaign(admin, "storm")
    client = server.client(decode_responses=True)
    spring = redvote.Campaign(client, "storm")
    tally = Tally()
    with Storm(server) as storm:
        while tally.more():
            votes = list(range(tally.sent, tally.sent + 5))
            tally.sent += len(votes)
            pipe = redvote.Pipeline(client)
            pending = [pipe.add(spring.calls.vote(f"u{i}", [slot(i)])) for i in votes]
            try:
                pipe.execute()
                tally.settle(votes, [p.result() for p in pending])
            except DROPPED:
                tally.failed.update(votes)
            finally:
                pipe.reset()
    print(f"pipeline: {len(tally.acked)} acknowledged, {len(tally.failed)} failed, {tally.replays} replays, "
          f"{storm.killed} connections killed")
    check(admin, "storm", tally, storm)
    client.close()


def test_asyncio_votes_without_ids_count_once_through_a_connection_storm(server: Server) -> None:
    admin = server.client(decode_responses=True)
    admin.flushall()
    make_campaign(admin, "storm")
    tally = Tally()

    async def vote_all() -> None:
        client = redis.asyncio.Redis(host="127.0.0.1", port=server.port, decode_responses=True)
        spring = redvote.aio.Campaign(client, "storm")
        while tally.more():
            i = tally.sent
            tally.sent += 1
            try:
                tally.settle([i], [await spring.vote(f"u{i}", [slot(i)])])
            except DROPPED:
                tally.failed.add(i)
        await client.aclose() if hasattr(client, "aclose") else await client.close()

    with Storm(server) as storm:
        asyncio.run(vote_all())
    print(f"asyncio: {len(tally.acked)} acknowledged, {len(tally.failed)} failed, {tally.replays} replays, "
          f"{storm.killed} connections killed")
    check(admin, "storm", tally, storm)
