"""Checks of fields read from files (saved models, exported models) and the reading
of files (regular files only, lines at line ends only): numpy only, so that the
torch-free runtime (:mod:`aspectattn.serving.runtime`) shares them. Every check
raises ``ValueError`` with what was expected."""

from __future__ import annotations

import errno
import math
import os
import re
import stat
from contextlib import contextmanager

import numpy as np

_LABEL_DTYPES = {"<i8", "<i4", "<i2", "|i1", "<u8", "<u4", "<u2", "|u1", "<f8", "<f4"}
_LABEL_DTYPES |= {"|b1"}


def _is_int(value, low=0, high=None) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value >= low
        and (high is None or value <= high)
    )


def _is_number(value) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


def _strings(value, what: str, max_items: int = 1_000_000) -> list[str]:
    if not (
        isinstance(value, list)
        and len(value) <= max_items
        and all(isinstance(v, str) and 0 < len(v) <= 10_000 for v in value)
        and len(set(value)) == len(value)
    ):
        raise ValueError(f"{what} must be a list of distinct non-empty strings")
    return value


def labels_state(labels: np.ndarray) -> dict:
    """Labels as data (``{"values": [...], "dtype": "<U8"}``): what :func:`_labels`
    reads back."""
    return {"values": labels.tolist(), "dtype": labels.dtype.str}


def _labels(value) -> np.ndarray:
    if not isinstance(value, dict) or set(value) != {"values", "dtype"}:
        raise ValueError("classes_ must be an object with 'values' and 'dtype'")
    values, dtype = value["values"], value["dtype"]
    if not isinstance(values, list) or not 2 <= len(values) <= 100_000:
        raise ValueError("classes_ must hold 2 to 100000 labels")
    if not isinstance(dtype, str):
        raise ValueError("the dtype of classes_ must be a string")
    if dtype.startswith(("<U", "|O")):
        _strings(values, "classes_")
        out = np.asarray(values, dtype=str if dtype[1] == "U" else object)
    elif dtype in _LABEL_DTYPES:
        if not all(_is_number(v) or isinstance(v, bool) for v in values):
            raise ValueError("classes_ must be numbers for a numeric dtype")
        out = np.asarray(values, dtype=np.dtype(dtype))
    else:
        raise ValueError(f"classes_ has an unsupported dtype {dtype[:20]!r}")
    if len(np.unique(out)) != len(out):
        raise ValueError("classes_ must be distinct")
    return out


@contextmanager
def open_regular(path):
    """``(file, stat)`` of ``path`` opened for reading, when it is a regular file.
    A device (a symlink to ``/dev/zero``) or a FIFO raises ``ValueError``; a FIFO
    is opened without waiting for a writer (``O_NONBLOCK``), so it is refused
    instead of blocking."""
    fd = os.open(os.fspath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):  # as open() says it, naming the path
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path} is not a regular file")
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with f:
        yield f, info


#: The line ends of a text file. ``str.splitlines`` also splits at U+2028, U+0085,
#: \x1c-\x1e..., which pandas and ``json.dumps`` write raw inside a field.
_LINE_END = re.compile(r"\r\n|\r|\n")


def file_lines(text: str) -> list[str]:
    """The lines of a text file's content (split at \\n, \\r\\n and \\r only)."""
    lines = _LINE_END.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines
