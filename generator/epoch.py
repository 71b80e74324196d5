"""``SOURCE_DATE_EPOCH``, the reproducible-builds convention: the day every dated output carries where it is
set. Light on purpose: the CLI reads it before the fact-check worker starts, so that a bad value fails at once."""
from __future__ import annotations

import datetime
import os
from typing import Optional

from .errors import BuildError


class EpochError(BuildError):
    """``SOURCE_DATE_EPOCH`` is set but is not a whole number of seconds."""


def source_date() -> Optional[datetime.date]:
    """The day of ``SOURCE_DATE_EPOCH`` (UTC); None where it is unset; an EpochError where it is not a number."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None:
        return None
    try:
        return datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).date()
    except (ValueError, OverflowError, OSError):
        raise EpochError(f"SOURCE_DATE_EPOCH={epoch!r} is not a count of seconds since 1970-01-01 UTC") from None
