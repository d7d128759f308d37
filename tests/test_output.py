"""Files written whole or not at all, with the mode open() would give
(aspectattn._output): model files, ONNX exports, reports, CLI outputs."""

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import FAST

from aspectattn import AspectAttentionClassifier
from aspectattn._output import output_path


@pytest.fixture(scope="module")
def fitted(pairs):
    return AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(*pairs)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".tmp" in p.name)


def test_outputs_honour_the_umask(fitted, tmp_path, umask_022):
    from aspectattn.cli._common import _write_rows
    from aspectattn.serving.export import export_onnx

    fitted.save(tmp_path / "model.aam")
    export_onnx(fitted, tmp_path / "export")
    _write_rows([{"text": "a", "label": "positive"}], str(tmp_path / "table.csv"))
    for path in ("model.aam", "export/model.onnx", "export/model.json", "table.csv"):
        assert _mode(tmp_path / path) == 0o644, path  # not mkstemp's 0o600
    os.chmod(tmp_path / "model.aam", 0o640)  # an existing file keeps its mode
    fitted.save(tmp_path / "model.aam")
    assert _mode(tmp_path / "model.aam") == 0o640
    assert not _leftovers(tmp_path) and not _leftovers(tmp_path / "export")


def test_a_failed_save_leaves_the_previous_file(fitted, tmp_path, monkeypatch):
    path = tmp_path / "model.aam"
    fitted.save(path)
    before = path.read_bytes()

    def disk_full(obj, f, *args, **kwargs):
        with open(f, "wb") as out:
            out.write(b"PK\x03\x04 half a file")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(torch, "save", disk_full)
    with pytest.raises(OSError, match="No space left"):
        fitted.save(path)
    assert path.read_bytes() == before and not _leftovers(tmp_path)
    monkeypatch.undo()
    type(fitted).load(path)  # still a good model


def test_a_failed_re_export_leaves_the_previous_export(fitted, tmp_path, monkeypatch):
    from aspectattn.serving.export import export_onnx
    from aspectattn.serving.runtime import load_onnx

    directory = export_onnx(fitted, tmp_path / "export")
    before = {p.name: p.read_bytes() for p in directory.iterdir()}

    def disk_full(model, args, f, *rest, **kwargs):
        with open(f, "wb") as out:
            out.write(b"half a graph")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(torch.onnx, "export", disk_full)
    with pytest.raises(OSError, match="No space left"):
        export_onnx(fitted, directory)
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before
    monkeypatch.undo()
    load_onnx(directory)  # checksum and graph still match


def test_sigterm_in_the_command_line_leaves_no_partial_file(tmp_path):
    # the command line turns SIGTERM into SystemExit: output_path cleans up
    code = (
        "import os, signal, sys, time\n"
        "from aspectattn._output import exit_on_sigterm, output_path\n"
        "exit_on_sigterm()\n"
        "with output_path(sys.argv[1]) as tmp:\n"
        "    tmp.write_text('partial')\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(10)\n"
    )
    target = tmp_path / "table.csv"
    done = subprocess.run(
        [sys.executable, "-c", code, str(target)], timeout=60, capture_output=True
    )
    assert done.returncode == 143
    assert list(tmp_path.iterdir()) == []


def test_output_path_renames_only_a_whole_file(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with output_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
    with output_path(target) as tmp:
        tmp.write_text("whole")
    assert target.read_text() == "whole"


def test_a_pipe_or_a_device_is_written_through_never_replaced(tmp_path):
    """`--out` onto a FIFO or /dev/null writes to it; a socket is refused; the
    node stays what it was (it was renamed over, a regular file in its place)."""
    import socket
    import threading

    from aspectattn._output import written_through

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    with output_path(fifo) as tmp:
        assert tmp == fifo
        tmp.write_text("a,b\n")
    reader.join(10)
    assert got == ["a,b\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    with output_path("/dev/null") as tmp:
        Path(tmp).write_text("x")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "s"))
        with pytest.raises(OSError, match="socket"):
            written_through(tmp_path / "s")
    finally:
        sock.close()
    assert written_through(tmp_path / "missing") is False


def test_an_unwritable_directory_names_the_output_not_a_temporary_file(tmp_path):
    target = tmp_path / "no" / "such" / "model.aam"
    with pytest.raises(OSError) as info:
        with output_path(target):
            pass
    assert info.value.filename == str(target) and ".tmp" not in str(info.value)


def test_a_symlink_is_followed_as_open_follows_it(tmp_path):
    """The link stayed a link? It was replaced by a regular file, and the file
    it pointed to kept its old content."""
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    with output_path(link) as tmp:
        Path(tmp).write_text("new")
    assert link.is_symlink() and target.read_text() == "new"
    dangling = tmp_path / "dangling.csv"
    dangling.symlink_to(tmp_path / "made.csv")
    with output_path(dangling) as tmp:
        Path(tmp).write_text("made")
    assert dangling.is_symlink() and (tmp_path / "made.csv").read_text() == "made"
