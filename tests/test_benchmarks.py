"""The benchmark commands the README, the benchmarks' README and the docs give run as
written from a fresh clone: every module they name imports as ``python -m`` runs
it (the repository's root first on the path, nothing set in PYTHONPATH), and the
speed benchmark's child process finds the package too."""

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import requires_shared_data

ROOT = Path(__file__).resolve().parents[1]
DOCS = [
    ROOT / "README.md",
    ROOT / "benchmarks" / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
]


def _fresh_env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.setdefault("ASPECTATTN_DATA", str(ROOT.parent / "shared" / "data"))
    return env


def _run_fresh(code: str, *args: str) -> str:
    """Run ``python -c code`` as from a fresh clone's root; its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=_fresh_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _documented_modules() -> list[str]:
    names = set()
    for doc in DOCS:
        names.update(re.findall(r"python -m (benchmarks\.\w+)", doc.read_text()))
    return sorted(names)


def test_every_documented_benchmark_command_names_a_module_that_runs():
    modules = _documented_modules()
    assert "benchmarks.speed" in modules and len(modules) >= 5
    for name in modules:  # each module exists as a file, with a main guard
        path = ROOT / (name.replace(".", "/") + ".py")
        assert path.is_file(), name
        assert '__name__ == "__main__"' in path.read_text(), name
    code = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    _run_fresh(code, *modules)


@requires_shared_data("semeval2014_restaurants/Restaurants_Train_v2.xml")
def test_the_speed_benchmarks_child_process_finds_the_package():
    # python -m benchmarks.speed crashed at its memory step on a fresh clone:
    # the child ran speed.py as a script, where `import benchmarks` fails
    code = (
        "from benchmarks.speed import _child_peak\nprint(_child_peak('import') > 0)\n"
    )
    assert _run_fresh(code).strip().endswith("True")
