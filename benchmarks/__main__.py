"""The benchmarks' one entry point: ``python -m benchmarks NAME [ARGS ...]`` runs
the benchmark ``NAME`` (``benchmarks/NAME.py``) with ``ARGS`` (``--help`` after
``NAME``: its options); ``python -m benchmarks`` alone lists the names."""

from __future__ import annotations

import pkgutil
import runpy
import sys
from pathlib import Path

#: Modules that the benchmarks share, not benchmarks themselves.
SHARED = frozenset({"common", "runner"})


def names() -> list[str]:
    """The benchmarks' names: every module of the package but the shared ones."""
    here = [str(Path(__file__).parent)]
    return sorted(
        m.name
        for m in pkgutil.iter_modules(here)
        if m.name not in SHARED and not m.name.startswith("_")
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    known = names()
    if not argv or argv[0] not in known:
        asked = bool(argv) and argv[0] in ("-h", "--help")
        out = sys.stdout if asked else sys.stderr
        if argv and not asked:
            print(f"no benchmark named {argv[0]!r}", file=out)
        print(
            "usage: python -m benchmarks NAME [ARGS ...]\n"
            f"NAME: one of {', '.join(known)} (benchmarks/README.md says what "
            "each measures; NAME --help: its options)",
            file=out,
        )
        return 0 if asked else 2
    sys.argv = [f"python -m benchmarks {argv[0]}", *argv[1:]]
    runpy.run_module(f"benchmarks.{argv[0]}", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
