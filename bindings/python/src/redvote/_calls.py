"""Argument building and reply parsing, shared by the sync and asyncio
flavours: each typed call is a :class:`Call` (script, keys, args and the
parser of its reply); ``redvote.Site`` and ``redvote.aio.Site`` only run it.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from functools import partial
from typing import (
    Any,
    Callable,
    Dict,
    Generic,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
)

from ._base import ReplyError
from ._lua import SCRIPTS
from .types import (
    Article,
    Around,
    Ballot,
    BoardPage,
    Configured,
    Folded,
    GroupChange,
    Imported,
    LimitLeft,
    Page,
    PageArticle,
    PageIds,
    Participants,
    Ranked,
    RegistryPage,
    Reindexed,
    RemoveStep,
    Reranked,
    SiteConfig,
    Standing,
    StatsBucket,
    Upgraded,
    Voided,
    VoidedRange,
    VoteOutcome,
)

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

Pairs = Sequence[Tuple[str, str]]
Number = Union[int, str]

#: script name -> "Class.method" of its typed call (filled by @binds).
BOUND: Dict[str, str] = {}


def binds(script: str) -> Callable[[F], F]:
    """Mark a method of SiteCalls / CampaignCalls / RegistryCalls as the
    typed call of ``script`` (a test checks that every manifest script is
    bound, and that the sync and asyncio classes have the method)."""

    def mark(fn: F) -> F:
        if script not in SCRIPTS:
            raise ValueError(f"{script} is not a script of the manifest")
        owner = fn.__qualname__.split(".")[0].replace("Calls", "")
        BOUND[script] = f"{owner}.{fn.__name__}"
        fn.__redvote_script__ = script  # type: ignore[attr-defined]
        return fn

    return mark


@dataclass(frozen=True)
class Call(Generic[T]):
    """One script call: what to send and how to read the reply."""

    script: str
    keys: Tuple[str, ...]
    args: Tuple[str, ...]
    parse: Callable[[Any], T]

    @property
    def read_only(self) -> bool:
        return SCRIPTS[self.script].read_only


# ------------------------------------------------------------ reply helpers


def text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise ReplyError(f"expected a string, got {value!r}")


def opt_text(value: Any) -> Optional[str]:
    return None if value is None else text(value)


def integer(value: Any) -> int:
    if isinstance(value, bool):
        raise ReplyError(f"expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, (bytes, str)):
        try:
            return int(value)
        except ValueError:
            pass
    raise ReplyError(f"expected an integer, got {value!r}")


def opt_integer(value: Any) -> Optional[int]:
    return None if value is None else integer(value)


def items(value: Any, n: Optional[int] = None, at_least: Optional[int] = None) -> List[Any]:
    if not isinstance(value, list):
        raise ReplyError(f"expected an array, got {value!r}")
    if n is not None and len(value) != n:
        raise ReplyError(f"expected {n} items, got {len(value)}: {value!r}")
    if at_least is not None and len(value) < at_least:
        raise ReplyError(f"expected at least {at_least} items, got {len(value)}: {value!r}")
    return value


def pairs(value: Any, conv: Callable[[Any], T]) -> Dict[str, T]:
    flat = items(value)
    if len(flat) % 2:
        raise ReplyError(f"expected field, value pairs, got {value!r}")
    return {text(flat[i]): conv(flat[i + 1]) for i in range(0, len(flat), 2)}


def strings(value: Any) -> List[str]:
    return [text(v) for v in items(value)]


def ranked(value: Any) -> Ranked:
    member, score, rank = items(value, 3)
    return Ranked(text(member), text(score), integer(rank))


# -------------------------------------------------------------- arguments


def arg(value: Union[str, int, bytes]) -> str:
    if isinstance(value, bool):
        raise TypeError("a boolean is not a script argument")
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return str(value)


def opt(value: Optional[Union[str, int]]) -> str:
    """An optional argument: ``""`` stands for none / the default / the
    server's clock."""
    return "" if value is None else arg(value)


