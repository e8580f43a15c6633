"""Campaigns and the registry (redvote.Campaign, redvote.CampaignRegistry)."""

from __future__ import annotations

import json

import pytest

import redvote
from redvote import errors

T0 = 1767225600  # 2026-01-01T00:00:00Z
DOC = {
    "vote_log": 100,
    "boards": {
        "stars": {"periods": ["day", "total"], "options": {"wy": {"weight": 2}, "zly": {}, "yyqx": {}}},
        "first": {"ties": "first", "options": {"a": {}, "b": {}}},
    },
}


@pytest.fixture
def spring(r):
    campaign = redvote.Campaign(r, "spring")
    configured = campaign.configure(DOC)
    assert (configured.boards, configured.options) == (2, 5)
    return campaign


def test_pairs_are_tuples(r):
    with pytest.raises(TypeError, match="pairs are"):
        redvote.Campaign(r, "x").vote("u", ("b", "o"))  # type: ignore[arg-type]


def test_names_and_keys(r):
    c = redvote.Campaign(r, "spring2026")
    assert c.namespace == "{c:spring2026}:" and c.root == "{c:spring2026}:campaign"
    other = redvote.Campaign(r, namespace="{x}:")
    assert other.root == "{x}:campaign" and other.name is None


def test_vote_top_standing_and_around(spring, r):
    ballots = spring.vote("user:1", [("stars", "wy"), ("stars", "zly")], time=T0)
    assert [(b.board, b.option) for b in ballots] == [("stars", "wy"), ("stars", "zly")]
    assert ballots[0].scores == {"day:2026-01-01": "2.00", "total": "2.00"}
    assert not ballots[0].replay
    spring.vote("user:2", [("stars", "zly")], time=T0, channel="web", device="pc", cost=1)
    spring.vote("user:3", [("stars", "zly")], time=T0)

    (page,) = spring.top("stars", time=T0)
    assert page.board == "stars" and page.period == "total" and page.size == 2
    assert [(m.member, m.score, m.rank) for m in page.members] == [("zly", "3.00", 1), ("wy", "2.00", 2)]
    real = spring.top(["stars"], kind="real", period="day", time=T0)[0]
    assert real.period == "day:2026-01-01" and real.members[0].score == "3"

    standing = spring.standing("stars", ["wy", "yyqx"], time=T0)
    assert standing[0].rank == 2 and standing[0].ahead == "zly" and standing[0].gap == "1.00"
    assert standing[1].rank is None and standing[1].score is None

    around = spring.around("stars", "wy", window=3, time=T0)
    assert (around.size, around.rank, around.page) == (2, 2, 1)
    assert [m.member for m in around.window] == ["zly", "wy"]
    assert around.percentile == "0.00"


def test_vote_id_replay_is_counted_once(spring):
    first = spring.vote("user:4", [("stars", "wy")], vote_id="req-1", time=T0)
    again = spring.vote("user:4", [("stars", "wy")], vote_id="req-1", time=T0)
    assert not first[0].replay and again[0].replay
    assert again[0].scores == first[0].scores
    assert spring.top("stars", time=T0)[0].members[0].score == "2.00"
    with pytest.raises(errors.VoteIdReused):
        spring.vote("user:4", [("stars", "zly")], vote_id="req-1", time=T0)


def test_import_participants_and_settings(spring):
    imported = spring.import_("stars", {"yyqx": 120, "zly": "100"}, time=T0)
    assert (imported.changed, imported.unchanged, imported.rest) == (2, 0, 0)
    assert spring.import_("stars", [("yyqx", 120)], time=T0).unchanged == 1
    assert spring.top("stars", time=T0)[0].members[0].member == "yyqx"
    spring.vote("user:1", [("stars", "wy")], time=T0)
    spring.vote("user:2", [("stars", "wy")], time=T0)
    counted = spring.participants("stars", ["wy", "zly"])
    assert counted.campaign == 2 and counted.options == {"wy": 2, "zly": 0}
    settings = spring.settings()
    assert settings["boards"]["stars"]["options"]["wy"] == {"weight": 2}
    assert spring.configure(json.dumps(settings)).boards == 2


