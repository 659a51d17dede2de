"""The bots' reasons are :mod:`xactika.core.engine.reason` (the core's configuration errors
use them too); this name is kept for code that imports it from here."""

from xactika.core.engine.reason import Reason, counted, plural_count

__all__ = ["Reason", "counted", "plural_count"]
