"""The benchmarks' runner: an experiment is data, and one table writer.

An :class:`Experiment` names its data sets, its candidates (name -> what its
``run`` reads: an estimator's parameters, mostly), its seeds, the function that
makes one run (``run(candidate, data, seed) -> dict`` of scores), the keys its
table reports and the rule that marks the chosen rows. A benchmark module
defines one or more and calls :meth:`Experiment.main`::

    EXPERIMENT = Experiment("languages", DATA, CANDIDATES, run, KEYS, NOTE)

    if __name__ == "__main__":
        EXPERIMENT.main()

Its runs go to ``results/<name>.runs.jsonl`` as they finish, one JSON object per
line -- the record: a rerun skips the runs it holds, so work resumes, and workers
share out the runs (``--workers N --worker I``, one process each on
``$OMP_NUM_THREADS`` threads, 1 by default); ``--table`` writes
``results/<name>.md`` from it (mean ± std over seeds per data set and candidate,
the chosen rows in bold): the table the docs show, regenerated from the record.

A :class:`Measurement` is a benchmark measured once, no grid of seeds (the
speed, memory and export scripts): what it measures and its table, its record
``results/<name>.json``, ``--table`` rewriting ``results/<name>.md`` from it::

    MEASUREMENT = Measurement("onnx_speed", measure, table)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import RESULTS

__all__ = [
    "Experiment",
    "Measurement",
    "read_runs",
    "append_run",
    "write_results",
    "summarize_by",
    "mean_std_table",
    "within_one_std",
    "main_of",
]


# ---------------------------------------------------------------- the records
def read_runs(log: Path) -> list[dict]:
    """The runs already in ``log`` (none when it does not exist)."""
    if not log.is_file():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def append_run(log: Path, run: dict) -> None:
    """Add a finished run to ``log`` (so that a rerun skips it) and print it."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as f:
        f.write(json.dumps(run) + "\n")
    print(json.dumps(run), flush=True)


