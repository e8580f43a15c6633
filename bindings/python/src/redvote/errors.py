"""Errors: every ``REDVOTE_*`` refusal of a script is a :class:`RedvoteError`
subclass named after its code (``REDVOTE_UNKNOWN_ARTICLE`` ->
:class:`UnknownArticle`), generated from the code table (``_codes.py``).
Other Redis errors (connection errors, ``NOSCRIPT`` handled by redis-py,
``TRYAGAIN``, ``WRONGTYPE``...) pass through as redis-py raised them."""

from __future__ import annotations

from typing import Optional, Type

from redis.exceptions import ResponseError

from ._base import BY_CODE as BY_CODE
from ._base import RedvoteError as RedvoteError
from ._base import ReplyError as ReplyError
from ._base import ScriptMismatch as ScriptMismatch
from ._codes import *  # noqa: F401,F403
from ._codes import __all__ as _generated

_PIPELINE_PREFIX = "of pipeline caused error: "


def error_class(code: str) -> Type[RedvoteError]:
    """The class of a code (``RedvoteError`` for a code this version lacks)."""
    return BY_CODE.get(code, RedvoteError)


def from_message(message: str) -> Optional[RedvoteError]:
    """The :class:`RedvoteError` of an error message ``REDVOTE_CODE detail``
    (also when redis-py prefixed it with a pipeline's command number), or
    None for any other error."""
    at = message.find(_PIPELINE_PREFIX)
    if at >= 0 and message.startswith("Command # "):
        message = message[at + len(_PIPELINE_PREFIX):]
    if not message.startswith("REDVOTE_"):
        return None
    code, _, detail = message.partition(" ")
    return error_class(code)(code, detail)


def convert(error: BaseException) -> BaseException:
    """``error`` as a :class:`RedvoteError` when it is a script's refusal,
    else unchanged."""
    if isinstance(error, RedvoteError) or not isinstance(error, ResponseError):
        return error
    message = str(error.args[0]) if error.args else ""
    converted = from_message(message)
    if converted is None:
        return error
    converted.__cause__ = error
    return converted


__all__ = [
    "RedvoteError",
    "ReplyError",
    "ScriptMismatch",
    "error_class",
    "from_message",
    "convert",
    "BY_CODE",
] + list(_generated)