def flat_pairs(items_: Union[Sequence[Tuple[str, Any]], Mapping[str, Any]]) -> List[str]:
    if isinstance(items_, Mapping):
        items_ = list(items_.items())
    out: List[str] = []
    for pair in items_:
        if isinstance(pair, (str, bytes)):
            raise TypeError(f"pairs are (board, option) or (option, votes) tuples, got {pair!r}")
        a, b = pair
        out += [arg(a), arg(b)]
    return out


def names(value: Union[str, Iterable[str]]) -> List[str]:
    return [value] if isinstance(value, str) else [arg(v) for v in value]


# ------------------------------------------------------------------ site


def _vote_outcome(v: Any) -> VoteOutcome:
    changed, previous, vote, score, votes, downvotes = items(v, 6)
    return VoteOutcome(integer(changed) == 1, text(previous), text(vote), text(score), integer(votes), integer(downvotes))


def _article(v: Any) -> Article:
    id_, score, rank, vote, fields = items(v, 5)
    return Article(integer(id_), opt_text(score), opt_integer(rank), text(vote), pairs(fields, text))


def page_ids(v: Any) -> PageIds:
    parts = items(v)
    if len(parts) not in (4, 5):
        raise ReplyError(f"expected 4 or 5 items, got {v!r}")
    total, per_page, joined, n = parts[:4]
    count = integer(n)
    members = text(joined).split(" ") if count else []
    if len(members) != count:
        raise ReplyError(f"{count} members do not split into {count} at spaces: {joined!r}")
    built = integer(parts[4]) == 1 if len(parts) == 5 else False
    return PageIds(integer(total), integer(per_page), members, built)


def _config(v: Any) -> SiteConfig:
    raw = pairs(v, text)
    try:
        rankings = tuple(r for r in raw.get("rankings", "").split(",") if r)
        return SiteConfig(int(raw["vote_score"]), int(raw["window"]), int(raw["page_size"]), rankings, raw)
    except (KeyError, ValueError) as e:
        raise ReplyError(f"a configuration reply without {e}: {v!r}") from None


def _count(value: Any) -> int:
    # groups.lua and campaign_import.lua answer counts (their headers say so)
    return integer(value)


def _group_change(v: Any) -> GroupChange:
    added, removed = items(v, 2)
    return GroupChange(_count(added), _count(removed))


def _reranked(v: Any) -> Reranked:
    ranked_, next_ = items(v, 2)
    return Reranked(integer(ranked_), integer(next_))


def article_commands(prefix: str, ids: PageIds, with_scores: bool) -> List[Tuple[str, ...]]:
    """The second round trip of a page: ``ZMSCORE <prefix>score:`` (when
    scores are wanted), then ``HGETALL <prefix>article:ID`` for each member,
    to send in one ``MULTI``/``EXEC``."""
    commands: List[Tuple[str, ...]] = []
    if not ids.members:
        return commands
    if with_scores:
        commands.append(("ZMSCORE", f"{prefix}score:", *ids.members))
    commands += [("HGETALL", f"{prefix}{m}") for m in ids.members]
    return commands


def _score(value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, float):
        return repr(value)
    return text(value)


def decode_page(
    order: str, page: int, group: Optional[str], ids: PageIds, with_scores: bool, replies: List[Any]
) -> Page:
    scores: List[Optional[str]] = [None] * len(ids.members)
    rest = list(replies)
    if with_scores and ids.members:
        scores = [_score(s) for s in items(rest.pop(0), len(ids.members))]
    if len(rest) != len(ids.members):
        raise ReplyError(f"expected {len(ids.members)} article hashes, got {len(rest)}")
    articles = []
    for member, score, fields in zip(ids.members, scores, rest):
        if isinstance(fields, dict):
            decoded = {text(k): text(v) for k, v in fields.items()}
        else:
            decoded = pairs(fields, text)
        articles.append(PageArticle(member, decoded, score))
    return Page(order, page, ids.total, ids.per_page, articles, group)


