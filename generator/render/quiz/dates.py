"""The one date a quiz's PDFs carry (footer and metadata), never read from the clock.

``SOURCE_DATE_EPOCH`` (the reproducible-builds convention) wins where set; else the newest
run the ledger recorded, a date that changes only when the content's verification does;
else no date at all. Rebuilding tomorrow gives the same bytes.
"""
from __future__ import annotations

import datetime
import os
from typing import Optional

from ...errors import BuildError
from ...verify import Verification


class EpochError(BuildError):
    """``SOURCE_DATE_EPOCH`` is set but is not a whole number of seconds."""


def edition_date(verification: Verification) -> Optional[datetime.date]:
    """SOURCE_DATE_EPOCH's day, else the newest date the ledger recorded, else None."""
    fixed = source_date()
    if fixed:
        return fixed
    dates = sorted(run.date for run in verification.elsewhere)
    return datetime.date.fromisoformat(dates[-1]) if dates else None


def source_date() -> Optional[datetime.date]:
    """The day of ``SOURCE_DATE_EPOCH`` (UTC); None where it is unset; an EpochError where it is not a number."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None:
        return None
    try:
        return datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).date()
    except (ValueError, OverflowError, OSError):
        raise EpochError(f"SOURCE_DATE_EPOCH={epoch!r} is not a count of seconds since 1970-01-01 UTC") from None
