"""The benchmark commands the README, the benchmarks' README and the docs give run as
written from a fresh clone: every module they name imports as ``python -m`` runs
it (the repository's root first on the path, nothing set in PYTHONPATH), and the
speed benchmark's child process finds the package too."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
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
        text = doc.read_text()
        assert not re.search(r"python -m benchmarks\.\w", text), doc  # one entry
        names.update(re.findall(r"python -m benchmarks ([a-z][a-z0-9_]*)", text))
    return [f"benchmarks.{name}" for name in sorted(names)]


def test_every_documented_benchmark_command_names_a_module_that_runs():
    from benchmarks.__main__ import names

    modules = _documented_modules()
    assert "benchmarks.speed" in modules and len(modules) >= 5
    assert {m.removeprefix("benchmarks.") for m in modules} <= set(names())
    for name in modules:  # each module exists as a file, with a main guard
        path = ROOT / (name.replace(".", "/") + ".py")
        assert path.is_file(), name
        assert '__name__ == "__main__"' in path.read_text(), name
    code = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    _run_fresh(code, *modules)


def test_the_one_entry_point_runs_a_benchmark_by_name(capsys, monkeypatch):
    from benchmarks.__main__ import main, names

    assert "behaviour" in names() and "runner" not in names()
    assert main([]) == 2
    assert "usage: python -m benchmarks NAME" in capsys.readouterr().err
    assert main(["nope"]) == 2
    assert "no benchmark named 'nope'" in capsys.readouterr().err
    assert main(["--help"]) == 0 and "baselines" in capsys.readouterr().out
    # as a module from the root (the names alone: no benchmark, no torch imported)
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--help"],
        cwd=ROOT, env=_fresh_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0 and "forms_table" in done.stdout, done.stderr
    monkeypatch.setattr(sys, "argv", sys.argv[:])
    with pytest.raises(SystemExit) as ran:  # a benchmark's own parser, by name
        main(["forms_table", "--help"])
    assert ran.value.code == 0 and "--candidates" in capsys.readouterr().out


@requires_shared_data("semeval2014_restaurants/Restaurants_Train_v2.xml")
def test_the_speed_benchmarks_child_process_finds_the_package(monkeypatch):
    # python -m benchmarks speed crashed at its memory step on a fresh clone:
    # the child ran speed.py as a script, where `import benchmarks` fails (the
    # child is started as the benchmark starts it, with no PYTHONPATH)
    from benchmarks.speed import _child_peak

    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert _child_peak("import") > 0


# ------------------------------------------------------------------ the runner
def test_an_experiment_runs_resumes_shares_and_writes_its_table(tmp_path, monkeypatch):
    import benchmarks.runner as runner

    monkeypatch.setattr(runner, "RESULTS", tmp_path)
    made = []

    def run(candidate, data, seed):
        made.append((candidate, data, seed))
        score = {"small": 1.0, "large": 3.0}[candidate] + seed
        return {"candidate": candidate, "data": data, "seed": seed, "score": score}

    def choose(rows):
        best = max(rows, key=lambda r: r["score"][0])
        best["chosen"] = True

    experiment = runner.Experiment(
        "toy", ("a", "b"), {"small": {}, "large": {}}, run, [("score", "score", 2)],
        "the note", seeds=(0, 1), choose=choose,
    )  # fmt: skip
    experiment.work(worker=1, workers=2)  # every second run of the plan
    assert made == experiment.planned()[1::2]
    experiment.work()  # the rest; the record's runs are skipped
    assert sorted(made) == sorted(experiment.planned()) and len(made) == 8
    experiment.work()
    assert len(made) == 8  # nothing left to run
    table = experiment.table().splitlines()
    assert table[0] == "| data | candidate | seeds | score |"
    # mean ± sample std over the two seeds; the chosen rows in bold
    assert table[2] == "| a | small | 2 | 1.50 ± 0.71 |"
    assert table[3] == "| a | **large** (chosen) | 2 | 3.50 ± 0.71 |"
    assert table[-1] == "the note"
    assert (tmp_path / "toy.md").read_text().splitlines() == table


def test_an_experiment_runs_with_the_vector_passes_it_pins(tmp_path, monkeypatch):
    """An experiment whose runs predate the library's passes pins those it ran
    with; one that says nothing runs with the library's."""
    import benchmarks.runner as runner
    from aspectattn import params
    from aspectattn.params import VECTOR_PASSES

    monkeypatch.setattr(runner, "RESULTS", tmp_path)

    def run(candidate, data, seed):
        passes = params.VECTOR_PASSES
        return {"candidate": candidate, "data": data, "seed": seed, "passes": passes}

    for name, pinned in (("pinned", 10), ("library", None)):
        runner.Experiment(
            name, ("a",), {"c": {}}, run, [("passes", "passes")], "", seeds=(0,),
            vector_passes=pinned,
        ).work()  # fmt: skip
        (record,) = runner.read_runs(tmp_path / f"{name}.runs.jsonl")
        assert record["passes"] == (pinned or VECTOR_PASSES)
    assert VECTOR_PASSES == 30 and params.VECTOR_PASSES == VECTOR_PASSES


