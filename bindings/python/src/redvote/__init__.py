"""redvote: atomic voting and ranking in Redis, from Python.

The redvote Lua scripts ship inside the package (``redvote/lua/``, checked
against ``lua/manifest.json`` by SHA1 at import). ``Site``, ``Campaign`` and
``CampaignRegistry`` are the typed calls over ``redis.Redis``;
``redvote.aio`` has the same over ``redis.asyncio.Redis``. ``Scripts`` runs
any script of the manifest by name. Refusals raise ``redvote.errors``
classes (``RedvoteError`` and one subclass per ``REDVOTE_*`` code).
"""

from . import errors, types
from ._calls import Call, CampaignCalls, RegistryCalls, SiteCalls
from ._lua import MANIFEST, SCRIPTS, VERSION, ScriptInfo, load_scripts
from ._sync import Campaign, CampaignRegistry, Pending, Pipeline, Scripts, Site, scripts_for
from .errors import RedvoteError, ReplyError, ScriptMismatch
from .types import *  # noqa: F401,F403

__version__ = VERSION

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
] + list(types.__all__)