def group_ordering_key(prefix: str, order: str, group: str) -> str:
    """The cached ordering group_page.lua builds: ``<prefix><order>:NAME``."""
    return f"{prefix}{order}:{group}"


class SiteCalls:
    """The article site's calls, for the site root ``<prefix>article:``."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self.root = f"{prefix}article:"

    def _call(self, script: str, args: Sequence[str], parse: Callable[[Any], T]) -> Call[T]:
        return Call(script, (self.root,), tuple(args), parse)

    @binds("post")
    def post(self, user: str, title: str, link: str, *, time: Optional[int] = None) -> Call[int]:
        args = [arg(user), arg(title), arg(link)] + ([arg(time)] if time is not None else [])
        return self._call("post", args, integer)

    @binds("vote")
    def vote(self, user: str, article: Union[int, str], vote: str = "up") -> Call[VoteOutcome]:
        return self._call("vote", [arg(user), arg(article), arg(vote)], _vote_outcome)

    @binds("article")
    def article(self, article: Union[int, str], user: Optional[str] = None) -> Call[Article]:
        args = [arg(article)] + ([arg(user)] if user is not None else [])
        return self._call("article", args, _article)

    @binds("page")
    def page(self, order: str = "score", page: int = 1, per_page: Optional[int] = None) -> Call[PageIds]:
        args = [arg(order), arg(page)] + ([arg(per_page)] if per_page is not None else [])
        return self._call("page", args, page_ids)

    @binds("group_page")
    def group_page(
        self, group: str, order: str = "score", page: int = 1, per_page: Optional[int] = None
    ) -> Call[PageIds]:
        args = [arg(group), arg(order), arg(page)] + ([arg(per_page)] if per_page is not None else [])
        return self._call("group_page", args, page_ids)

    @binds("groups")
    def groups(
        self, article: Union[int, str], add: Iterable[str] = (), remove: Iterable[str] = ()
    ) -> Call[GroupChange]:
        tokens = [f"+{g}" for g in names(add)] + [f"-{g}" for g in names(remove)]
        return self._call("groups", [arg(article)] + tokens, _group_change)

    @binds("configure")
    def configure(
        self,
        *,
        vote_score: Optional[int] = None,
        window: Optional[int] = None,
        page_size: Optional[int] = None,
        rankings: Optional[Union[str, Iterable[str]]] = None,
    ) -> Call[SiteConfig]:
        args: List[str] = []
        for field_, value in (("vote_score", vote_score), ("window", window), ("page_size", page_size)):
            if value is not None:
                args += [field_, arg(value)]
        if rankings is not None:
            args += ["rankings", rankings if isinstance(rankings, str) else ",".join(rankings)]
        return self._call("configure", args, _config)

    @binds("config")
    def config(self) -> Call[SiteConfig]:
        return self._call("config", [], _config)

    @binds("rerank")
    def rerank(self, start: int = 0, count: int = 500) -> Call[Reranked]:
        return self._call("rerank", [arg(start), arg(count)], _reranked)

    @binds("upgrade")
    def upgrade(self, cursor: str = "0", count: int = 100) -> Call[Upgraded]:
        return self._call("upgrade", [arg(cursor), arg(count)], _upgraded)


# -------------------------------------------------------------- campaigns


# What an empty vote id is sent as: a control character, which the script
# refuses (REDVOTE_INVALID_VOTE_ID) before it reads or writes anything.
EMPTY_VOTE_ID = "\x00"


def new_vote_id() -> str:
    """A vote id for a campaign vote sent without one: ``auto-`` and 128
    random bits as 32 hex digits (the Rust driver's form), made once per
    call so every resend of it carries it."""
    return "auto-" + secrets.token_hex(16)


def _ballots(v: Any, vote_id: Optional[str] = None) -> List[Ballot]:
    out = []
    for entry in items(v):
        parts = items(entry)
        if len(parts) not in (3, 4, 5):
            raise ReplyError(f"expected a ballot of 3 to 5 items, got {entry!r}")
        replay = len(parts) >= 4 and text(parts[3]) == "replay"
        # a buffered campaign's ballot: empty scores, then how far it is folded
        folded = integer(parts[4]) if len(parts) == 5 else None
        out.append(Ballot(text(parts[0]), text(parts[1]), pairs(parts[2], text), replay, vote_id, folded))
    return out


def _configured(v: Any) -> Configured:
    raw = pairs(v, integer)
    return Configured(raw.get("boards", 0), raw.get("options", 0), raw)


def _imported(v: Any) -> Imported:
    changed, unchanged, rest = items(v, 3)
    return Imported(_count(changed), _count(unchanged), _count(rest))


def _board_read(v: Any, n: int, what: str) -> Tuple[List[Any], Optional[int]]:
    """A board read's `n` items, and the one a buffered campaign's adds: how
    far its boards are folded (None on an immediate campaign)."""
    parts = items(v)
    if len(parts) not in (n, n + 1):
        raise ReplyError(f"expected {what} of {n} or {n + 1} items, got {v!r}")
    return parts[:n], integer(parts[n]) if len(parts) > n else None


def _top(v: Any) -> List[BoardPage]:
    out = []
    for entry in items(v):
        (board, period, size, members), folded = _board_read(entry, 4, "a board page")
        out.append(BoardPage(text(board), text(period), integer(size), [ranked(m) for m in items(members)], folded))
    return out


def _folded(v: Any) -> Folded:
    folded, left, until, overflow = items(v, 4)
    return Folded(integer(folded), integer(left), integer(until), integer(overflow))


def _standing(v: Any) -> List[Standing]:
    out = []
    for entry in items(v):
        (m, rank, score, ahead, gap, prank, pscore), folded = _board_read(entry, 7, "a standing")
        out.append(
            Standing(
                text(m), opt_integer(rank), opt_text(score), opt_text(ahead), opt_text(gap),
                opt_integer(prank), opt_text(pscore), folded,
            )
        )
    return out


def _around(v: Any) -> Around:
    (size, pages, rank, percentile, page, window), folded = _board_read(v, 6, "a neighbourhood")
    return Around(
        integer(size), integer(pages), opt_integer(rank), opt_text(percentile), opt_integer(page),
        [ranked(m) for m in items(window)], folded,
    )


def _limits(v: Any) -> List[LimitLeft]:
    out = []
    for entry in items(v):
        rule, remaining, reset_in = items(entry, 3)
        out.append(LimitLeft(text(rule), integer(remaining), integer(reset_in)))
    return out


def _participants(v: Any) -> Participants:
    parts = items(v, at_least=1)
    options: Dict[str, int] = {}
    for entry in parts[1:]:
        option, n = items(entry, 2)
        options[text(option)] = integer(n)
    return Participants(integer(parts[0]), options)


def _reindexed(v: Any) -> Reindexed:
    indexed, finished, next_ = items(v, 3)
    return Reindexed(integer(indexed), integer(finished), text(next_))


def _settings(v: Any) -> Dict[str, Any]:
    value = json.loads(text(v))
    if not isinstance(value, dict):
        raise ReplyError(f"expected a JSON object, got {v!r}")
    return value


def _stats(v: Any) -> List[StatsBucket]:
    out = []
    for entry in items(v):
        bucket, start, votes, amount, voided, voided_amount, participants, channels, devices = items(entry, 9)
        out.append(
            StatsBucket(
                text(bucket), integer(start), integer(votes), integer(amount), integer(voided),
                integer(voided_amount), integer(participants), pairs(channels, integer), pairs(devices, integer),
            )
        )
    return out


def _voided(v: Any) -> Voided:
    status, at, changed, skipped = items(v, 4)
    return Voided(text(status), integer(at), integer(changed), integer(skipped))


def _voided_range(v: Any) -> VoidedRange:
    voided, skipped, next_ = items(v, 3)
    return VoidedRange(integer(voided), integer(skipped), text(next_))


def _remove_step(v: Any) -> RemoveStep:
    removed, finished, next_ = items(v, 3)
    return RemoveStep(integer(removed), integer(finished), text(next_))


def _upgraded(v: Any) -> Upgraded:
    from_, to, next_ = items(v, 3)
    return Upgraded(integer(from_), integer(to), text(next_))


def _ok(v: Any) -> int:
    return integer(v)


class CampaignCalls:
    """A campaign's calls, for the campaign root ``<ns>campaign`` (the
    namespace of campaign NAME is ``{c:NAME}:``)."""

    def __init__(self, name: Optional[str] = None, *, namespace: Optional[str] = None) -> None:
        if namespace is None:
            if name is None:
                raise TypeError("a campaign needs a name or a namespace")
            namespace = f"{{c:{name}}}:"
        self.name = name
        self.namespace = namespace
        self.root = f"{namespace}campaign"

    def _call(self, script: str, args: Sequence[str], parse: Callable[[Any], T]) -> Call[T]:
        return Call(script, (self.root,), tuple(args), parse)

    @binds("campaign_configure")
    def configure(self, settings: Union[Mapping[str, Any], str]) -> Call[Configured]:
        document = settings if isinstance(settings, str) else json.dumps(settings, separators=(",", ":"))
        return self._call("campaign_configure", [document], _configured)

    @binds("campaign_vote")
    def vote(
        self,
        user: str,
        pairs: Pairs,
        *,
        time: Optional[int] = None,
        channel: Optional[str] = None,
        device: Optional[str] = None,
        cost: Optional[int] = None,
        vote_id: Optional[str] = None,
    ) -> Call[List[Ballot]]:
        """The vote as one call. Without ``vote_id`` the call gets an id of
        its own (:func:`new_vote_id`): redis-py resends a command after a
        dropped connection, and the id makes the resend a replay rather than
        a second vote. Running the same call object again is therefore a
        resend too; each ballot carries the id. An empty ``vote_id`` is
        refused (``InvalidVoteId``), as the Rust driver and the Node package
        refuse it: the script reads ``""`` as "no id"."""
        id_ = new_vote_id() if vote_id is None else (arg(vote_id) or EMPTY_VOTE_ID)
        args = [arg(user), opt(time), opt(channel), opt(device), opt(cost), id_] + flat_pairs(pairs)
        return self._call("campaign_vote", args, partial(_ballots, vote_id=id_))

    @binds("campaign_fold")
    def fold(self, max: int = 1000) -> Call[Folded]:
        return self._call("campaign_fold", [arg(max)], _folded)

    @binds("campaign_import")
    def import_(
        self, board: str, votes: Union[Mapping[str, Number], Sequence[Tuple[str, Number]]], *, time: Optional[int] = None
    ) -> Call[Imported]:
        return self._call("campaign_import", [arg(board), opt(time)] + flat_pairs(votes), _imported)

    @binds("campaign_top")
    def top(
        self,
        boards: Union[str, Sequence[str]],
        *,
        kind: str = "shown",
        period: str = "total",
        page: int = 1,
        per_page: int = 10,
        time: Optional[int] = None,
    ) -> Call[List[BoardPage]]:
        args = [arg(kind), arg(period), arg(page), arg(per_page), opt(time)] + names(boards)
        return self._call("campaign_top", args, _top)

    @binds("campaign_standing")
    def standing(
        self,
        board: str,
        members: Union[str, Sequence[str]],
        *,
        kind: str = "shown",
        period: str = "total",
        time: Optional[int] = None,
    ) -> Call[List[Standing]]:
        args = [arg(board), arg(kind), arg(period), opt(time)] + names(members)
        return self._call("campaign_standing", args, _standing)

    @binds("campaign_around")
    def around(
        self,
        board: str,
        member: str,
        *,
        window: int = 5,
        per_page: int = 10,
        kind: str = "shown",
        period: str = "total",
        time: Optional[int] = None,
    ) -> Call[Around]:
        args = [arg(board), arg(kind), arg(period), opt(time), arg(member), arg(window), arg(per_page)]
        return self._call("campaign_around", args, _around)

    @binds("campaign_limits")
    def limits(
        self,
        user: str,
        pairs: Pairs = (),
        *,
        time: Optional[int] = None,
        channel: Optional[str] = None,
        device: Optional[str] = None,
    ) -> Call[List[LimitLeft]]:
        args = [arg(user), opt(time), opt(channel), opt(device)] + flat_pairs(pairs)
        return self._call("campaign_limits", args, _limits)

    @binds("campaign_limits_reset")
    def limits_reset(
        self,
        user: str,
        pairs: Pairs = (),
        *,
        time: Optional[int] = None,
        channel: Optional[str] = None,
        device: Optional[str] = None,
    ) -> Call[int]:
        args = [arg(user), opt(time), opt(channel), opt(device)] + flat_pairs(pairs)
        return self._call("campaign_limits_reset", args, _ok)

    @binds("campaign_participants")
    def participants(self, board: str, options: Union[str, Sequence[str]] = ()) -> Call[Participants]:
        return self._call("campaign_participants", [arg(board)] + names(options), _participants)

    @binds("campaign_reindex")
    def reindex(self, board: str, cursor: str = "0", count: int = 100) -> Call[Reindexed]:
        return self._call("campaign_reindex", [arg(board), arg(cursor), arg(count)], _reindexed)

    @binds("campaign_remove")
    def remove_step(self, board: str, cursor: str = "0", count: int = 100) -> Call[RemoveStep]:
        return self._call("campaign_remove", [arg(board), arg(cursor), arg(count)], _remove_step)

    @binds("campaign_settings")
    def settings(self) -> Call[Dict[str, Any]]:
        return self._call("campaign_settings", [], _settings)

    @binds("campaign_stats")
    def stats(self, board: str, granularity: str, from_: int, to: int) -> Call[List[StatsBucket]]:
        return self._call("campaign_stats", [arg(board), arg(granularity), arg(from_), arg(to)], _stats)

    @binds("campaign_upgrade")
    def upgrade(self, cursor: str = "0", count: int = 100) -> Call[Upgraded]:
        return self._call("campaign_upgrade", [arg(cursor), arg(count)], _upgraded)

    @binds("campaign_void")
    def void(self, vote_id: str) -> Call[Voided]:
        return self._call("campaign_void", [arg(vote_id)], _voided)

    @binds("campaign_void_range")
    def void_range(
        self, by: str, value: str, from_: int, to: int, cursor: str = "0", count: int = 100
    ) -> Call[VoidedRange]:
        args = [arg(by), arg(value), arg(from_), arg(to), arg(cursor), arg(count)]
        return self._call("campaign_void_range", args, _voided_range)


def _registry_page(v: Any) -> RegistryPage:
    parts = items(v, at_least=2)
    return RegistryPage(integer(parts[0]), integer(parts[1]), [text(n) for n in parts[2:]])


class RegistryCalls:
    """The campaign registry's calls (the sorted set ``{c}:campaigns``)."""

    def __init__(self, key: str = "{c}:campaigns") -> None:
        self.key = key

    @binds("campaign_register")
    def register(self, campaigns: Union[str, Iterable[str]]) -> Call[int]:
        return Call("campaign_register", (self.key,), tuple(names(campaigns)), integer)

    @binds("campaign_registry")
    def registry(self, cursor: int = 0, count: int = 100) -> Call[RegistryPage]:
        return Call("campaign_registry", (self.key,), (arg(cursor), arg(count)), _registry_page)