def test_a_measurement_writes_its_record_and_rewrites_its_table_from_it(
    tmp_path, monkeypatch
):
    import benchmarks.runner as runner

    monkeypatch.setattr(runner, "RESULTS", tmp_path)
    measured = []

    def measure(args):
        measured.append(args.only)
        names = ["a", "b"] if args.only is None else [args.only]
        return [{"model": n, "rate": float(len(measured))} for n in names]

    def table(rows):
        return "\n".join(f"{r['model']}: {r['rate']:.0f}" for r in rows)

    def merge(earlier, rows):  # a partial run replaces its models' rows
        again = {r["model"] for r in rows}
        return [r for r in earlier if r["model"] not in again] + rows

    toy = runner.Measurement(
        "toy", measure, table, options=((("--only",), {}),), merge=merge
    )
    monkeypatch.setattr(sys, "argv", ["toy"])
    toy.main()
    assert json.loads((tmp_path / "toy.json").read_text())[1] == {
        "model": "b",
        "rate": 1.0,
    }
    assert (tmp_path / "toy.md").read_text() == "a: 1\nb: 1\n"
    monkeypatch.setattr(sys, "argv", ["toy", "--only", "a"])
    toy.main()  # measures a again; b's row stays
    assert (tmp_path / "toy.md").read_text() == "b: 1\na: 2\n"
    (tmp_path / "toy.md").write_text("edited by hand")
    monkeypatch.setattr(sys, "argv", ["toy", "--table"])
    toy.main()  # from the record, measuring nothing
    assert (
        measured == [None, "a"] and (tmp_path / "toy.md").read_text() == "b: 1\na: 2\n"
    )


@pytest.mark.parametrize(
    "module",
    ["speed", "onnx_speed", "int8_export", "term_grouping", "report_grouping"],
)
def test_the_committed_measurement_tables_are_what_their_records_give(module):
    """Each measurement's committed table regenerates from its record."""
    import importlib

    one = importlib.import_module(f"benchmarks.{module}").MEASUREMENT
    committed = ROOT / "benchmarks" / "results" / f"{one.name}.md"
    results = json.loads(one.record.read_text())
    assert committed.read_text() == one.table(results) + "\n"


