"""The results files the benchmarks share: a resumable log of finished runs
(``<out>.runs.jsonl``, one JSON object per line) and the summary (``<out>.json`` with
every run, ``<out>.md`` with the table)."""

from __future__ import annotations

import json
from pathlib import Path


def read_runs(log: Path) -> list[dict]:
    """The runs already in ``log`` (none when it does not exist)."""
    if not log.is_file():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def append_run(log: Path, run: dict) -> None:
    """Add a finished run to ``log`` (so that a rerun skips it) and print it."""
    with open(log, "a") as f:
        f.write(json.dumps(run) + "\n")
    print(json.dumps(run), flush=True)


def write_results(out: Path, results: dict, table: str) -> None:
    """``results`` to ``out.json``, ``table`` to ``out.md``; print the table."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, indent=1))
    out.with_suffix(".md").write_text(table + "\n")
    print(table)
