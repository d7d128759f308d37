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


def summarize_by(runs: list[dict], keys, data_order, candidate_order) -> list[dict]:
    """One row per (data set, candidate): the runs' count and, per key of
    ``keys`` ((key, label) pairs), (mean, std) over them; rows in the order of
    ``data_order`` and ``candidate_order``."""
    import numpy as np

    grouped: dict = {}
    for r in runs:
        grouped.setdefault((r["data"], r["candidate"]), []).append(r)
    rows = []
    for (data, candidate), rs in sorted(
        grouped.items(),
        key=lambda kv: (
            list(data_order).index(kv[0][0]),
            list(candidate_order).index(kv[0][1]),
        ),
    ):
        row = {"data": data, "candidate": candidate, "n": len(rs)}
        for key, _ in keys:
            values = [r[key] for r in rs if r.get(key) is not None]
            if values:
                row[key] = (float(np.mean(values)), float(np.std(values)))
        rows.append(row)
    return rows


def mean_std_table(rows: list[dict], keys, note: str) -> str:
    """The Markdown table of :func:`summarize_by`'s rows ("mean ± std" cells,
    "-" where a key was not measured), then ``note``."""
    lines = [
        "| data | candidate | n | " + " | ".join(label for _, label in keys) + " |",
        "|---" * (3 + len(keys)) + "|",
    ]
    for row in rows:
        cells = [
            f"{row[k][0]:.1f} ± {row[k][1]:.1f}" if k in row else "-" for k, _ in keys
        ]
        lines.append(
            f"| {row['data']} | {row['candidate']} | {row['n']} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join([*lines, "", note])


def run_share(jobs, args, log: Path, run) -> None:
    """Run this worker's share of ``jobs`` ((candidate, data, seed) triples, those
    that ``args.candidates``/``data``/``seeds`` keep; job ``i`` is worker
    ``i % args.workers``'s), skipping the ones ``log`` holds, appending each."""
    chosen = [
        (c, d, s)
        for c, d, s in jobs
        if (not args.candidates or c in args.candidates)
        and (not args.data or d in args.data)
        and (args.seeds is None or s in args.seeds)
    ]
    for i, (candidate, data, seed) in enumerate(chosen):
        if i % args.workers != args.worker:
            continue
        done = {(r["candidate"], r["data"], r["seed"]) for r in read_runs(log)}
        if (candidate, data, seed) in done:
            continue
        append_run(log, run(candidate, data, seed))


def worker_parser(data, description: str | None = None):
    """The flags of a benchmark whose runs share out over workers: ``--worker``,
    ``--workers``, ``--candidates``, ``--data`` (one of ``data``), ``--seeds``
    and ``--table``; add a benchmark's own to it."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--worker", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--candidates", nargs="*", default=None)
    parser.add_argument("--data", nargs="*", default=None, choices=data)
    parser.add_argument("--seeds", nargs="*", type=int, default=None)
    parser.add_argument("--table", action="store_true")
    return parser


def work_or_table(args, jobs, log: Path, run, out: Path, summarize, markdown):
    """With ``--table``: the summary of ``log``'s runs to ``out``; else this
    worker's share of ``jobs`` (:func:`run_share`), on ``$OMP_NUM_THREADS``
    threads (1 by default: workers share the cores)."""
    import os

    import torch

    if args.table:
        runs = read_runs(log)
        rows = summarize(runs)
        write_results(out, {"runs": runs, "rows": rows}, markdown(rows))
        return
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    run_share(jobs, args, log, run)