@requires_shared_data("semeval2014_restaurants/Restaurants_Train_v2.xml")
def test_the_committed_tables_are_what_their_records_give():
    """Each experiment's table regenerates from its committed run log: the table
    is never edited by hand, and the record is complete."""
    import importlib

    from benchmarks.runner import mean_std_table

    for module, name in [
        ("languages", "EXPERIMENT"),
        ("distillation", "EXPERIMENT"),
        ("pretrained", "EXPERIMENT"),
        ("extraction", "EXPERIMENT"),
        ("joint", "EXPERIMENT"),
        ("quantize", "EXPERIMENT"),
        ("behaviour", "EXPERIMENT"),
        ("behaviour", "CATEGORY_EXPERIMENT"),
        ("behaviour", "DETECTOR_EXPERIMENT"),
        ("behaviour", "CATEGORY_PAIR_EXPERIMENT"),
        ("behaviour", "VOCABULARY_EXPERIMENT"),
        ("negation", "EXPERIMENT"),
        ("negation", "DETECTOR_EXPERIMENT"),
        ("copy_weight", "EXPERIMENT"),
        ("copy_weight", "DETECTOR_EXPERIMENT"),
        ("copy_weight", "PAIR_EXPERIMENT"),
        ("review_vectors", "EXPERIMENT"),
        ("own_vectors", "EXPERIMENT"),
        ("own_vectors", "PAIR_EXPERIMENT"),
        ("own_vectors", "DETECTOR_EXPERIMENT"),
        ("word_dropout", "EXPERIMENT"),
        ("word_dropout", "PAIR_EXPERIMENT"),
        ("word_dropout", "DETECTOR_EXPERIMENT"),
        ("word_dropout", "PAIRS_CONFIRM"),
        ("word_dropout", "DETECTOR_CONFIRM"),
        ("averaged_lstm", "EXPERIMENT"),
        ("averaged_lstm", "PAIR_EXPERIMENT"),
        ("averaged_lstm", "DETECTOR_EXPERIMENT"),
        ("averaged_lstm", "PAIRS_CONFIRM"),
        ("averaged_lstm", "DETECTOR_CONFIRM"),
        ("second_source", "EXPERIMENT"),
        ("second_source", "TERM_EXPERIMENT"),
        ("second_source", "DETECTOR_EXPERIMENT"),
        ("second_source", "PAIRS_CONFIRM"),
        ("second_source", "DETECTOR_CONFIRM"),
        ("lstm_training", "EXPERIMENT"),
        ("lstm_training", "DETECTOR_EXPERIMENT"),
        ("lstm_training", "PAIR_EXPERIMENT"),
        ("lstm_training", "CONFIRM_EXPERIMENT"),
        ("decoding", "EXPERIMENT"),
        ("terms", "EXPERIMENT"),
        ("attention_lstm", "EXPERIMENT"),
        ("aspect_level", "EXPERIMENT"),
        ("baselines", "EXPERIMENT"),
        ("baselines", "OWN_EXPERIMENT"),
        ("forms_table", "EXPERIMENT"),
    ]:
        experiment = getattr(importlib.import_module(f"benchmarks.{module}"), name)
        experiments = [experiment]
        if module == "aspect_level":  # the records it wrote for other pages
            import dataclasses

            experiments += [
                dataclasses.replace(experiment, name=name)
                for name in ("one_fit", "augment_join_pairs", "pretrained_detector")
            ]
        for one in experiments:
            rows = mean_std_table(one.rows(), one.keys, "").splitlines()
            committed = ROOT / "benchmarks" / "results" / f"{one.name}.md"
            assert committed.read_text().splitlines()[: len(rows) - 1] == rows[:-1], (
                one.name
            )


def _rule_choice(values, accuracy, negation, drop=None, **kwargs) -> set:
    """What benchmarks/negation.py's rule marks among the candidates of
    ``values`` (name -> {key: a value, or data set -> value}, each with std 1)
    on data sets "a" and "b", ``drop`` (a (data set, name)) left out."""
    from benchmarks.negation import rule

    data, rows = ("a", "b"), []
    for d in data:
        for name, keys in values.items():
            if (d, name) != drop:
                cells = {
                    k: (v[d] if isinstance(v, dict) else v, 1.0)
                    for k, v in keys.items()
                }
                rows.append({"data": d, "candidate": name, **cells})
    rule(data, values, accuracy, negation, **kwargs)(rows)
    return {r["candidate"] for r in rows if r.get("chosen")}


