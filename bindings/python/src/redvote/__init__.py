"""redvote: atomic voting and ranking in Redis, from Python.

The redvote Lua scripts ship inside the package (``redvote/lua/``, copied
from the repository's ``lua/`` when the package is built, checked against
their manifest by SHA1 at import). ``Site``, ``Campaign`` and
``CampaignRegistry`` are the typed calls over ``redis.Redis``;
``redvote.aio`` has the same over ``redis.asyncio.Redis``. ``Scripts`` runs
any script of the manifest by name. Refusals raise ``redvote.errors``
classes (``RedvoteError`` and one subclass per ``REDVOTE_*`` code).
"""

from . import errors as errors
from . import types as types
from ._calls import Call as Call
from ._calls import CampaignCalls as CampaignCalls
from ._calls import RegistryCalls as RegistryCalls
from ._calls import SiteCalls as SiteCalls
from ._lua import MANIFEST as MANIFEST
from ._lua import SCRIPTS as SCRIPTS
from ._lua import VERSION as VERSION
from ._lua import ScriptInfo as ScriptInfo
from ._lua import load_scripts as load_scripts
from ._sync import Campaign as Campaign
from ._sync import CampaignRegistry as CampaignRegistry
from ._sync import Pending as Pending
from ._sync import Pipeline as Pipeline
from ._sync import Scripts as Scripts
from ._sync import Site as Site
from ._sync import scripts_for as scripts_for
from .errors import RedvoteError as RedvoteError
from .errors import ReplyError as ReplyError
from .errors import ScriptMismatch as ScriptMismatch
from .types import *  # noqa: F401,F403

__version__ = VERSION

# A literal list extended by `+=`, the forms type checkers read to know what
# the package exports (mypy --strict rejected a list built by `+`).
__all__ = [
    "Site",
    "Campaign",
    "CampaignRegistry",
    "Scripts",
    "scripts_for",
    "Pipeline",
    "Pending",
    "Call",
    "SiteCalls",
    "CampaignCalls",
    "RegistryCalls",
    "MANIFEST",
    "SCRIPTS",
    "VERSION",
    "ScriptInfo",
    "load_scripts",
    "RedvoteError",
    "ReplyError",
    "ScriptMismatch",
    "errors",
    "types",
]
__all__ += types.__all__  # the reply types, listed once in types.py
