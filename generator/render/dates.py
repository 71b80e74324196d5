"""The one date a quiz's PDFs carry (footer and metadata), never read from the clock.

``SOURCE_DATE_EPOCH`` (the reproducible-builds convention) wins where set; else the newest
run the ledger recorded, a date that changes only when the content's verification does;
else no date at all. Rebuilding tomorrow gives the same bytes.
"""
from __future__ import annotations

import datetime
from typing import Optional

from ..epoch import EpochError, source_date
from ..verify import Verification

__all__ = ["EpochError", "edition_date", "source_date"]


def edition_date(verification: Verification) -> Optional[datetime.date]:
    """SOURCE_DATE_EPOCH's day, else the newest date the ledger recorded, else None."""
    fixed = source_date()
    if fixed:
        return fixed
    dates = sorted(run.date for run in verification.elsewhere)
    return datetime.date.fromisoformat(dates[-1]) if dates else None
