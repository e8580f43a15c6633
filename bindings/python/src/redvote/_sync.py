"""The sync flavour: redis-py's ``redis.Redis`` (``redvote.Site``,
``redvote.Campaign``, ...). ``redvote.aio`` is the same over
``redis.asyncio.Redis``; both run the :class:`~redvote._calls.Call` objects
of ``_calls.py``."""

from __future__ import annotations

import weakref
from typing import Any, Dict, Iterator, Generic, Iterable, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

import redis
from redis.commands.core import Script
from redis.exceptions import ResponseError

from . import _calls
from ._base import RedvoteError, ReplyError
from ._calls import Call, CampaignCalls, Number, Pairs, RegistryCalls, SiteCalls
from ._lua import SCRIPTS
from .errors import InvalidConfig, convert
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
    PageIds,
    Participants,
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

_NO_VALUE = object()


class Scripts:
    """Every script of the manifest, registered on one client with
    ``register_script`` (redis-py's ``Script``: ``EVALSHA``, and on
    ``NOSCRIPT`` a ``SCRIPT LOAD`` and ``EVALSHA`` again; in a pipeline,
    redis-py loads the missing scripts before sending it).

    ``scripts.run("vote", ["article:"], ["user:1", "7"])`` answers the raw
    reply; a ``REDVOTE_*`` refusal raises its :class:`RedvoteError`.
    """

    def __init__(self, client: "redis.Redis") -> None:
        self.client = client
        self._scripts: Dict[str, Script] = {
            name: client.register_script(info.source) for name, info in SCRIPTS.items()
        }

    def __getitem__(self, name: str) -> Script:
        """The redis-py ``Script`` of a manifest script (KeyError otherwise)."""
        return self._scripts[name]

    def __contains__(self, name: object) -> bool:
        return name in self._scripts

    def __iter__(self) -> Iterator[str]:
        return iter(self._scripts)

    def sha1(self, name: str) -> str:
        return SCRIPTS[name].sha1

    def run(
        self,
        name: str,
        keys: Sequence[str] = (),
        args: Iterable[Union[str, int, bytes]] = (),
        client: Optional[Any] = None,
    ) -> Any:
        """EVALSHA script ``name`` (loading it on NOSCRIPT) with ``keys`` and
        ``args``. On a redis-py pipeline (``client=pipe``) it queues the call
        and answers the pipeline; the reply comes from ``pipe.execute()``
        (an error there is redis-py's: :func:`redvote.errors.convert` turns
        it into its :class:`RedvoteError`)."""
        script = self._scripts[name]
        try:
            return script(keys=list(keys), args=list(args), client=client if client is not None else self.client)
        except ResponseError as e:
            converted = convert(e)
            if converted is e:
                raise
            raise converted from None

    def call(self, call: Call[T]) -> T:
        """Run a typed call and parse its reply."""
        return call.parse(self.run(call.script, call.keys, call.args))

    def load(self) -> Dict[str, str]:
        """SCRIPT LOAD every script (e.g. before an EVALSHA_RO from a
        replica); answers the SHA1s by name."""
        return {name: _sha(self.client.script_load(s.script)) for name, s in self._scripts.items()}


