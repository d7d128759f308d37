"""Files the library and the command line write: whole or not at all, with the mode
a plain ``open(path, "w")`` would give (torch-free).

:func:`output_path` gives a temporary path beside the target; the file is renamed
onto the target when the block ends without an error and removed when it fails or
is interrupted (``KeyboardInterrupt``, and SIGTERM once the command line has turned
it into :class:`SystemExit`), so a full disk or a killed run never leaves a
half-written file, nor destroys the good one it was replacing. A pipe or a
character device (a FIFO, ``/dev/stdout``) is written through instead: it is
never replaced by a regular file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import sys
import tempfile
import threading
from pathlib import Path

__all__ = ["output_path", "written_through", "creation_mode", "exit_on_sigterm"]


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


def written_through(path) -> bool:
    """Whether ``path`` is a pipe or a character device (``/dev/stdout``, a
    FIFO, ``/dev/null``), which is written to as it is: renaming a file over it
    would replace it. False for a regular file or a path that does not exist.

    Raises
    ------
    OSError
        ``path`` is a directory, a socket or a block device: nothing is written
        to those.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    if stat.S_ISREG(mode):
        return False
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return True
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory; give a file name", path)
    kind = "a socket" if stat.S_ISSOCK(mode) else "a block device"
    raise OSError(errno.EINVAL, f"is {kind}, not a file to write to", str(path))


@contextlib.contextmanager
def output_path(path):
    """A temporary path beside ``path`` to write to, renamed to ``path`` (with
    :func:`creation_mode`) when the block ends without an error, removed when it
    does not; ``path`` itself where it is a pipe or a character device
    (:func:`written_through`), which is written to, never replaced. A symbolic
    link is followed, as ``open()`` follows it: the file it points to is
    written, and the link stays."""
    path = Path(path)
    if path.is_symlink():  # as open() does: the file it points to, not the link
        path = Path(os.path.realpath(path))
    if written_through(path):
        yield path
        return
    try:
        fd, tmp = tempfile.mkstemp(
            dir=path.parent if str(path.parent) else ".",
            prefix=f".{path.name}.",
            suffix=".tmp" + path.suffix,
        )
    except OSError as exc:  # the target's name, not the temporary file's
        raise type(exc)(
            exc.errno, f"cannot write there ({exc.strerror})", str(path)
        ) from None
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