def test_the_negation_rule_gives_up_at_most_a_point_of_accuracy_or_ars():
    """benchmarks/negation.py's rule: every form wins on more negation probes
    right, unless it costs more than one point of validation accuracy on a data
    set or of validation ARS on average; the probes of a form are the places it
    fits."""
    from benchmarks.negation import negation_probes

    def chosen(every_accuracy, every_ars, every_negated):
        """The rule's choice where "three" has accuracy 70, ARS 60 and 80% of
        the negation probes right on both data sets."""
        three = {"valid_accuracy": 70.0, "valid_ars": 60.0, "valid_negated": 80.0}
        every = {
            "valid_accuracy": every_accuracy,
            "valid_ars": every_ars,
            "valid_negated": every_negated,
        }
        values = {"three": three, "every": every}
        return _rule_choice(values, "valid_accuracy", "valid_negated")

    assert chosen({"a": 69.1, "b": 71}, 59.1, 81) == {"every"}
    assert chosen({"a": 68.9, "b": 71}, 59.1, 81) == {"three"}  # accuracy on a
    assert chosen({"a": 70, "b": 70}, 58.9, 81) == {"three"}  # ARS
    assert chosen({"a": 70, "b": 70}, 60, 80) == {"three"}  # no more probes right

    pairs = [
        ("The pasta was great.", "pasta", (4, 9)),
        ("Great pasta.", "pasta", (6, 11)),
    ]
    probes = negation_probes(pairs, ["positive", "positive"])
    assert [x[0] for x in probes["n't"][0]] == ["The pasta wasn't great."]
    assert probes["not"][1].tolist() == ["negative", "negative"]
    assert probes["no"][0] == []


def test_the_rule_anchored_at_the_defaults_counts_its_bound_from_them():
    """benchmarks/lstm_training.py --pairs-confirm (the rule with
    ``anchor=``): the challenger replaces the defaults when it gives up at most
    a point of their validation accuracy on each data set and of their averaged
    ARS, and answers more negation probes; no row is marked before both have
    every data set."""

    def chosen(accuracy, ars, negated, drop=None):
        defaults = {"valid_accuracy": 74.0, "valid_ars": 61.0, "valid_n": 20.0}
        new = {"valid_accuracy": accuracy, "valid_ars": ars, "valid_n": negated}
        values = {"defaults": defaults, "new": new}
        return _rule_choice(
            values, "valid_accuracy", "valid_n", drop=drop, anchor="defaults"
        )

    assert chosen({"a": 73.1, "b": 80}, 60.1, 21) == {"new"}
    assert chosen({"a": 72.9, "b": 80}, 62, 90) == {"defaults"}  # accuracy on a
    assert chosen({"a": 74, "b": 74}, 59.9, 90) == {"defaults"}  # ARS
    assert chosen({"a": 74, "b": 74}, 61, 20) == {"defaults"}  # no more probes
    assert chosen({"a": 74, "b": 74}, 61, 90, drop=("b", "new")) == set()
    # a tie in negation keeps the defaults; unanchored, the challenger's 80 on
    # b puts them out of the bound and the challenger is chosen
    tie = {"valid_accuracy": {"a": 73.5, "b": 80}, "valid_ars": 61, "valid_n": 20}
    values = {"defaults": {"valid_accuracy": 74, "valid_ars": 61, "valid_n": 20}}
    values["new"] = tie
    assert chosen(tie["valid_accuracy"], 61, 20) == {"defaults"}
    assert _rule_choice(values, "valid_accuracy", "valid_n") == {"new"}


