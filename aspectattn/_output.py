"""Files the library and the command line write: whole or not at all, with the mode
a plain ``open(path, "w")`` would give (torch-free).

:func:`output_path` gives a temporary path beside the target; the file is renamed
onto the target when the block ends without an error and removed when it fails or
is interrupted (``KeyboardInterrupt``, and SIGTERM once the command line has turned
it into :class:`SystemExit`), so a full disk or a killed run never leaves a
half-written file, nor destroys the good one it was replacing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import tempfile
import threading
from pathlib import Path

__all__ = ["output_path", "creation_mode", "exit_on_sigterm"]


def _umask() -> int:
    """The process's umask, read without changing it where the system tells it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore (what the shell does)
    os.umask(mask)
    return mask


def creation_mode(path: Path) -> int:
    """The mode ``open(path, "w")`` leaves: an existing file's own, else 0o666
    less the umask (a temporary file is made 0o600)."""
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    return 0o666 & ~_umask()


@contextlib.contextmanager
def output_path(path):
    """A temporary path beside ``path`` to write to, renamed to ``path`` (with
    :func:`creation_mode`) when the block ends without an error, removed when it
    does not."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent if str(path.parent) else ".",
        prefix=f".{path.name}.",
        suffix=".tmp" + path.suffix,
    )
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, creation_mode(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _exit_143(signum, frame):
    sys.exit(128 + signum)


def exit_on_sigterm() -> None:
    """Turn SIGTERM into ``SystemExit(143)`` so that ``finally`` blocks and
    :func:`output_path` clean up (the default handler ends the process at once).
    For programs (the command line), not for a library's importers."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_143)
