"""One rule that reads every date of a review file."""

from __future__ import annotations

import re

import numpy as np

from ._pandas import pandas_module as _pandas

__all__ = ["DateRule"]


class DateRule:
    """One rule for reading every date of a file, so that ``03/04/2021`` means the
    same day in every chunk (pandas infers a format per call, from its first
    value). All dates come out in UTC, without a time zone (an offset is applied,
    so mixed offsets do not stop the run).

    Parameters
    ----------
    format : str or None
        A ``strptime`` format (``"%d/%m/%Y"``) for every date; anything else is
        unparsed. ``None``: ISO dates and times (with or without an offset), Unix
        timestamps (seconds, or milliseconds with 12-13 digits) and numeric dates
        such as ``05/02/2021``, read day first when ``dayfirst``.
    dayfirst : bool
        See :meth:`infer`, which decides it once from the values.
    """

    _NUMERIC = re.compile(r"\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}")
    _TIMESTAMP = re.compile(r"\d{9,13}(\.\d+)?")
    _ISO = re.compile(r"\d{4}-\d{2}-\d{2}")

    def __init__(self, format: str | None = None, dayfirst: bool = False):
        self.format, self.dayfirst = format, dayfirst

    @classmethod
    def infer(cls, values) -> DateRule:
        """The rule for ``values`` (all of a file's dates, or a sample): day first
        when a numeric date has a first number above 12 and none has a second
        number above 12; month first otherwise (pandas' default)."""
        day = month = False
        for value in values:
            text = str(value).strip()
            if cls._NUMERIC.fullmatch(text):
                first, second = (int(x) for x in re.split(r"[/.-]", text)[:2])
                day, month = day or first > 12, month or second > 12
        return cls(dayfirst=day and not month)

    def parse(self, values):
        """``(dates, n_unparsed)``: datetime64 values (NaT where missing or
        unreadable) and how many non-empty values could not be read."""
        text = [
            "" if v is None or (isinstance(v, float) and v != v) else str(v).strip()
            for v in (values.tolist() if hasattr(values, "tolist") else list(values))
        ]
        out = np.full(len(text), np.datetime64("NaT"), dtype="datetime64[ns]")
        groups: dict = {"format": [], "stamp": [], "iso": [], "other": []}
        for k, t in enumerate(text):
            if not t or t.lower() in ("nan", "nat", "none"):
                continue
            if self.format is not None:
                groups["format"].append(k)
            elif self._TIMESTAMP.fullmatch(t):
                groups["stamp"].append(k)
            elif self._ISO.match(t):
                groups["iso"].append(k)
            else:
                groups["other"].append(k)
        for kind, rows in groups.items():
            if rows:
                out[rows] = self._parse([text[k] for k in rows], kind)
        n_given = sum(map(len, groups.values()))
        return out, n_given - int((~np.isnat(out)).sum())

    def _parse(self, strings: list[str], kind: str) -> np.ndarray:
        """datetime64[ns] (UTC, no zone) of ``strings`` read as ``kind``; NaT where
        they cannot be read (element by element when pandas gives up on all)."""
        pd = _pandas()
        if kind == "stamp":
            numbers = np.array([float(t) for t in strings])
            millis = np.array([len(t.split(".")[0]) >= 12 for t in strings])
            strings, kwargs = np.where(millis, numbers / 1000, numbers), {"unit": "s"}
        elif kind == "format":
            kwargs = {"format": self.format}
        elif kind == "iso":
            kwargs = {"format": "ISO8601"}
        else:
            kwargs = {"format": "mixed", "dayfirst": self.dayfirst}

        def read(batch):
            parsed = pd.to_datetime(batch, errors="coerce", utc=True, **kwargs)
            return np.asarray(parsed.tz_convert(None), dtype="datetime64[ns]")

        try:
            return read(strings)
        except (ValueError, OverflowError, TypeError):  # e.g. a year out of range
            out = np.full(len(strings), np.datetime64("NaT"), dtype="datetime64[ns]")
            for k, value in enumerate(strings):
                try:
                    out[k] = read([value])[0]
                except (ValueError, OverflowError, TypeError):
                    pass
            return out
