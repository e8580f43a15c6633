"""The base classes of redvote's errors (the subclasses per code are generated
into ``_codes.py``; ``redvote.errors`` exports both)."""

from __future__ import annotations

from typing import ClassVar, Dict, Optional, Type, TypeVar

from redis.exceptions import ResponseError


class ScriptMismatch(ImportError):
    """A packaged script's bytes do not hash to the SHA1 its manifest gives."""


class ReplyError(Exception):
    """A script answered something that does not have its documented shape
    (a script of another version than the manifest's, or a bug)."""


class RedvoteError(ResponseError):
    """A script refused the call: ``REDVOTE_<CODE> <detail>``.

    Nothing was written (every script validates before its first write).
    ``code`` is the wire code (``"REDVOTE_UNKNOWN_ARTICLE"``), ``detail`` the
    rest of the message, in words. Each code has its subclass
    (``redvote.errors.UnknownArticle``, ...); a code this version does not
    know arrives as ``RedvoteError`` itself. It is a
    ``redis.exceptions.ResponseError``, so existing handlers still catch it.
    """

    CODE: ClassVar[Optional[str]] = None
    code: str
    detail: str

    def __init__(self, code: str, detail: str = "") -> None:
        self.code = code
        self.detail = detail
        super().__init__(f"{code} {detail}" if detail else code)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.code, self.detail))


#: The subclass of every code, filled by ``_codes.py``.
BY_CODE: Dict[str, Type[RedvoteError]] = {}


E = TypeVar("E", bound=Type[RedvoteError])


def register(cls: E) -> E:
    assert cls.CODE is not None
    BY_CODE[cls.CODE] = cls
    return cls