def test_limits_and_their_reset(r):
    c = redvote.Campaign(r, "lim")
    c.configure({"limits": [{"name": "per-day", "by": ["user"], "window": "day", "limit": 1}],
                 "boards": {"b": {"options": {"o": {}}}}})
    (left,) = c.limits("user:1")
    assert (left.rule, left.remaining) == ("per-day", 1)
    c.vote("user:1", [("b", "o")])
    assert c.limits("user:1", [("b", "o")])[0].remaining == 0
    with pytest.raises(errors.RateLimited) as refused:
        c.vote("user:1", [("b", "o")])
    assert refused.value.info["rule"] == "per-day"
    assert c.limits_reset("user:1") >= 1
    assert c.limits("user:1")[0].remaining == 1


def test_stats_void_and_void_range(spring):
    spring.vote("user:1", [("stars", "wy")], time=T0, channel="web", vote_id="v1")
    spring.vote("user:2", [("stars", "zly")], time=T0, channel="app")
    spring.vote("user:2", [("stars", "zly")], time=T0, channel="app")
    (bucket,) = spring.stats("stars", "day", T0, T0 + 86400)
    assert bucket.bucket == "day:2026-01-01" and bucket.start == T0 and bucket.votes == 3
    assert bucket.channels == {"web": 1, "app": 2} and bucket.participants == 2
    voided = spring.void("v1")
    assert voided.status == "voided" and voided.changed > 0
    assert spring.void("v1").status == "already_voided"
    assert [m.member for m in spring.top("stars", time=T0)[0].members] == ["zly"]
    with pytest.raises(errors.UnknownVote):
        spring.void("nope")
    # the log's range is the server's clock when logged: a wide range
    done = spring.void_range("user", "user:2", 0, 253402300799)
    assert done.voided == 2 and done.next == "0"
    assert spring.top("stars", time=T0)[0].members == []
    assert spring.stats("stars", "day", T0, T0 + 86400)[0].voided == 3


def test_reindex_and_upgrade(spring):
    spring.vote("user:1", [("stars", "wy")], time=T0)
    settings = spring.settings()
    settings["boards"]["stars"]["ties"] = "dense"
    spring.configure(settings)
    cursor, steps = "0", 0
    while True:
        step = spring.reindex("stars", cursor, 1)
        steps += 1
        cursor = step.next
        if cursor == "0" or steps > 20:
            break
    assert cursor == "0"
    assert spring.settings()["boards"]["stars"]["ties"] == "dense"
    up = spring.upgrade()
    assert up.next == "0" and up.to >= up.from_


def test_remove_in_steps(spring):
    spring.vote("user:1", [("stars", "wy")], time=T0)
    spring.vote("user:2", [("stars", "zly")], time=T0)
    spring.vote("user:3", [("stars", "zly")], time=T0)
    spring.configure({"boards": {"stars": {"remove": ["zly"]}}})
    # pending: the reads skip zly and rank the others as if it were gone
    (page,) = spring.top("stars", time=T0)
    assert [(m.member, m.rank) for m in page.members] == [("wy", 1)]
    with pytest.raises(errors.InvalidConfig):
        spring.configure({"boards": {"stars": {"options": {"zly": {}}}}})
    cursor, removed = "0", 0
    for _ in range(20):
        step = spring.remove_step("stars", cursor, 1)
        removed += step.removed
        cursor = step.next
        if cursor == "0":
            break
    assert cursor == "0" and removed > 0
    spring.configure({"boards": {"stars": {"options": {"zly": {}}}}})


def server_ms(r) -> int:
    seconds, micros = r.time()
    return int(seconds) * 1000 + int(micros) // 1000


