"""The typed replies of the scripts (frozen dataclasses).

Scores stay strings: the scripts answer exact decimals with the board's
decimals (``"12.50"``), and a float would round them. Names follow each
script's ``Reply:`` header (``lua/manifest.json``'s ``reply``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

# ---------------------------------------------------------------- the site


@dataclass(frozen=True)
class VoteOutcome:
    """``vote.lua``: the user's vote after the call and the article's counts."""

    changed: bool
    previous: str
    vote: str
    score: str
    votes: int
    downvotes: int


@dataclass(frozen=True)
class Article:
    """``article.lua``: one article; ``vote`` is ``""`` when no user was given."""

    id: int
    score: Optional[str]
    rank: Optional[int]
    vote: str
    fields: Dict[str, str]

    @property
    def title(self) -> Optional[str]:
        return self.fields.get("title")

    @property
    def link(self) -> Optional[str]:
        return self.fields.get("link")

    @property
    def poster(self) -> Optional[str]:
        return self.fields.get("poster")

    @property
    def time(self) -> Optional[int]:
        value = self.fields.get("time")
        return int(value) if value is not None else None

    @property
    def votes(self) -> int:
        return int(self.fields.get("votes", "0"))

    @property
    def downvotes(self) -> int:
        return int(self.fields.get("downvotes", "0"))


@dataclass(frozen=True)
class PageIds:
    """``page.lua`` / ``group_page.lua``, the first round trip of a page."""

    total: int
    per_page: int
    members: List[str]
    built: bool = False


@dataclass(frozen=True)
class PageArticle:
    """One article of a page: its member (``"article:9"``), hash and, when
    asked for, its score."""

    member: str
    fields: Dict[str, str]
    score: Optional[str] = None

    @property
    def id(self) -> Optional[int]:
        _, _, number = self.member.partition(":")
        return int(number) if number.isdigit() else None

    @property
    def title(self) -> Optional[str]:
        return self.fields.get("title")

    @property
    def votes(self) -> int:
        return int(self.fields.get("votes", "0"))


@dataclass(frozen=True)
class Page:
    """A page of articles: ``total`` members in the ordering, ``per_page``
    and the page's articles, best first."""

    order: str
    page: int
    total: int
    per_page: int
    articles: List[PageArticle]
    group: Optional[str] = None


@dataclass(frozen=True)
class GroupChange:
    """``groups.lua``: how many groups the article newly joined, and left.

    (The script answers counts; its header's ``Reply:`` says
    ``list(string)``.)"""

    added: int
    removed: int


@dataclass(frozen=True)
class SiteConfig:
    """``config.lua`` / ``configure.lua``: the effective settings."""

    vote_score: int
    window: int
    page_size: int
    rankings: Tuple[str, ...]
    raw: Dict[str, str] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Reranked:
    """``rerank.lua``: articles ranked, and the next start (0: done)."""

    ranked: int
    next: int


# ------------------------------------------------------------ campaigns


@dataclass(frozen=True)
class Ballot:
    """``campaign_vote.lua``, one pair: the shown score of every period the
    board keeps (``{"total": "12.00", "day:2026-03-17": "3.00"}``);
    ``replay`` is true when the call was a resend of a vote id already
    applied (nothing was counted again); ``vote_id`` is the call's id, the
    caller's or the one the package made for a call sent without one (what
    ``void`` takes back; not compared by ``==``).

    On a buffered campaign (docs/hot-campaigns.md) the vote is accepted but
    not on the boards yet: ``scores`` is empty and ``folded`` is the Unix ms
    before which every accepted vote is on the boards (``None`` on an
    immediate campaign)."""

    board: str
    option: str
    scores: Dict[str, str]
    replay: bool = False
    vote_id: Optional[str] = field(default=None, compare=False)
    folded: Optional[int] = None


@dataclass(frozen=True)
class Configured:
    """``campaign_configure.lua``: boards and options created or updated."""

    boards: int
    options: int
    raw: Dict[str, int] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Imported:
    """``campaign_import.lua``: how many options' imported amounts changed,
    how many were already those, and how many pairs the call left (its
    work is bounded: send the last ``rest`` pairs again; 0 when all are
    done)."""

    changed: int
    unchanged: int
    rest: int


@dataclass(frozen=True)
class Ranked:
    """A board member with its score (a string with the board's decimals)
    and rank (by the board's tie rule)."""

    member: str
    score: str
    rank: int