def _sha(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


_REGISTRIES: "weakref.WeakKeyDictionary[Any, Scripts]" = weakref.WeakKeyDictionary()


def scripts_for(client: Union["redis.Redis", Scripts]) -> Scripts:
    """The :class:`Scripts` of a client (one per client, kept while it lives)."""
    if isinstance(client, Scripts):
        return client
    try:
        found = _REGISTRIES.get(client)
        if found is None:
            found = _REGISTRIES[client] = Scripts(client)
        return found
    except TypeError:  # not weak-referenceable
        return Scripts(client)


class Pending(Generic[T]):
    """A call queued in a :class:`Pipeline`: its value once the pipeline ran."""

    def __init__(self, parse: Any) -> None:
        self._parse = parse
        self._value: Any = _NO_VALUE
        self._error: Optional[BaseException] = None

    def _settle(self, raw: Any) -> Any:
        if isinstance(raw, BaseException):
            self._error = convert(raw)
            return self._error
        try:
            self._value = self._parse(raw) if self._parse is not None else raw
        except ReplyError as e:
            self._error = e
            return e
        return self._value

    @property
    def done(self) -> bool:
        return self._value is not _NO_VALUE or self._error is not None

    def result(self) -> T:
        """The parsed reply; raises the call's error (a RedvoteError for a
        refusal), or RuntimeError before the pipeline ran."""
        if self._error is not None:
            raise self._error
        if self._value is _NO_VALUE:
            raise RuntimeError("the pipeline has not run yet")
        return self._value  # type: ignore[no-any-return]


class Pipeline:
    """Several typed calls (and raw commands) sent at once (redis-py adds a
    SCRIPT EXISTS round trip before them), by default
    in one ``MULTI``/``EXEC``:

        pipe = redvote.Pipeline(r)
        a = pipe.add(spring.calls.vote("user:1", [("stars", "wy")]))
        b = pipe.add(spring.calls.top("stars"))
        ballots, pages = pipe.execute()

    Each ``add`` answers a :class:`Pending` whose ``result()`` is the parsed
    reply after ``execute()``. redis-py loads any script the server lacks
    before sending the pipeline.
    """

    def __init__(self, client: "redis.Redis", transaction: bool = True) -> None:
        self.client = client
        self.scripts = scripts_for(client)
        self.pipeline = client.pipeline(transaction=transaction)
        self._pending: List[Pending[Any]] = []

    def add(self, call: Call[T]) -> Pending[T]:
        self.scripts.run(call.script, call.keys, call.args, client=self.pipeline)
        pending: Pending[T] = Pending(call.parse)
        self._pending.append(pending)
        return pending

    def command(self, *args: Any) -> Pending[Any]:
        """A raw Redis command (its reply as redis-py parses it)."""
        self.pipeline.execute_command(*args)  # type: ignore[no-untyped-call,unused-ignore]
        pending: Pending[Any] = Pending(None)
        self._pending.append(pending)
        return pending

    def __len__(self) -> int:
        return len(self._pending)

    def execute(self, raise_on_error: bool = True) -> List[Any]:
        """Send the calls; answer their parsed replies in order. With
        ``raise_on_error`` (the default) the first error is raised after
        every call's Pending is settled; otherwise errors are in the list."""
        pending, self._pending = self._pending, []
        raw = self.pipeline.execute(raise_on_error=False)
        results = [p._settle(r) for p, r in zip(pending, raw)]
        if raise_on_error:
            for r in results:
                if isinstance(r, BaseException):
                    raise r
        return results

    def reset(self) -> None:
        self._pending = []
        self.pipeline.reset()

    def __enter__(self) -> "Pipeline":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.reset()


class _Bound:
    def __init__(self, client: Union["redis.Redis", Scripts]) -> None:
        self.scripts = scripts_for(client)
        self.client = self.scripts.client

    def _run(self, call: Call[T]) -> T:
        return self.scripts.call(call)

    def pipeline(self, transaction: bool = True) -> Pipeline:
        """A :class:`Pipeline` on this object's client."""
        return Pipeline(self.client, transaction=transaction)


class Site(_Bound):
    """The article site of prefix ``prefix`` (root key ``<prefix>article:``).

    ``calls`` builds the same calls unsent, for a :class:`Pipeline`.
    """

    def __init__(self, client: Union["redis.Redis", Scripts], prefix: str = "") -> None:
        super().__init__(client)
        self.calls = SiteCalls(prefix)
        self.prefix = prefix

    def post(self, user: str, title: str, link: str, *, time: Optional[int] = None) -> int:
        """Publish an article; answers its id. ``time``: the import path only."""
        return self._run(self.calls.post(user, title, link, time=time))

    def vote(self, user: str, article: Union[int, str], vote: str = "up") -> VoteOutcome:
        """Set ``user``'s vote on ``article`` (``7`` or ``"article:7"``) to
        ``"up"``, ``"down"`` or ``"none"``."""
        return self._run(self.calls.vote(user, article, vote))

    def article(self, article: Union[int, str], user: Optional[str] = None) -> Article:
        return self._run(self.calls.article(article, user))

    def page(
        self, order: str = "score", page: int = 1, per_page: Optional[int] = None, *, with_scores: bool = False
    ) -> Page:
        """A page of articles by ``score``, ``time``, ``hot`` or ``best``:
        ``page.lua``, then the articles' hashes in one MULTI/EXEC."""
        ids = self._run(self.calls.page(order, page, per_page))
        return self._articles(order, page, None, ids, with_scores)

    def group_page(
        self,
        group: str,
        order: str = "score",
        page: int = 1,
        per_page: Optional[int] = None,
        *,
        with_scores: bool = False,
    ) -> Page:
        ids = self._run(self.calls.group_page(group, order, page, per_page))
        return self._articles(order, page, group, ids, with_scores)

    def _articles(self, order: str, page: int, group: Optional[str], ids: PageIds, with_scores: bool) -> Page:
        commands = _calls.article_commands(self.prefix, ids, with_scores)
        replies: List[Any] = []
        if commands:
            pipe = self.client.pipeline(transaction=True)
            for command in commands:
                pipe.execute_command(*command)  # type: ignore[no-untyped-call,unused-ignore]
            replies = pipe.execute(raise_on_error=False)
            failed = [r for r in replies if isinstance(r, BaseException)]
            if failed:
                if ids.built and group is not None:
                    self.client.delete(_calls.group_ordering_key(self.prefix, order, group))
                raise InvalidConfig("REDVOTE_INVALID_CONFIG", f"reading the page's articles: {failed[0]}")
        return _calls.decode_page(order, page, group, ids, with_scores, replies)

    def groups(self, article: Union[int, str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> GroupChange:
        return self._run(self.calls.groups(article, add, remove))

    def configure(
        self,
        *,
        vote_score: Optional[int] = None,
        window: Optional[int] = None,
        page_size: Optional[int] = None,
        rankings: Optional[Union[str, Iterable[str]]] = None,
    ) -> SiteConfig:
        return self._run(
            self.calls.configure(vote_score=vote_score, window=window, page_size=page_size, rankings=rankings)
        )

    def config(self) -> SiteConfig:
        return self._run(self.calls.config())

    def rerank(self, start: int = 0, count: int = 500) -> Reranked:
        return self._run(self.calls.rerank(start, count))

    def upgrade(self, cursor: str = "0", count: int = 100) -> Upgraded:
        """Move the site to data layout 2, group boards kept up to date
        (call until ``next`` is "0"; docs/versions.md)."""
        return self._run(self.calls.upgrade(cursor, count))


class Campaign(_Bound):
    """Campaign ``name`` (namespace ``{c:NAME}:``, root ``{c:NAME}:campaign``;
    ``namespace=`` for another one). ``time=None`` everywhere means the
    server's clock.

    ``calls`` builds the same calls unsent, for a :class:`Pipeline`.
    """

    def __init__(
        self, client: Union["redis.Redis", Scripts], name: Optional[str] = None, *, namespace: Optional[str] = None
    ) -> None:
        super().__init__(client)
        self.calls = CampaignCalls(name, namespace=namespace)
        self.name = name
        self.namespace = self.calls.namespace
        self.root = self.calls.root

    def configure(self, settings: Union[Mapping[str, Any], str]) -> Configured:
        """Create or update the campaign from its settings document (a dict
        or JSON text, docs/campaigns.md)."""
        return self._run(self.calls.configure(settings))

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
    ) -> List[Ballot]:
        """``user`` votes for each (board, option) of ``pairs``, all or
        nothing, exactly once: a resend of the call (redis-py's retry after a
        dropped connection) answers the first run's ballots with
        ``replay=True``. ``vote_id`` is the call's idempotency key; without
        one the package makes one (``Ballot.vote_id`` has it)."""
        return self._run(
            self.calls.vote(user, pairs, time=time, channel=channel, device=device, cost=cost, vote_id=vote_id)
        )

    def fold(self, max: int = 1000) -> Folded:
        """Write up to ``max`` (1..1000) of a buffered campaign's oldest
        votes to its boards, in one atomic call; ``left`` says how many are
        still buffered (fold again until 0). On an immediate campaign it
        folds nothing (docs/hot-campaigns.md)."""
        return self._run(self.calls.fold(max))

    def import_(
        self, board: str, votes: Union[Mapping[str, Number], Sequence[Tuple[str, Number]]], *, time: Optional[int] = None
    ) -> Imported:
        """Set the imported (starting) shown votes of options (idempotent),
        in as many calls as their bounded work takes: each call is atomic
        and the pairs it leaves are sent again. Answers the counts of every
        call (``rest`` 0). ``calls.import_`` is one call (pipelines)."""
        left = list(votes.items()) if isinstance(votes, Mapping) else list(votes)
        changed = unchanged = 0
        while True:
            done = self._run(self.calls.import_(board, left, time=time))
            changed, unchanged = changed + done.changed, unchanged + done.unchanged
            if done.rest == 0 or done.rest >= len(left):
                return Imported(changed, unchanged, done.rest)
            left = left[len(left) - done.rest :]

    def top(
        self,
        boards: Union[str, Sequence[str]],
        *,
        kind: str = "shown",
        period: str = "total",
        page: int = 1,
        per_page: int = 10,
        time: Optional[int] = None,
    ) -> List[BoardPage]:
        return self._run(self.calls.top(boards, kind=kind, period=period, page=page, per_page=per_page, time=time))

    def standing(
        self,
        board: str,
        members: Union[str, Sequence[str]],
        *,
        kind: str = "shown",
        period: str = "total",
        time: Optional[int] = None,
    ) -> List[Standing]:
        return self._run(self.calls.standing(board, members, kind=kind, period=period, time=time))

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
    ) -> Around:
        return self._run(
            self.calls.around(board, member, window=window, per_page=per_page, kind=kind, period=period, time=time)
        )

    def limits(
        self,
        user: str,
        pairs: Pairs = (),
        *,
        time: Optional[int] = None,
        channel: Optional[str] = None,
        device: Optional[str] = None,
    ) -> List[LimitLeft]:
        return self._run(self.calls.limits(user, pairs, time=time, channel=channel, device=device))

    def limits_reset(
        self,
        user: str,
        pairs: Pairs = (),
        *,
        time: Optional[int] = None,
        channel: Optional[str] = None,
        device: Optional[str] = None,
    ) -> int:
        return self._run(self.calls.limits_reset(user, pairs, time=time, channel=channel, device=device))

    def participants(self, board: str, options: Union[str, Sequence[str]] = ()) -> Participants:
        return self._run(self.calls.participants(board, options))

    def reindex(self, board: str, cursor: str = "0", count: int = 100) -> Reindexed:
        return self._run(self.calls.reindex(board, cursor, count))

    def remove_step(self, board: str, cursor: str = "0", count: int = 100) -> RemoveStep:
        """One step of finishing a removal of options (configure's
        ``remove``); loop until ``next`` is ``"0"``."""
        return self._run(self.calls.remove_step(board, cursor, count))

    def settings(self) -> Dict[str, Any]:
        return self._run(self.calls.settings())

    def stats(self, board: str, granularity: str, from_: int, to: int) -> List[StatsBucket]:
        return self._run(self.calls.stats(board, granularity, from_, to))

    def upgrade(self, cursor: str = "0", count: int = 100) -> Upgraded:
        """Move the campaign's data layout forward (call until ``next`` is "0")."""
        return self._run(self.calls.upgrade(cursor, count))

    def void(self, vote_id: str) -> Voided:
        return self._run(self.calls.void(vote_id))

    def void_range(
        self, by: str, value: str, from_: int, to: int, cursor: str = "0", count: int = 100
    ) -> VoidedRange:
        return self._run(self.calls.void_range(by, value, from_, to, cursor, count))


class CampaignRegistry(_Bound):
    """The campaign registry, the sorted set ``{c}:campaigns``."""

    def __init__(self, client: Union["redis.Redis", Scripts], key: str = "{c}:campaigns") -> None:
        super().__init__(client)
        self.calls = RegistryCalls(key)
        self.key = key

    def register(self, campaigns: Union[str, Iterable[str]]) -> int:
        """Register campaign names; answers how many were new."""
        return self._run(self.calls.register(campaigns))

    def registry(self, cursor: int = 0, count: int = 100) -> RegistryPage:
        """One page of the registry, oldest first."""
        return self._run(self.calls.registry(cursor, count))


__all__ = ["Scripts", "scripts_for", "Pending", "Pipeline", "Site", "Campaign", "CampaignRegistry", "RedvoteError"]