def test_a_buffered_campaign_folds_its_votes_onto_the_boards(r):
    hot = redvote.Campaign(r, "hot")
    switched = server_ms(r)
    hot.configure({"mode": "buffered", "fold_ms": 60000,
                   "boards": {"stars": {"periods": ["total"], "options": {"wy": {"weight": 2}, "zly": {}}}}})
    assert hot.settings()["mode"] == "buffered"
    ballots = hot.vote("user:1", [("stars", "wy"), ("stars", "zly")], time=T0, vote_id="hot-1")
    # accepted, not on the boards yet: no scores, and folded up to the
    # switch to buffered (nothing waited then)
    folded = ballots[0].folded
    assert isinstance(folded, int) and folded >= switched
    assert ballots == [redvote.Ballot("stars", "wy", {}, False, None, folded),
                       redvote.Ballot("stars", "zly", {}, False, None, folded)]
    again = hot.vote("user:1", [("stars", "wy"), ("stars", "zly")], time=T0, vote_id="hot-1")
    assert again[0].replay and again[0].folded == folded
    hot.vote("user:2", [("stars", "zly")], time=T0)
    (before,) = hot.top("stars", time=T0)
    assert (before.size, before.members, before.folded) == (0, [], folded)
    # a member's standing and neighbourhood say so alike: not on the board yet
    (standing,) = hot.standing("stars", "wy", time=T0)
    assert (standing.rank, standing.folded) == (None, folded)
    around = hot.around("stars", "wy", time=T0)
    assert (around.rank, around.window, around.folded) == (None, [], folded)

    now = server_ms(r)
    first = hot.fold(1)
    # wy's buffer holds the oldest vote: its one line first, zly's two left
    assert (first.folded, first.left, first.overflow) == (1, 2, 0)
    rest = hot.fold()
    assert (rest.folded, rest.left, rest.overflow) == (2, 0, 0)
    assert isinstance(rest.until, int) and rest.until >= now  # nothing buffered: folded up to now
    (after,) = hot.top("stars", time=T0)
    assert [(m.member, m.score) for m in after.members] == [("zly", "2.00"), ("wy", "2.00")]
    assert after.folded is not None and after.folded >= rest.until
    (standing,) = hot.standing("stars", "wy", time=T0)  # tied with zly, ranked alike
    assert standing.rank == 1 and standing.folded is not None and standing.folded >= rest.until
    around = hot.around("stars", "wy", time=T0)
    assert around.rank == 1 and around.folded is not None and around.folded >= rest.until
    empty = hot.fold()
    assert (empty.folded, empty.left, empty.overflow) == (0, 0, 0)

    # a void of a buffered vote folds it first; back to immediate drains the rest
    hot.vote("user:3", [("stars", "wy")], time=T0, vote_id="hot-3")
    assert hot.void("hot-3").status == "voided"
    hot.vote("user:4", [("stars", "wy")], time=T0)
    hot.configure({"mode": "immediate"})
    (drained,) = hot.top("stars", time=T0)
    assert [(m.member, m.score) for m in drained.members] == [("wy", "4.00"), ("zly", "2.00")]
    assert drained.folded is None
    (plain,) = hot.vote("user:5", [("stars", "zly")], time=T0)
    assert (plain.scores, plain.folded) == ({"total": "3.00"}, None)
    idle = hot.fold()
    assert (idle.folded, idle.left) == (0, 0)


def test_registry(r):
    reg = redvote.CampaignRegistry(r)
    assert reg.register(["spring", "autumn"]) == 2
    assert reg.register("spring") == 0
    page = reg.registry(0, 1)
    assert (page.next, page.total, len(page.names)) == (1, 2, 1)
    rest = reg.registry(page.next, 10)
    assert rest.next == 0 and sorted(page.names + rest.names) == ["autumn", "spring"]


def test_an_import_larger_than_one_call_is_sent_in_calls(r):
    # a board keeping five periods with first ties: a call takes 13 pairs
    # (lua/src/lib/board.lua, CALL_WORK)
    five = ["hour", "day", "week", "month", "total"]
    options = {f"o{i}": {} for i in range(30)}
    c = redvote.Campaign(r, "bounded")
    c.configure({"boards": {"f": {"periods": five, "ties": "first", "carry": "0.1", "options": options}}})
    pairs = [(f"o{i}", 10 + i) for i in range(30)]
    one_call = c.calls.import_("f", pairs, time=T0)
    first = c._run(one_call)
    assert (first.changed, first.unchanged, first.rest) == (13, 0, 17)
    done = c.import_("f", pairs, time=T0)
    assert (done.changed, done.unchanged, done.rest) == (17, 13, 0)
    assert c.top("f", time=T0, per_page=50)[0].size == 30