def test_the_smoothed_cross_entropy_is_torchs_and_only_while_asked(monkeypatch):
    """benchmarks/lstm_training.py's label smoothing: torch's smoothed
    cross-entropy, class and row weights read as the library's cross-entropy
    reads them (the same number without smoothing), in both criteria while
    :func:`smoothed` is on and in neither after."""
    import torch
    import torch.nn.functional as F

    from aspectattn.engine import training
    from aspectattn.nn import categories
    from aspectattn.nn.ops import cross_entropy
    from benchmarks import lstm_training as L

    torch.manual_seed(0)
    logits, label = torch.randn(6, 3), torch.tensor([0, 1, 2, 2, 1, 0])  # (N, C), (N,)
    weight, rows = torch.tensor([1.0, 2.0, 2.0]), torch.rand(6) + 0.5  # (C,), (N,)
    torch.testing.assert_close(
        L.smoothed_cross_entropy(logits, label, weight),
        F.cross_entropy(logits, label, weight=weight, label_smoothing=L.SMOOTHING),
    )
    smooth = L.smoothed_cross_entropy(logits, label, weight, rows)
    monkeypatch.setattr(L, "SMOOTHING", 0.0)
    for w in (None, weight):
        torch.testing.assert_close(
            L.smoothed_cross_entropy(logits, label, w, rows),
            cross_entropy(logits, label, w, rows),
        )
    assert not torch.allclose(smooth, cross_entropy(logits, label, weight, rows))
    with L.smoothed(True):
        assert training.cross_entropy is categories.cross_entropy
        assert training.cross_entropy is L.smoothed_cross_entropy
    with L.smoothed(False):
        assert training.cross_entropy is cross_entropy
    assert categories.cross_entropy is cross_entropy


def test_unified_tags_loss_is_the_seven_way_cross_entropy():
    """benchmarks/unified_tags.py: the tags' loss plus the polarities' given the
    tags is the cross-entropy of one softmax over O, B-c and I-c, averaged over
    the tagged tokens; a term's polarity is its tokens' mean P(c | in a term)."""
    import torch
    from torch import nn

    from aspectattn.extraction._nets import IGNORE
    from benchmarks.unified_tags import UnifiedNet, UnifiedTagger

    class Tagger(nn.Module):  # the states are the input itself
        output_size, transitions = 4, None

        def __init__(self):
            super().__init__()
            self.tags, self.dropout = nn.Linear(4, 3), nn.Dropout(0.0)

    torch.manual_seed(0)
    module = UnifiedTagger(tagger=Tagger(), n_classes=3, dropout=0.0, attention=False)
    states = torch.randn(2, 5, 4)  # (B, T, D)
    tags = torch.tensor([[1, 2, 0, 1, 0], [0, 1, 0, 0, IGNORE]])  # (B, T)
    terms = torch.tensor([[0, 0, 1], [0, 3, 3], [1, 1, 1]])  # (P, 3)
    polarity = torch.tensor([2, IGNORE, 0])  # the second term: conflict
    marginal, conditional = module._unified(states)
    net = UnifiedNet(module, criterion=nn.CrossEntropyLoss).initialize()
    loss = net.get_loss(
        (marginal, conditional, terms, None), {"tags": tags, "polarity": polarity}
    )

    u = module.tagger.tags(states)  # (B, T, 3)
    v = module.token_polarity(states).view(2, 5, 2, 3)  # (B, T, [B, I], C)
    z = torch.cat([u[..., :1], u[..., 1:2] + v[:, :, 0], u[..., 2:] + v[:, :, 1]], -1)
    unified = tags.clone()  # O 0, B-c 1 + c, I-c 4 + c; the conflict term's: none
    for (row, first, last), c in zip(terms.tolist(), polarity.tolist(), strict=True):
        for t in range(first, last + 1):
            unified[row, t] = IGNORE if c == IGNORE else 1 + 3 * (tags[row, t] - 1) + c
    seven = nn.functional.log_softmax(z, -1)  # (B, T, 7)
    want = 0.0
    for row, t in zip(*torch.nonzero(tags != IGNORE, as_tuple=True), strict=True):
        if unified[row, t] == IGNORE:  # (the conflict term: its tag's marginal)
            want -= torch.logsumexp(seven[row, t, [1, 2, 3]], 0)
        else:
            want -= seven[row, t, unified[row, t]]
    torch.testing.assert_close(loss, want / 9)

    proba = module.polarity_logits(states, None, terms).softmax(-1)  # (P, C)
    p = seven.exp()
    in_term = p[..., 1:4] + p[..., 4:7]  # (B, T, C): B-c + I-c
    in_term = in_term / in_term.sum(-1, keepdim=True)
    torch.testing.assert_close(proba[0], in_term[0, 0:2].mean(0))
    torch.testing.assert_close(proba[2], in_term[1, 1])