def write_results(out: Path, results: dict, table: str) -> None:
    """One measurement's results (the benchmarks that are no grid of runs: the
    speed and memory scripts): ``results`` to ``out.json`` -- its record -- and
    ``table`` to ``out.md``; print the table."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, indent=1))
    out.with_suffix(".md").write_text(table + "\n")
    print(table)


# ------------------------------------------------------------------ the table
def summarize_by(runs: list[dict], keys, data_order, candidate_order) -> list[dict]:
    """One row per (data set, candidate) with runs: their count ``n`` and, per
    key of ``keys`` ((key, label) pairs), ``(mean, std)`` over them, the sample
    standard deviation (0 for one run; a key no run measured is left out); rows
    in the order of ``data_order``, then ``candidate_order`` (a run of a data set
    or candidate not in them: left out)."""
    import numpy as np

    grouped: dict = {}
    for r in runs:
        if r["data"] in data_order and r["candidate"] in candidate_order:
            grouped.setdefault((r["data"], r["candidate"]), []).append(r)
    data_order, candidate_order = list(data_order), list(candidate_order)
    rows = []
    for (data, candidate), rs in sorted(
        grouped.items(),
        key=lambda kv: (data_order.index(kv[0][0]), candidate_order.index(kv[0][1])),
    ):
        row = {"data": data, "candidate": candidate, "n": len(rs)}
        for key, *_ in keys:
            values = [r[key] for r in rs if r.get(key) is not None]
            if values:
                std = np.std(values, ddof=1) if len(values) > 1 else 0.0
                row[key] = (float(np.mean(values)), float(std))
        rows.append(row)
    return rows


def mean_std_table(rows: list[dict], keys, note: str) -> str:
    """The Markdown table of :func:`summarize_by`'s rows: "mean ± std" cells (one
    decimal, or a key's third element: ``(key, label, decimals)``; the value
    alone for a row of one run), "-" where a key was not measured, a row marked
    ``chosen`` in bold; then ``note``."""
    lines = [
        "| data | candidate | seeds | " + " | ".join(k[1] for k in keys) + " |",
        "|---" * (3 + len(keys)) + "|",
    ]
    for row in rows:
        name = row["candidate"]
        if row.get("chosen"):
            name = f"**{name}** (chosen)"
        cells = []
        for key, _, *decimals in keys:
            d = decimals[0] if decimals else 1
            mean, std = row.get(key, (None, None))
            if mean is None:
                cells.append("-")
            elif row["n"] == 1:  # one run: no spread to show
                cells.append(f"{mean:,.{d}f}")
            else:
                cells.append(f"{mean:,.{d}f} ± {std:,.{d}f}")
        lines.append(
            f"| {row['data']} | {name} | {row['n']} | " + " | ".join(cells) + " |"
        )
    return "\n".join([*lines, "", note])


def within_one_std(cell: dict, names, data, key: str) -> list:
    """Of the candidates ``names``, those whose mean ``key`` is, on every data
    set of ``data``, at least the best candidate's mean less its standard
    deviation (``cell[data, name][key]``: a row's ``(mean, std)``)."""
    floors = {}
    for d in data:
        mean, std = max((cell[d, c][key] for c in names), key=lambda v: v[0])
        floors[d] = mean - std
    return [c for c in names if all(cell[d, c][key][0] >= floors[d] for d in data)]


# ------------------------------------------------------------- the experiment
@dataclass
class Experiment:
    """Data sets x candidates x seeds, the run that scores one, and its table.

    Parameters
    ----------
    name : str
        The results' stem: ``results/<name>.runs.jsonl`` and ``results/<name>.md``.
    data : tuple of str
        The data sets, in the table's order.
    candidates : mapping
        Candidate name -> what ``run`` reads of it, in the table's order.
    run : callable
        ``run(candidate, data, seed) -> dict``: one fit and its scores (the
        record; it should hold ``candidate``, ``data`` and ``seed``).
    keys : list of (str, str) or (str, str, int)
        The scores the table reports: (key in a run, column label), and the
        decimals shown where not one.
    note : str or callable
        The text under the table (a callable is called when it is written).
    seeds : tuple of int, default=(0, 1, 2)
    jobs : list of (candidate, data, seed) or None, default=None
        The runs to make, in order; None: every data set x candidate x seed.
    choose : callable or None, default=None
        ``choose(rows)`` marks the rows of the chosen candidate
        (``row["chosen"] = True``): the rule, stated in ``note``.
    vector_passes : int or None, default=None
        The passes of the estimators' own word vectors in its runs
        (:data:`aspectattn.params.VECTOR_PASSES` patched to it); None: the
        library's. The experiments whose runs were made before the library's
        changed pin the passes they ran with (:data:`common.TEN_PASSES`).
    """

    name: str
    data: tuple
    candidates: Mapping
    run: Callable[[str, str, int], dict]
    keys: list
    note: str | Callable[[], str]
    seeds: tuple = (0, 1, 2)
    jobs: list | None = None
    choose: Callable[[list[dict]], None] | None = None
    vector_passes: int | None = None

    @property
    def log(self) -> Path:
        """The record: one finished run per line."""
        return RESULTS / f"{self.name}.runs.jsonl"

    def planned(self) -> list[tuple]:
        """Every run of the experiment, in order."""
        if self.jobs is not None:
            return list(self.jobs)
        return [
            (c, d, s) for d in self.data for c in self.candidates for s in self.seeds
        ]

    def rows(self) -> list[dict]:
        """The summary of the record, the chosen rows marked."""
        rows = summarize_by(read_runs(self.log), self.keys, self.data, self.candidates)
        if self.choose is not None:
            self.choose(rows)
        return rows

    def table(self) -> str:
        """Write ``results/<name>.md`` from the record; return it."""
        note = self.note() if callable(self.note) else self.note
        table = mean_std_table(self.rows(), self.keys, note)
        (RESULTS / f"{self.name}.md").write_text(table + "\n")
        return table

    def work(self, worker=0, workers=1, candidates=None, data=None, seeds=None):
        """Make this worker's share of the planned runs that the filters keep (run
        ``i`` is worker ``i % workers``'s), skipping those the record holds."""
        chosen = [
            (c, d, s)
            for c, d, s in self.planned()
            if (candidates is None or c in candidates)
            and (data is None or d in data)
            and (seeds is None or s in seeds)
        ]
        for i, (candidate, dataset, seed) in enumerate(chosen):
            if i % workers != worker:
                continue
            done = {(r["candidate"], r["data"], r["seed"]) for r in read_runs(self.log)}
            if (candidate, dataset, seed) not in done:
                with self._passes():
                    append_run(self.log, self.run(candidate, dataset, seed))

    def _passes(self):
        """A context in which the own vectors make :attr:`vector_passes`."""
        if self.vector_passes is None:
            return contextlib.nullcontext()
        from unittest import mock

        from aspectattn import params

        return mock.patch.object(params, "VECTOR_PASSES", self.vector_passes)

    def parser(self, description: str | None = None) -> argparse.ArgumentParser:
        """The runner's flags; a benchmark adds its own modes to it."""
        parser = argparse.ArgumentParser(description=description)
        parser.add_argument("--worker", type=int, default=0)
        parser.add_argument("--workers", type=int, default=1)
        parser.add_argument("--candidates", nargs="*", default=None)
        parser.add_argument("--data", nargs="*", default=None, choices=self.data)
        parser.add_argument("--seeds", nargs="*", type=int, default=None)
        parser.add_argument("--table", action="store_true", help="write the table")
        return parser

    def main(self, args: argparse.Namespace | None = None) -> None:
        """``--table``: write and print the table; else this worker's runs, on
        ``$OMP_NUM_THREADS`` threads (1 by default: workers share the cores)."""
        if args is None:
            args = self.parser().parse_args()
        if args.table:
            print(self.table())
            return
        import torch

        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
        self.work(args.worker, args.workers, args.candidates, args.data, args.seeds)


@dataclass
class Measurement:
    """A benchmark measured once (speed, memory, exports): no seeds to repeat.

    Parameters
    ----------
    name : str
        The results' stem: ``results/<name>.json`` (the record) and
        ``results/<name>.md``.
    measure : callable
        ``measure(args) -> results``: the measurement (``args``: the parsed
        flags), as JSON data.
    table : callable
        ``table(results) -> str``: its Markdown, from the record alone.
    options : tuple of (tuple of str, dict), default=()
        Its own flags: ``(names, argparse keyword arguments)`` each.
    merge : callable or None, default=None
        ``merge(earlier, results) -> results``: how a run that measures a part
        (say ``--only``) joins the record; None: it replaces the record.
    """

    name: str
    measure: Callable[[argparse.Namespace], object]
    table: Callable[[object], str]
    options: tuple = ()
    merge: Callable[[object, object], object] | None = None

    @property
    def record(self) -> Path:
        """The results of the last run."""
        return RESULTS / f"{self.name}.json"

    def parser(self, description: str | None = None) -> argparse.ArgumentParser:
        """``--table`` and the measurement's own flags."""
        parser = argparse.ArgumentParser(description=description)
        parser.add_argument(
            "--table", action="store_true", help="rewrite the table from the record"
        )
        for names, kwargs in self.options:
            parser.add_argument(*names, **kwargs)
        return parser

    def main(self, description: str | None = None) -> None:
        """``--table``: rewrite and print the table from the record; else
        measure (alone on the machine: it is a timing), then write the record
        and the table (:func:`write_results`)."""
        args = self.parser(description).parse_args()
        if args.table:
            results = json.loads(self.record.read_text())
        else:
            results = self.measure(args)
            if self.merge is not None and self.record.is_file():
                results = self.merge(json.loads(self.record.read_text()), results)
        write_results(RESULTS / self.name, results, self.table(results))


def main_of(first: Experiment, description: str, **others: Experiment) -> None:
    """The entry point of a benchmark of several experiments: ``--NAME`` (a
    key of ``others``, ``_`` as ``-``) runs (or tabulates) that one, else
    ``first``; the runner's flags, ``--data`` among them, are the chosen one's."""
    import sys

    flags = {f"--{name.replace('_', '-')}": one for name, one in others.items()}
    chosen = next((flags[a] for a in sys.argv[1:] if a in flags), first)
    parser = chosen.parser(description)
    for flag, one in flags.items():
        parser.add_argument(flag, action="store_true", help=f"the {one.name} table")
    chosen.main(parser.parse_args())