@dataclass(frozen=True)
class BoardPage:
    """``campaign_top.lua``, one board: its period's name, size and the page;
    on a buffered campaign, ``folded``: the Unix ms before which every
    accepted vote is on the boards (``None`` on an immediate campaign)."""

    board: str
    period: str
    size: int
    members: List[Ranked]
    folded: Optional[int] = None


@dataclass(frozen=True)
class Folded:
    """``campaign_fold.lua``: the buffered votes written to the boards by the
    call, the votes still buffered (fold again until 0), the Unix ms before
    which every accepted vote is on the boards, and the board entries left
    out because they would leave the exact range."""

    folded: int
    left: int
    until: int
    overflow: int


@dataclass(frozen=True)
class Standing:
    """``campaign_standing.lua``, one member (None where there is none); on a
    buffered campaign, ``folded``: the Unix ms before which every accepted
    vote is on the boards (``None`` on an immediate campaign)."""

    member: str
    rank: Optional[int]
    score: Optional[str]
    ahead: Optional[str]
    gap: Optional[str]
    previous_rank: Optional[int]
    previous_score: Optional[str]
    folded: Optional[int] = None


@dataclass(frozen=True)
class Around:
    """``campaign_around.lua``: the member's neighbourhood; rank, percentile
    and page are None (and the window empty) when it is not on the board. On
    a buffered campaign, ``folded``: the Unix ms before which every accepted
    vote is on the boards (``None`` on an immediate campaign)."""

    size: int
    pages: int
    rank: Optional[int]
    percentile: Optional[str]
    page: Optional[int]
    window: List[Ranked]
    folded: Optional[int] = None


@dataclass(frozen=True)
class LimitLeft:
    """``campaign_limits.lua``, one counter: votes the rule leaves now and
    seconds until its window resets (-1: never)."""

    rule: str
    remaining: int
    reset_in: int


@dataclass(frozen=True)
class Participants:
    """``campaign_participants.lua``: unique participants (HyperLogLog
    estimates) of the campaign and of each option asked for."""

    campaign: int
    options: Dict[str, int]


@dataclass(frozen=True)
class RemoveStep:
    """``campaign_remove.lua``: period board entries removed by the call,
    period boards finished, next cursor (``"0"``: the removal is
    complete)."""

    removed: int
    finished: int
    next: str


@dataclass(frozen=True)
class Reindexed:
    """``campaign_reindex.lua``: members indexed, period boards finished,
    next cursor (``"0"``: the board is indexed)."""

    indexed: int
    finished: int
    next: str


@dataclass(frozen=True)
class StatsBucket:
    """``campaign_stats.lua``, one hour or day bucket."""

    bucket: str
    start: int
    votes: int
    amount: int
    voided: int
    voided_amount: int
    participants: int
    channels: Dict[str, int]
    devices: Dict[str, int]


@dataclass(frozen=True)
class Voided:
    """``campaign_void.lua``: ``"voided"`` or ``"already_voided"``, when,
    and the board entries changed / skipped."""

    status: str
    at: int
    changed: int
    skipped: int


@dataclass(frozen=True)
class VoidedRange:
    """``campaign_void_range.lua``: votes voided, entries skipped (another
    user's or channel's), next cursor (``"0"``: done)."""

    voided: int
    skipped: int
    next: str


@dataclass(frozen=True)
class Upgraded:
    """``campaign_upgrade.lua`` (and the site's ``upgrade.lua``): the
    campaign's or site's data layout before the call and after the upgrade,
    and the next cursor (``"0"``: done)."""

    from_: int
    to: int
    next: str


@dataclass(frozen=True)
class RegistryPage:
    """``campaign_registry.lua``: the next cursor (0: last page), the number
    of names registered, and this page's names."""

    next: int
    total: int
    names: List[str]


__all__ = [
    "VoteOutcome",
    "Article",
    "PageIds",
    "PageArticle",
    "Page",
    "GroupChange",
    "SiteConfig",
    "Reranked",
    "Ballot",
    "Configured",
    "Imported",
    "Ranked",
    "BoardPage",
    "Folded",
    "Standing",
    "Around",
    "LimitLeft",
    "Participants",
    "Reindexed",
    "RemoveStep",
    "StatsBucket",
    "Voided",
    "VoidedRange",
    "Upgraded",
    "RegistryPage",
]