def test_own_vectors_read_the_texts_and_passes_their_candidate_says():
    """benchmarks/own_vectors.py: the sentences as written are the given rows
    and the unlabelled ones a teacher labels, never a copy; while a candidate's
    fit runs the own vectors read those texts for its passes, and after it the
    library's texts and passes are back."""
    from types import SimpleNamespace

    import numpy as np

    from aspectattn import params
    from aspectattn.engine import building
    from benchmarks import own_vectors as O

    data = SimpleNamespace(
        texts=["a b", "c d", "b a", "a b c d", "e f"],
        n_given=2,
        # (n_new, 2): a flipped copy (its source twice), a joined one, and an
        # unlabelled row a teacher labels (-1)
        source=np.array([[0, 0], [0, 1], [-1, -1]]),
    )
    assert O.written_texts(data) == ["a b", "c d", "e f"]
    no_copies = SimpleNamespace(texts=["a b", "c d"], n_given=2, source=None)
    assert O.written_texts(no_copies) == ["a b", "c d"]
    for written, passes in O.CANDIDATES.values():
        with O.vectors_trained(written, passes):
            assert params.VECTOR_PASSES == passes
            texts = building.vector_texts(data)
            assert texts == (O.written_texts(data) if written else data.texts)
    assert building.vector_texts(data) == data.texts  # the library's: every row
    assert params.VECTOR_PASSES == 30


def test_the_epoch_average_keeps_the_mean_of_the_last_quarters_weights():
    """benchmarks/averaged_lstm.py: the weights at the end of each epoch after
    three quarters of max_epochs, averaged, are what the module keeps."""
    from types import SimpleNamespace

    import torch

    from benchmarks.averaged_lstm import EpochAverage

    module = torch.nn.Linear(1, 1, bias=False)
    net = SimpleNamespace(module_=module, max_epochs=8, history=[])
    average = EpochAverage()
    average.initialize()
    for epoch in range(1, 9):
        with torch.no_grad():
            module.weight.fill_(epoch)
        net.history.append({"epoch": epoch})
        average.on_epoch_end(net)
    average.on_train_end(net)
    assert module.weight.item() == (7 + 8) / 2  # epochs 7 and 8 of 8


def test_the_second_sources_weights_give_its_labels_the_first_sources_shares():
    """benchmarks/second_source.py: the added pairs, weighted, have the target's
    label shares and their own total weight; a label the target lacks weighs 0."""
    import numpy as np

    from benchmarks.second_source import label_shift_weights

    added = ["neutral"] * 5 + ["positive"] * 3 + ["negative"] * 2
    target = ["positive"] * 6 + ["negative"] * 3 + ["neutral"] * 1
    weight = label_shift_weights(added, target)
    added = np.array(added)
    for label, share in (("positive", 0.6), ("negative", 0.3), ("neutral", 0.1)):
        assert np.isclose(weight[added == label].sum() / weight.sum(), share)
    assert np.isclose(weight.sum(), len(added))
    lacking = label_shift_weights(["conflict", "positive"], ["positive"])
    assert lacking.tolist() == [0.0, 2.0]
