"""The command line, run as a user runs it: subprocesses, files and exit codes."""

import csv
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from conftest import FAST, SHARED_DATA, make_pairs, requires_shared_data

from aspectattn import params as P

ENV = {**os.environ, "ASPECTATTN_DATA": str(SHARED_DATA)}


def run(*args, cwd, check=True, process=False):
    """Run ``aspectattn ARGS`` in ``cwd``: in this process through ``cli.main`` (what
    the console script calls; a new Python process per command would spend seconds
    importing torch), or, with ``process=True``, as a subprocess like a user's shell.
    Returns a ``CompletedProcess`` either way."""
    if process:
        result = subprocess.run(
            [sys.executable, "-m", "aspectattn", *map(str, args)],
            cwd=cwd,
            env=ENV,
            capture_output=True,
            text=True,
            timeout=300,
        )
    else:
        from aspectattn.cli import main

        out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
        try:
            os.chdir(cwd)
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main([str(a) for a in args])
                except SystemExit as exc:  # argparse: --help, usage errors
                    code = exc.code if isinstance(exc.code, int) else 0
        finally:
            os.chdir(here)
        result = subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())
    if check:
        assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(autouse=True, scope="module")
def _data_home():
    before = os.environ.get("ASPECTATTN_DATA")
    os.environ["ASPECTATTN_DATA"] = ENV["ASPECTATTN_DATA"]
    yield
    if before is None:
        del os.environ["ASPECTATTN_DATA"]
    else:
        os.environ["ASPECTATTN_DATA"] = before


def _write_csv(path, X, y=None):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "aspect"] + (["label"] if y is not None else []))
        for i, (t, a) in enumerate(X):
            writer.writerow([t, a] + ([y[i]] if y is not None else []))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    X, y = make_pairs(200, seed=0, single_share=0.4)
    _write_csv(d / "train.csv", X, y)
    Xt, yt = make_pairs(40, seed=1)
    _write_csv(d / "test.csv", Xt, yt)
    with open(d / "test.jsonl", "w") as f:
        for (t, a), label in zip(Xt, yt, strict=True):
            f.write(json.dumps({"text": t, "aspect": a, "label": label}) + "\n")
    (d / "sentences.txt").write_text(
        "the pasta was great but the waiter was rude.\n\nthe soup was bland.\n"
    )
    result = run(
        "train",
        "train.csv",
        "--out",
        "model.aam",
        "--embeddings",
        "none",
        "--embedding-dim",
        "16",
        "--embedding-dropout",
        "0",
        "--epochs",
        "30",
        "--hidden-size",
        "24",
        "--lr",
        "0.01",
        "--batch-size",
        "16",
        "--dropout",
        "0",
        "--validation-fraction",
        "0",
        "--augment",  # (no copies, as FAST: test_train_defaults_... has them)
        "none",
        "--history-plot",
        "history.png",
        cwd=d,
        process=True,
    )
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["pairs"] == len(X) and summary["epochs"] == 30
    assert "train_loss" in result.stderr + result.stdout  # per-epoch progress
    return d


def test_train_writes_a_safe_model_file_and_history_plot(workdir):
    assert (workdir / "model.aam").stat().st_size > 1000
    assert (workdir / "history.png").read_bytes()[:4] == b"\x89PNG"
    from aspectattn import AspectAttentionClassifier

    assert (
        AspectAttentionClassifier.load(workdir / "model.aam").aspect_type_ == "category"
    )


def test_evaluate(workdir):
    out = run("evaluate", "model.aam", "test.csv", cwd=workdir).stdout
    assert "accuracy" in out and "macro-F1" in out and "confusion matrix" in out
    report = json.loads(
        run("evaluate", "model.aam", "test.jsonl", "--json", cwd=workdir).stdout
    )
    assert report["pairs"] == 80 and report["accuracy"] > 0.9
    assert report["confusion_matrix"]["labels"] == ["negative", "positive"]
    assert sum(map(sum, report["confusion_matrix"]["matrix"])) == 80


def test_evaluate_and_predict_with_int8(workdir, tmp_path):
    from aspectattn import AspectAttentionClassifier
    from aspectattn.encoders import TransformerEncoder

    X, y = make_pairs(150, seed=0, single_share=0.4)
    AspectAttentionClassifier(
        encoder=TransformerEncoder(
            d_model=32, n_heads=2, n_layers=1, embeddings=None, embedding_dim=16
        ),
        max_epochs=3,
        batch_size=16,
        random_state=0,
    ).fit(X, y).save(tmp_path / "tf.aam")
    model = tmp_path / "tf.aam"
    evaluate = ("evaluate", model, "test.jsonl", "--json")
    float_report = json.loads(run(*evaluate, cwd=workdir).stdout)
    report = json.loads(run(*evaluate, "--quantize", "int8", cwd=workdir).stdout)
    assert report["pairs"] == 80
    assert abs(report["accuracy"] - float_report["accuracy"]) <= 0.05
    args = ("predict", model, "test.csv")
    float_rows = list(csv.DictReader(run(*args, cwd=workdir).stdout.splitlines()))
    int8_rows = list(
        csv.DictReader(
            run(*args, "--quantize", "int8", cwd=workdir).stdout.splitlines()
        )
    )
    p_float = np.array([float(r["p_positive"]) for r in float_rows])
    p_int8 = np.array([float(r["p_positive"]) for r in int8_rows])
    assert not np.array_equal(p_float, p_int8)  # the option reached the model
    assert np.abs(p_float - p_int8).max() < 0.05
    # ONNX export quantises with its own --int8 (the graph's weights), not the
    # torch option
    assert (
        run(
            "export", model, "x", "--quantize", "int8", cwd=workdir, check=False
        ).returncode
        == 2
    )
    pytest.importorskip("onnxruntime")
    out = run("export", model, tmp_path / "int8", "--int8", cwd=workdir).stdout
    assert "model.onnx" in out
    from aspectattn.serving.runtime import load_onnx

    served = load_onnx(tmp_path / "int8").predict_proba(
        [(r["text"], r["aspect"]) for r in float_rows]
    )
    assert np.abs(served[:, 1] - p_float).max() < 0.05


def test_predict_csv_and_jsonl(workdir):
    run("predict", "model.aam", "test.csv", "--out", "pred.csv", cwd=workdir)
    with open(workdir / "pred.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 80
    assert set(rows[0]) == {"text", "aspect", "label", "p_negative", "p_positive"}
    assert abs(float(rows[0]["p_negative"]) + float(rows[0]["p_positive"]) - 1) < 1e-5
    stdout = run("predict", "model.aam", "test.jsonl", cwd=workdir).stdout
    assert stdout.splitlines()[0].startswith("text,aspect,label")
    run("predict", "model.aam", "test.csv", "--out", "pred.jsonl", cwd=workdir)
    lines = (workdir / "pred.jsonl").read_text().splitlines()
    assert len(lines) == 80 and json.loads(lines[0])["label"] in (
        "negative",
        "positive",
    )


@pytest.mark.parametrize("separator", ["\u2028", "\u0085", "\x1c", "\x1e", "\r\n"])
def test_rows_split_at_line_ends_only(workdir, tmp_path, separator):
    # pandas and json.dumps write U+2028, U+0085 and \x1c-\x1e raw inside a field;
    # str.splitlines() split there too (3 prediction rows from a 2-row CSV)
    text = f"the pasta was great{separator}the waiter was rude"
    import pandas as pd

    frame = pd.DataFrame({"text": [text, "the soup was bland"], "aspect": "food"})
    frame.to_csv(tmp_path / "odd.csv", index=False)
    with open(tmp_path / "odd.jsonl", "w", encoding="utf-8") as f:
        for row in frame.to_dict("records"):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    for name in ("odd.csv", "odd.jsonl"):
        out = tmp_path / f"{name}.out.csv"
        run(
            "predict", str(workdir / "model.aam"), name, "--out", str(out), cwd=tmp_path
        )
        with open(out, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        assert [r["text"] for r in rows] == [text, "the soup was bland"]


def test_predict_every_sentence_on_each_aspect(workdir):
    stdout = run(
        "predict",
        "model.aam",
        "sentences.txt",
        "--aspects",
        "food,service",
        cwd=workdir,
    ).stdout
    rows = list(csv.DictReader(stdout.splitlines()))
    assert [(r["aspect"]) for r in rows] == ["food", "service", "food", "service"]
    assert rows[0]["label"] == "positive" and rows[1]["label"] == "negative"


def test_explain_shows_control_characters_as_text(workdir, tmp_path):
    # ESC [ 2 J clears the screen; ESC ] 52 writes the clipboard: never raw
    rows = [("the pasta \x1b[2J was great \x1b]52;c;ZXZpbA==\x07", "food")]
    _write_csv(tmp_path / "evil.csv", rows)
    text = run("explain", str(workdir / "model.aam"), "evil.csv", cwd=tmp_path).stdout
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[2J" in text


def test_explain_outputs(workdir):
    text = run("explain", "model.aam", "test.csv", "--limit", "2", cwd=workdir).stdout
    assert "'food' ->" in text and "#" in text
    run(
        "explain",
        "model.aam",
        "test.csv",
        "--limit",
        "4",
        "--out",
        "att.html",
        cwd=workdir,
    )
    page = (workdir / "att.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "service" in page
    run(
        "explain",
        "model.aam",
        "test.csv",
        "--limit",
        "2",
        "--out",
        "att.png",
        cwd=workdir,
    )
    assert (workdir / "att.png").read_bytes()[:4] == b"\x89PNG"
    run(
        "explain",
        "model.aam",
        "test.csv",
        "--limit",
        "3",
        "--out",
        "att.jsonl",
        cwd=workdir,
    )
    first = json.loads((workdir / "att.jsonl").read_text().splitlines()[0])
    assert len(first["tokens"]) == len(first["weights"])


def test_bad_input_exits_non_zero_with_one_line_subprocess(workdir):
    result = run("predict", "model.aam", "missing.csv", cwd=workdir, check=False)
    assert result.returncode == 2
    assert "neither a data-set name nor a file" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["predict", "nope.aam", "test.csv"], "model file 'nope.aam' not found"),
        (["evaluate", "model.aam", "sentences.txt"], "row 1 has no 'text'"),
        (["predict", "train.csv", "test.csv"], "not a readable aspectattn model file"),
        (["explain", "model.aam", "test.csv", "--out", "x.doc"], "--out must end in"),
        (
            ["predict", "model.aam", "sentences.txt", "--aspects", "price"],
            "not seen in fit",
        ),
        (
            ["train", "test.csv", "--out", "m.aam", "--epochs", "0", "--quiet"],
            "--epochs must be a str among {'auto'} or an int in the range [1, inf)",
        ),
        (["evaluate", "model.aam", "array.json"], "expected a JSON object per line"),
        (["evaluate", "model.aam", "strings.jsonl"], "expected a JSON object"),
        (["evaluate", "model.aam", "no_aspect.jsonl"], "row 1 has no 'aspect'"),
        (["evaluate", "model.aam", "broken.xml"], "not well-formed XML"),
        (["evaluate", "model.aam", "empty.xml"], "has no aspect"),
        (["predict", "model.aam", "blank.txt", "--aspects", "food"], "no sentences"),
        (["evaluate", "model.aam", "latin1.csv"], "--encoding"),
        (["predict", "model.pkl", "test.csv"], "--trust-pickle"),
        (["evaluate", "model.aam", "mams-category", "--split", "test"], "--split val"),
        (
            ["evaluate", "model.aam", "test.csv", "--encoding", "klingon"],
            "unknown text encoding 'klingon'",
        ),
        (
            ["analyze", "empty.csv", "--model", "detector.aam", "--out", "r.html"],
            "empty.csv could not be read",
        ),
        (
            [
                "analyze",
                "empty.csv",
                "--model",
                "model.aam",
                "--out",
                "r.html",
                "--encoding",
                "klingon",
            ],
            "unknown text encoding",
        ),
        (
            [
                "analyze",
                "empty.csv",
                "--model",
                "model.aam",
                "--out",
                "r.html",
                "--min-probability",
                "nan",
            ],
            "--min-probability must be a number strictly between 0 and 1",
        ),
    ],
)
def test_bad_input_exits_with_status_2_and_one_line(
    workdir, args, message, capsys, monkeypatch
):
    from aspectattn.cli import main

    monkeypatch.chdir(workdir)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def bad_files(workdir, detector):
    (workdir / "array.json").write_text('[{"text": "a", "aspect": "food"}]\n')
    (workdir / "strings.jsonl").write_text('"the soup"\n')
    (workdir / "no_aspect.jsonl").write_text('{"text": "the soup", "label": "x"}\n')
    (workdir / "broken.xml").write_text("<sentences><sentence>")
    (workdir / "empty.xml").write_text("<sentences></sentences>")
    (workdir / "blank.txt").write_text("\n \n")
    (workdir / "latin1.csv").write_bytes(
        "text,aspect,label\ncaf\u00e9 was great,food,positive\n".encode("latin-1")
    )
    (workdir / "model.pkl").write_bytes(b"not even a pickle")
    (workdir / "empty.csv").write_text("")
    detector.save(workdir / "detector.aam")
    return workdir


@pytest.fixture(autouse=True)
def _bad_files_exist(request):
    if "args" in request.fixturenames:
        request.getfixturevalue("bad_files")


def test_excel_csv_with_a_bom_and_latin1_with_encoding(workdir, capsys, monkeypatch):
    from aspectattn.cli import main

    monkeypatch.chdir(workdir)
    text = "text,aspect,label\nthe soup was bland.,food,negative\n"
    (workdir / "bom.csv").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert main(["evaluate", "model.aam", "bom.csv", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"] == 1
    (workdir / "latin.csv").write_bytes(
        text.replace("soup", "caf\u00e9").encode("latin-1")
    )
    assert main(["evaluate", "model.aam", "latin.csv", "--encoding", "latin-1"]) == 0


def test_unknown_labels_warn_and_integer_labels_match(workdir, capsys, monkeypatch):
    from aspectattn.cli import main

    monkeypatch.chdir(workdir)
    text = "text,aspect,label\nthe soup was bland.,food,conflict\n"
    (workdir / "conflict.csv").write_text(text)
    assert main(["evaluate", "model.aam", "conflict.csv"]) == 0
    assert "not classes of the model" in capsys.readouterr().err
    from conftest import FAST

    from aspectattn import AspectAttentionClassifier

    X, y = make_pairs(60, seed=0)
    ints = [1 if v == "positive" else 0 for v in y]  # a model fit in Python on ints
    AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(X, ints).save(
        workdir / "ints.aam"
    )
    _write_csv(workdir / "ints.csv", X, ints)
    capsys.readouterr()
    assert main(["evaluate", "ints.aam", "ints.csv", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["confusion_matrix"]["labels"] == [0, 1]
    assert sum(map(sum, report["confusion_matrix"]["matrix"])) == len(X)


def test_trusted_pickle_model_is_evaluated(workdir, capsys, monkeypatch):
    from aspectattn.cli import main

    monkeypatch.chdir(workdir)
    args = ["--embeddings", "none", "--embedding-dim", "8", "--hidden-size", "8"]
    args += ["--epochs", "1", "--quiet", "--validation-fraction", "0"]
    assert main(["train", "train.csv", "--out", "m.joblib", *args]) == 0
    assert main(["evaluate", "m.joblib", "test.csv", "--trust-pickle"]) == 0
    assert "accuracy" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["m.pickle", "m.PKL", "m.Joblib"])
def test_any_pickle_name_is_a_pickle_and_a_safe_file_loads_whatever_its_name(
    workdir, tmp_path, capsys, monkeypatch, name
):
    from aspectattn.cli import main

    monkeypatch.chdir(workdir)
    args = ["--embeddings", "none", "--embedding-dim", "8", "--hidden-size", "8"]
    args += ["--epochs", "1", "--quiet", "--validation-fraction", "0"]
    out = str(tmp_path / name)
    assert main(["train", "train.csv", "--out", out, *args]) == 0
    assert Path(out).read_bytes()[:4] != b"PK\x03\x04"  # a pickle, as asked
    assert main(["evaluate", out, "test.csv"]) == 2  # refused without the flag
    assert "--trust-pickle" in capsys.readouterr().err
    assert main(["evaluate", out, "test.csv", "--trust-pickle"]) == 0
    # a safe-format file under a pickle's name loads as what it is
    (tmp_path / "safe.pickle").write_bytes((workdir / "model.aam").read_bytes())
    capsys.readouterr()
    for flags in ([], ["--trust-pickle"]):
        code = main(["evaluate", str(tmp_path / "safe.pickle"), "test.csv", *flags])
        assert code == 0, capsys.readouterr().err


def test_a_model_path_that_is_a_fifo_is_not_called_missing(workdir, tmp_path, capsys):
    from aspectattn.cli import main

    fifo = tmp_path / "model.aam"
    os.mkfifo(fifo)
    assert main(["predict", str(fifo), str(workdir / "test.csv")]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_xml_of_a_term_model_is_read_as_terms(workdir, tmp_path):
    xml = tmp_path / "t.xml"
    xml.write_text(
        '<sentences><sentence id="1"><text>the pasta was great.</text>'
        '<aspectTerms><aspectTerm term="pasta" polarity="positive" from="4" to="9"/>'
        "</aspectTerms><aspectCategories>"
        '<aspectCategory category="food" polarity="positive"/>'
        '<aspectCategory category="service" polarity="negative"/>'
        "</aspectCategories></sentence></sentences>"
    )
    X, y = make_pairs(60, seed=0)
    _write_csv(workdir / "terms.csv", [(t, t.split()[1]) for t, _ in X], y)
    args = ["--embeddings", "none", "--embedding-dim", "8", "--hidden-size", "8"]
    args += ["--epochs", "1", "--quiet", "--validation-fraction", "0"]
    run("train", "terms.csv", "--out", "terms.aam", *args, cwd=workdir)
    result = run("evaluate", "terms.aam", xml, "--json", cwd=workdir)
    assert json.loads(result.stdout)["pairs"] == 1  # one term, not two categories


def test_output_into_a_closed_pipe_ends_quietly(workdir):
    command = f"{sys.executable} -m aspectattn predict model.aam test.csv | head -n 1"
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=workdir,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.stdout.startswith("text,aspect,label")
    assert "Broken pipe" not in result.stderr and "Traceback" not in result.stderr
    assert result.returncode == 0


def test_train_summary_is_the_only_stdout(workdir):
    args = ["--embeddings", "none", "--embedding-dim", "8"]
    args += [
        "--epochs",
        "2",
        "--validation-fraction",
        "0.2",
        "--encoder",
        "transformer",
    ]
    args += ["--d-model", "8", "--n-heads", "2", "--n-layers", "1"]
    result = run("train", "train.csv", "--out", "tf.aam", *args, cwd=workdir)
    summary = json.loads(result.stdout)  # stdout is the JSON summary alone
    assert summary["encoder"] == "transformer" and summary["epochs"] == 2
    assert "train_loss" in result.stderr and "\x1b[" not in result.stderr
    assert "AT-transformer" in result.stderr


def test_help_and_console_script(workdir):
    out = run("--help", cwd=workdir).stdout
    for command in ("train", "evaluate", "predict", "explain"):
        assert command in out
    assert "aspectattn train semeval2014-restaurants-category" in out
    assert "--aspects" in run("predict", "--help", cwd=workdir).stdout
    train_help = " ".join(run("train", "--help", cwd=workdir).stdout.split())
    for flag in ("--epochs", "--lr", "--hidden-size", "--variant", "--encoder"):
        assert flag in train_help
    assert "(default: auto)" in train_help and "(default: at)" in train_help
    assert (
        "auto: 20, 30 for the LSTM's aspect terms and detector, or 4 for a pretrained"
        in train_help
    )
    usage = run("train", cwd=workdir, check=False)
    assert usage.returncode == 2 and "required" in usage.stderr


def test_reads_semeval_xml_files(workdir):
    (workdir / "tiny.xml").write_text(
        '<?xml version="1.0"?><sentences><sentence id="1">'
        "<text>the pasta was great but the waiter was rude.</text>"
        '<aspectCategories><aspectCategory category="food" polarity="positive"/>'
        '<aspectCategory category="service" polarity="negative"/>'
        "</aspectCategories></sentence></sentences>"
    )
    report = json.loads(
        run("evaluate", "model.aam", "tiny.xml", "--json", cwd=workdir).stdout
    )
    assert report["pairs"] == 2 and report["accuracy"] == 1.0


def test_progress_bar_is_silent_when_stderr_is_not_a_terminal(capsys):
    from aspectattn.cli import Progress

    bar = Progress(10, "predicting", enabled=True)
    bar.update(5)
    bar.update(10)
    assert capsys.readouterr().err == ""


def test_train_with_term_position_options(tmp_path):
    X, y = make_pairs(20, seed=0)
    X = [(t, t.split()[1]) for t, _ in X]  # the first term of each sentence
    _write_csv(tmp_path / "terms.csv", X, y)
    run(
        "train", "terms.csv", "--out", "terms.aam", "--embeddings", "none",
        "--embedding-dim", "8", "--hidden-size", "8", "--epochs", "1", "--quiet",
        "--position-weighting", "learned", "--term-marker", "--term-query", "both",
        "--final-state", "term", "--position-dropout", "0.5", cwd=tmp_path,
    )  # fmt: skip
    from aspectattn import AspectAttentionClassifier

    clf = AspectAttentionClassifier.load(tmp_path / "terms.aam")
    assert clf.aspect_type_ == "term"
    config = clf.module_config_
    assert (config["position_weighting"], config["term_marker"]) == ("learned", True)
    assert (config["term_query"], config["final_state"]) == ("both", "term")
    assert config["position_dropout"] == 0.5


@pytest.mark.parametrize(
    "flags, final_state",
    [
        ([], "auto"),
        (["--final-state", "sentence"], True),
        (["--final-state", "none"], False),
        (["--no-final-state"], False),
        (["--final-state", "term"], "term"),
    ],
)
def test_final_state_flags(flags, final_state):
    from aspectattn.cli import _FINAL_STATES, build_parser

    args = build_parser().parse_args(["train", "x.csv", "--out", "m.aam", *flags])
    assert _FINAL_STATES[args.final_state] == final_state
    with pytest.raises(SystemExit), redirect_stderr(io.StringIO()):
        build_parser().parse_args(
            ["train", "x.csv", "--no-final-state", "--final-state", "term"]
        )


def test_analyze_reviews_writes_report_and_table(workdir, tmp_path):
    from conftest import make_table

    from aspectattn import AspectCategoryClassifier

    X, Y = make_table(200, 0)
    AspectCategoryClassifier(**{**FAST, "max_epochs": 20}).fit(X, Y).save(
        tmp_path / "detector.aam"
    )
    with open(tmp_path / "reviews.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "text", "date"])
        for i in range(30):
            writer.writerow(
                [f"r{i}", "The soup was bland. The staff was lovely.", "2024-03-01"]
            )
    result = run(
        "analyze", "reviews.csv", "--model", "detector.aam", "--out", "report.html",
        "--table", "sentences.csv", "--id-column", "id", "--date-column", "date",
        "--chunk-size", "7", cwd=tmp_path,
    )  # fmt: skip
    summary = json.loads(result.stdout)
    assert (summary["reviews"], summary["sentences"]) == (30, 60)
    with open(tmp_path / "sentences.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == summary["mentions"] and rows[0]["review_id"] == "r0"
    assert "Sentiment per aspect" in (tmp_path / "report.html").read_text()
    bad = run(
        "analyze", "reviews.csv", "--model", str(workdir / "model.aam"),
        "--out", "r.html", cwd=tmp_path, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "needs a category detector" in bad.stderr


def test_train_learns_from_the_sentence_table_analyze_writes(
    workdir, detector, tmp_path
):
    """The recipe of the guides on the command line: analyze unlabelled reviews,
    then train a student on the sentence table (.csv or .parquet) as its
    unlabelled pairs -- its sentences read from the table's "sentence" column."""
    pd = pytest.importorskip("pandas")
    detector.save(tmp_path / "detector.aam")
    (tmp_path / "reviews.csv").write_text(
        "text\nThe soup was bland. The staff was lovely.\nThe pasta was great.\n"
    )
    common = ["--embeddings", "none", "--embedding-dim", "8", "--hidden-size", "8",
              "--epochs", "1", "--quiet"]  # fmt: skip
    common += ["--teacher", workdir / "model.aam"]
    n_labelled = len(make_pairs(200, seed=0, single_share=0.4)[0])  # train.csv
    n_xml = 40
    _write_category_xml(tmp_path / "t.xml", n_xml)
    for table in ("sentences.csv", "sentences.parquet"):
        run("analyze", "reviews.csv", "--model", "detector.aam", "--out",
            "report.html", "--table", table, cwd=tmp_path)  # fmt: skip
        result = run("train", workdir / "train.csv", "--out", "s.aam",
                     "--unlabelled", table, *common, cwd=tmp_path)  # fmt: skip
        summary = json.loads(result.stdout.strip().splitlines()[-1])
        read = pd.read_csv if table.endswith(".csv") else pd.read_parquet
        frame = read(tmp_path / table)
        assert len(frame) >= 2 and summary["pairs"] == n_labelled + len(frame)
        # a detector student learns from its distinct sentences (the aspect
        # column is the analysis's answer, not a label: the teacher labels them)
        result = run("train", "t.xml", "--detector", "--out", "sd.aam",
                     "--teacher", "detector.aam", "--unlabelled", table, *common[:-2],
                     cwd=tmp_path)  # fmt: skip
        n_sentences = frame["sentence"].nunique()
        assert json.loads(result.stdout.strip().splitlines()[-1])["sentences"] == (
            n_xml + n_sentences
        )
        # predict with a detector refuses the table (pairs), Parquet as CSV
        bad = run("predict", "detector.aam", table, "--text-column", "sentence",
                  cwd=tmp_path, check=False)  # fmt: skip
        assert bad.returncode == 2 and "has an 'aspect' column" in bad.stderr
    # and reads the sentences of a Parquet file without one
    sentences = ["The soup was bland.", "The staff was lovely.", "The soup was bland."]
    pd.DataFrame({"text": sentences}).to_parquet(tmp_path / "s.parquet")
    out = run("predict", "detector.aam", "s.parquet", cwd=tmp_path).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["text"] for r in rows] == sentences[:2]
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 not parquet")
    bad = run("train", workdir / "train.csv", "--out", "b.aam", "--unlabelled",
              "broken.parquet", *common, cwd=tmp_path, check=False)  # fmt: skip
    assert bad.returncode == 2 and "could not be read as Parquet" in bad.stderr
    assert not (tmp_path / "b.aam").exists()


def _write_category_xml(path, n: int) -> None:
    """A SemEval-style category XML file of ``n`` sentences of
    :func:`conftest.make_table` (seed 0): what ``train --detector`` reads."""
    from xml.sax.saxutils import quoteattr

    from conftest import make_table

    texts, Y = make_table(n, 0)
    sentences = "".join(
        f'<sentence id="{i}"><text>{text}</text><aspectCategories>'
        + "".join(
            f"<aspectCategory category={quoteattr(c)} polarity={quoteattr(v)}/>"
            for c, v in Y.iloc[i].items()
            if v != "none"
        )
        + "</aspectCategories></sentence>"
        for i, text in enumerate(texts)
    )
    path.write_text(f"<sentences>{sentences}</sentences>")


def test_a_pretrained_detector_trains_and_analyzes_reviews(tiny_checkpoint, tmp_path):
    """train --detector --encoder pretrained, then analyze with that model: the
    pretrained tier in the review path, its fine-tuning recipe resolved."""
    pytest.importorskip("transformers")
    _write_category_xml(tmp_path / "labelled.xml", 40)
    out = run("train", "labelled.xml", "--detector", "--encoder", "pretrained",
              "--pretrained-model", str(tiny_checkpoint), "--epochs", "1",
              "--validation-fraction", "0", "--out", "det.aam", "--quiet",
              cwd=tmp_path)  # fmt: skip
    settings = json.loads(out.stdout)["settings"]
    assert settings["lr"] == P.PRETRAINED_TRAINING["lr"]
    assert settings["optimizer__lr_schedule"] == "linear"
    assert settings["max_epochs"] == 1
    (tmp_path / "reviews.csv").write_text(
        "text\nThe soup was bland. The staff was lovely.\nGreat pasta!\n"
    )
    result = run("analyze", "reviews.csv", "--model", "det.aam", "--out",
                 "report.html", "--quiet", cwd=tmp_path)  # fmt: skip
    summary = json.loads(result.stdout)
    assert (summary["reviews"], summary["sentences"]) == (2, 3)
    assert "Sentiment per aspect" in (tmp_path / "report.html").read_text()


def test_analyze_checks_its_outputs_before_the_analysis(review_files, monkeypatch):
    from aspectattn import reviews

    def no_analysis(*args, **kwargs):
        raise AssertionError("the reviews were analysed")

    monkeypatch.setattr(reviews, "iter_analysis", no_analysis)
    from aspectattn.cli import main

    monkeypatch.chdir(review_files)
    (review_files / "a_dir").mkdir()
    for out in ["missing/r.html", "a_dir"]:
        code = main(
            ["analyze", "reviews.csv", "--model", "detector.aam", "--out", out,
             "--table", "t.csv", "--quiet"]
        )  # fmt: skip
        assert code == 2
        assert not (review_files / "t.csv").exists()


def test_analyze_counts_the_sentences_of_every_script(review_files):
    from conftest import MIXED_SCRIPTS

    with open(
        review_files / "mixed_scripts.csv", "w", newline="", encoding="utf-8"
    ) as f:
        writer = csv.writer(f)
        writer.writerow(["id", "text"])
        for i, (text, _) in enumerate(MIXED_SCRIPTS):
            writer.writerow([i, text])
    result = run(
        "analyze", "mixed_scripts.csv", "--model", "detector.aam", "--out", "r.html",
        "--quiet", cwd=review_files,
    )  # fmt: skip
    summary = json.loads(result.stdout)
    assert summary["reviews"] == len(MIXED_SCRIPTS)
    assert summary["sentences"] == sum(n for _, n in MIXED_SCRIPTS)


def test_analyze_takes_the_reviews_language(review_files):
    with open(review_files / "dr.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "text"])
        writer.writerow([0, "Dr. Smith was nice. The soup was bland."])
    counts = {}
    for language in ("en", "none"):
        result = run(
            "analyze", "dr.csv", "--model", "detector.aam", "--out", "r.html",
            "--language", language, "--quiet", cwd=review_files,
        )  # fmt: skip
        counts[language] = json.loads(result.stdout)["sentences"]
    assert counts == {"en": 2, "none": 3}  # "Dr." ends no sentence in English
    bad = run(
        "analyze", "dr.csv", "--model", "detector.aam", "--out", "r.html",
        "--language", "English!", cwd=review_files, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "ISO 639" in bad.stderr


def test_a_parquet_table_whose_first_chunk_has_no_mention(review_files):
    pytest.importorskip("pyarrow")
    import pandas as pd

    with open(review_files / "mixed.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "text"])
        for i in range(10):  # a first chunk with no category mentioned
            writer.writerow([i, "ok."])
        for i in range(10, 30):
            writer.writerow([i, "The soup was bland. The staff was lovely."])
    run(
        "analyze", "mixed.csv", "--model", "detector.aam", "--out", "r.html",
        "--table", "t.parquet", "--id-column", "id", "--chunk-size", "10",
        "--quiet", cwd=review_files,
    )  # fmt: skip
    table = pd.read_parquet(review_files / "t.parquet")
    ids = {int(i) for i in table["review_id"]}
    assert len(table) > 0 and ids <= set(range(10, 30))


def test_train_choices_follow_the_library():
    # the CLI lists its choices literally (it must not import torch to start);
    # this keeps them in step with the library's own lists
    import argparse

    from aspectattn.cli import _FINAL_STATES, build_parser
    from aspectattn.nn.attention import ATTENTION_SCORES
    from aspectattn.nn.encoders import ENCODERS
    from aspectattn.params import (
        AUGMENTATIONS,
        FINAL_STATES,
        POSITION_WEIGHTINGS,
        TERM_QUERIES,
        UNSEEN_WORDS,
        VARIANTS,
    )

    (commands,) = [
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    ]
    train = commands.choices["train"]
    choices = {a.dest: set(a.choices) for a in train._actions if a.choices}
    assert choices["variant"] == set(VARIANTS)
    assert choices["encoder"] == set(ENCODERS)
    assert choices["attention_score"] == set(ATTENTION_SCORES)
    assert choices["position_weighting"] == {*POSITION_WEIGHTINGS, "auto"}
    assert choices["term_query"] == set(TERM_QUERIES)
    assert set(_FINAL_STATES.values()) == {*FINAL_STATES, "auto"}
    assert choices["augment"] == {*AUGMENTATIONS, "auto", "none"}
    assert choices["unseen_words"] == {*UNSEEN_WORDS, "auto", "none"}


# ------------------------------------------------------------- outputs and inputs
@pytest.fixture
def review_files(tmp_path, detector):
    detector.save(tmp_path / "detector.aam")
    with open(tmp_path / "reviews.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "text"])
        for i in range(25):
            writer.writerow([f"r{i}", "The soup was bland. The staff was lovely."])
    return tmp_path


@pytest.mark.parametrize(
    "outputs",
    [
        ["--out", "r.html", "--table", "reviews.csv"],  # the table over the input
        ["--out", "r.html", "--table", "./sub/../reviews.csv"],  # another spelling
        ["--out", "reviews.csv", "--table", "t.csv"],  # the report over the input
        ["--out", "link.csv", "--table", "t.csv"],  # a symlink to the input
        ["--out", "r.html", "--table", "detector.aam"],  # over the model
        ["--out", "same.html", "--table", "same.html"],  # two outputs, one file
    ],
)
def test_analyze_refuses_outputs_that_are_inputs(review_files, outputs):
    (review_files / "sub").mkdir()
    (review_files / "link.csv").symlink_to(review_files / "reviews.csv")
    before = (review_files / "reviews.csv").read_bytes()
    model = (review_files / "detector.aam").read_bytes()
    result = run(
        "analyze", "reviews.csv", "--model", "detector.aam", *outputs,
        "--chunk-size", "10", cwd=review_files, check=False,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "refusing to overwrite" in result.stderr or "same file" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert (review_files / "reviews.csv").read_bytes() == before  # input intact
    assert (review_files / "detector.aam").read_bytes() == model


def test_a_failed_analysis_leaves_no_partial_files(review_files, monkeypatch):
    from aspectattn import reviews

    original = reviews.iter_analysis

    def fails_after_a_chunk(*args, **kwargs):
        for k, table in enumerate(original(*args, **kwargs)):
            if k == 1:
                raise ValueError("the second chunk is broken")
            yield table

    monkeypatch.setattr(reviews, "iter_analysis", fails_after_a_chunk)
    (review_files / "old.csv").write_text("an earlier table\n")
    result = run(
        "analyze", "reviews.csv", "--model", "detector.aam", "--out", "r.html",
        "--table", "old.csv", "--chunk-size", "10", cwd=review_files, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "second chunk" in result.stderr
    assert (review_files / "old.csv").read_text() == "an earlier table\n"
    assert not (review_files / "r.html").exists()
    assert not [p.name for p in review_files.iterdir() if p.name.startswith(".")]


def test_predict_explain_and_train_refuse_to_overwrite_their_input(workdir, tmp_path):
    data = tmp_path / "pairs.csv"
    data.write_bytes((workdir / "test.csv").read_bytes())
    before = data.read_bytes()
    for args in (
        ["predict", str(workdir / "model.aam"), str(data), "--out", str(data)],
        ["explain", str(workdir / "model.aam"), str(data), "--out", str(data)],
        ["train", str(data), "--out", str(data), "--epochs", "1"],
        ["predict", str(workdir / "model.aam"), str(data), "--out",
         str(workdir / "model.aam")],
    ):  # fmt: skip
        result = run(*args, cwd=tmp_path, check=False)
        assert result.returncode == 2 and "refusing to overwrite" in result.stderr
        assert data.read_bytes() == before


def test_analyze_reads_every_date_with_one_rule_and_counts_the_rest(review_files):
    with open(review_files / "dated.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "date"])
        for d in range(1, 11):  # ISO first: pandas would infer ISO for the file
            writer.writerow(["The soup was bland.", f"2021-01-{d:02d}"])
        for d in range(13, 23):  # then day first, in later chunks
            writer.writerow(["The staff was lovely.", f"{d}/02/2021"])
        writer.writerow(["The soup was bland.", "not a date"])
    result = run(
        "analyze", "dated.csv", "--model", "detector.aam", "--out", "r.html",
        "--date-column", "date", "--chunk-size", "4", "--freq", "M",
        cwd=review_files,
    )  # fmt: skip
    assert json.loads(result.stdout)["unparsed_dates"] == 1
    page = (review_files / "r.html").read_text()
    assert "1 dates could not be read" in page
    strict = run(
        "analyze", "dated.csv", "--model", "detector.aam", "--out", "s.html",
        "--date-column", "date", "--date-format", "%Y-%m-%d", cwd=review_files,
    )  # fmt: skip
    assert json.loads(strict.stdout)["unparsed_dates"] == 11


def test_a_detector_uses_or_refuses_what_it_is_given(review_files, workdir):
    (review_files / "sentences.txt").write_text(
        "The soup was bland.\nThe staff was lovely.\n"
    )
    result = run(
        "predict", "detector.aam", "sentences.txt", "--aspects", "service",
        cwd=review_files,
    )  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert list(rows[0]) == ["text", "service"] and len(rows) == 2
    bad = run(
        "predict", "detector.aam", "sentences.txt", "--aspects", "wine",
        cwd=review_files, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "'wine'" in bad.stderr
    pairs = run(
        "predict", "detector.aam", str(workdir / "test.csv"), cwd=review_files,
        check=False,
    )  # fmt: skip
    assert pairs.returncode == 2 and "'aspect' column (pairs)" in pairs.stderr


def test_analyze_refuses_review_texts_that_are_not_strings(review_files):
    (review_files / "odd.jsonl").write_text(
        '{"text": "The soup was bland."}\n{"text": 5}\n{"text": null}\n'
        '{"text": ["The", "soup"]}\n'
    )
    result = run(
        "analyze", "odd.jsonl", "--model", "detector.aam", "--out", "r.html",
        cwd=review_files, check=False,
    )  # fmt: skip
    assert (
        result.returncode == 2 and "Review 3 has a text of type list" in result.stderr
    )
    assert not (review_files / "r.html").exists()


def test_train_augment_flag_for_pairs_and_the_detector(workdir, tmp_path):
    from aspectattn.persistence import load

    common = ["--embeddings", "none", "--embedding-dim", "8", "--hidden-size", "8",
              "--epochs", "1", "--quiet"]  # fmt: skip
    run("train", workdir / "train.csv", "--out", "p.aam", "--variant", "at",
        "--augment", "flip+join", "--copy-weight", "0.5", *common,
        cwd=tmp_path)  # fmt: skip
    model = load(tmp_path / "p.aam")
    assert (model.augment, model.resolved_params_["copy_weight"]) == ("flip+join", 0.5)
    bad = run("train", workdir / "train.csv", "--out", "q.aam", "--augment", "flop",
              *common, cwd=tmp_path, check=False)  # fmt: skip
    assert bad.returncode == 2 and "'flop'" in bad.stderr
    assert not (tmp_path / "q.aam").exists()
    bad = run("train", workdir / "train.csv", "--out", "q.aam", "--copy-weight",
              "0", *common, cwd=tmp_path, check=False)  # fmt: skip
    assert bad.returncode == 2 and "--copy-weight" in bad.stderr


def test_train_defaults_are_aspect_level_and_the_flags_turn_them_off(workdir, tmp_path):
    """Without flags, train resolves the "auto" defaults (and says what they became
    in its summary); --augment none, --final-state sentence and --unidirectional
    set them."""
    from aspectattn.persistence import load

    common = ["--embeddings", "none", "--embedding-dim", "8", "--hidden-size", "8",
              "--epochs", "1", "--quiet"]  # fmt: skip
    out = run("train", workdir / "train.csv", "--out", "d.aam", *common, cwd=tmp_path)
    summary = json.loads(out.stdout)
    assert summary["variant"] == "at"
    assert summary["settings"]["augment"] == "flip+join"
    assert summary["settings"]["attention__final_state"] is False
    assert summary["settings"]["optimizer__head_lr"] is None  # auto: lr, with an LSTM
    model = load(tmp_path / "d.aam")
    assert model.resolved_params_ == summary["settings"]
    assert model.get_params()["augment"] == "auto"
    run("train", workdir / "train.csv", "--out", "p.aam", "--augment", "none",
        "--final-state", "sentence", "--unidirectional", "--head-lr", "0.01",
        *common, cwd=tmp_path)  # fmt: skip
    plain = load(tmp_path / "p.aam").resolved_params_
    assert plain["augment"] is None and plain["attention__final_state"] is True
    assert plain["encoder__bidirectional"] is False
    assert plain["optimizer__head_lr"] == 0.01
    assert model.text_pipeline_.unseen is not None  # spelling, by default
    run("train", workdir / "train.csv", "--out", "u.aam", "--unseen-words", "none",
        "--word-dropout", "0.25", *common, cwd=tmp_path)  # fmt: skip
    unseen = load(tmp_path / "u.aam")
    assert unseen.encoder.unseen_words is None and unseen.text_pipeline_.unseen is None
    assert unseen.resolved_params_["encoder__word_dropout"] == 0.25
    for rate in ("-1", "nan", "fast"):
        bad = run("train", workdir / "train.csv", "--out", "b.aam", "--head-lr",
                  rate, *common, cwd=tmp_path, check=False)  # fmt: skip
        assert bad.returncode == 2 and "--head-lr" in bad.stderr, rate
    _write_category_xml(tmp_path / "t.xml", 40)
    out = run("train", "t.xml", "--out", "det.aam", "--detector", *common,
              cwd=tmp_path)  # fmt: skip
    recipe = {**P.SCRATCH_TRAINING, "max_epochs": 1}  # the LSTM's; --epochs 1
    assert json.loads(out.stdout)["settings"] == {
        "language": "en",
        "augment": "flip+join+negate",
        **{k: recipe[k] for k in ("lr", "batch_size", "max_epochs", "dropout")},
        "precision": "float32",
        "mention_weight": 2.0,  # the LSTM detector's, chosen on validation
        "copy_weight": 2.0,  # the LSTM detector's English copies', likewise
        "encoder__bidirectional": False,
        "encoder__hidden_size": 8,
        "encoder__freeze_embeddings": recipe["freeze_embeddings"],
        "encoder__unseen_words": "spelling",
        "encoder__word_dropout": P.ENCODERS["lstm"].recipe.category_word_dropout,
        "attention__final_state": False,
        "attention__position_weighting": "none",
        "optimizer__head_lr": None,
        "optimizer__lr_schedule": recipe["lr_schedule"],
        "early_stopping__patience": recipe["patience"],
    }


def test_check_prints_the_suite_and_the_detection_tests(bad_files):
    """check: the behavioural suite of a category model (food and service are
    among the restaurants' and hotels' categories), as a table or JSON."""
    args = ("check", "model.aam", "--domains")
    out = run(*args, "restaurants,hotels", cwd=bad_files).stdout
    assert "MFT contrast" in out and "hotels" in out and "laptops" not in out
    assert "of unknown categories skipped" in out
    result = json.loads(run(*args, "restaurants", "--json", cwd=bad_files).stdout)
    assert set(result) == {"suite"} and 0 <= result["suite"]["MFT"] <= 1
    # a detector: the detection tests
    out = run("check", "detector.aam", "--domains", "restaurants", cwd=bad_files).stdout
    assert "no aspect in particular" in out and "categories found" in out
    for bad_args, message in [
        (["detector.aam", "--probes", "x"], "needs a pair classifier"),
        (["model.aam", "--domains", "cars"], "unknown domains"),
        (["model.aam", "--probes", "test.csv"], "needs a model of aspect terms"),
    ]:
        bad = run("check", *bad_args, cwd=bad_files, check=False)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr


@requires_shared_data("semeval2014_restaurants")
def test_a_detector_reads_sentences_out_of_every_format_train_reads(
    bad_files, tmp_path
):
    """predict with a detector (and train --detector --unlabelled, through the
    same reader) takes the sentences of an XML file, an APC file or a data-set
    name -- never their markup or label lines as sentences -- and refuses a
    text file that holds either."""
    model = bad_files / "detector.aam"
    _write_category_xml(tmp_path / "t.xml", 5)
    xml_texts = [
        s.findtext("text") for s in ET.parse(tmp_path / "t.xml").iter("sentence")
    ]
    (tmp_path / "t.apc").write_text(
        "the $T$ was great but the waiter was rude\npasta\n1\n"
        "the pasta was great but the $T$ was rude\nwaiter\n-1\n"
        "the $T$ was cold\nsoup\n-1\n"
    )
    for source, expected in [
        ("t.xml", list(dict.fromkeys(xml_texts))),
        ("t.apc", ["the pasta was great but the waiter was rude", "the soup was cold"]),
    ]:
        out = run("predict", model, source, cwd=tmp_path).stdout
        rows = list(csv.DictReader(io.StringIO(out)))
        assert [r["text"] for r in rows] == expected
    named = run("predict", model, "semeval2014-restaurants-category", "--split",
                "test", cwd=tmp_path).stdout  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(named)))
    assert len(rows) == len({r["text"] for r in rows}) > 500
    assert not any(r["text"].lstrip().startswith("<") for r in rows)
    (tmp_path / "xml.txt").write_text((tmp_path / "t.xml").read_text())
    (tmp_path / "apc.txt").write_text((tmp_path / "t.apc").read_text())
    for source, message in [("xml.txt", "holds XML"), ("apc.txt", "three-line")]:
        bad = run("predict", model, source, cwd=tmp_path, check=False)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1


def test_train_learns_from_a_teacher_and_unlabelled_pairs(workdir, tmp_path):
    from aspectattn.persistence import load

    common = ["--embeddings", "none", "--embedding-dim", "8", "--hidden-size", "8",
              "--epochs", "1", "--quiet"]  # fmt: skip
    Xu, _ = make_pairs(30, seed=5)
    _write_csv(tmp_path / "unlabelled.csv", Xu)  # no label column
    result = run("train", workdir / "train.csv", "--out", "s.aam", "--teacher",
                 workdir / "model.aam", "--unlabelled", "unlabelled.csv",
                 "--distill-weight", "0.8", *common, cwd=tmp_path)  # fmt: skip
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    n_labelled = len(make_pairs(200, seed=0, single_share=0.4)[0])  # train.csv
    assert summary["pairs"] == n_labelled + len(Xu)  # labelled and unlabelled
    student = load(tmp_path / "s.aam")
    assert type(student).__name__ == "AspectAttentionClassifier"  # the student
    assert "teacher" not in student.get_params()  # alone
    # the detector: a detector teacher, unlabelled sentences (a text file)
    _write_category_xml(tmp_path / "t.xml", 40)
    run("train", "t.xml", "--detector", "--out", "det.aam", *common, cwd=tmp_path)
    (tmp_path / "more.txt").write_text("the soup was cold\nlovely staff\n")
    result = run("train", "t.xml", "--detector", "--out", "sd.aam", "--teacher",
                 "det.aam", "--unlabelled", "more.txt", *common,
                 cwd=tmp_path)  # fmt: skip
    assert json.loads(result.stdout.strip().splitlines()[-1])["sentences"] == 42
    bad = run("train", "t.xml", "--detector", "--out", "b.aam", "--teacher",
              workdir / "model.aam", *common, cwd=tmp_path, check=False)  # fmt: skip
    assert bad.returncode == 2 and "not a category detector" in bad.stderr
    for args, message in [
        (["--unlabelled", "unlabelled.csv"], "--unlabelled needs --teacher"),
        (["--teacher", "det.aam"], "not a pair classifier"),
        (["--teacher", "missing.aam"], "not found"),
        (["--teacher", workdir / "model.aam", "--distill-weight", "2"],
         "--distill-weight must be a float in the range"),
    ]:  # fmt: skip
        bad = run("train", workdir / "train.csv", "--out", "b.aam", *args, *common,
                  cwd=tmp_path, check=False)  # fmt: skip
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
        assert not (tmp_path / "b.aam").exists()


def _write_terms_xml(path, texts, y) -> None:
    """SemEval-2014 XML of sentences with their terms' spans and polarities."""
    sentences = "".join(
        f'<sentence id="{i}"><text>{t}</text><aspectTerms>'
        + "".join(
            f'<aspectTerm term="{t[a:b]}" polarity="{p}" from="{a}" to="{b}"/>'
            for a, b, p in spans
        )
        + "</aspectTerms></sentence>"
        for i, (t, spans) in enumerate(zip(texts, y, strict=True))
    )
    path.write_text(f"<sentences>{sentences}</sentences>")


def test_an_extractor_trains_evaluates_and_predicts_spans(tmp_path):
    from test_extraction import make_sentences

    texts, y = make_sentences(60, seed=0)
    _write_terms_xml(tmp_path / "terms.xml", texts, y)
    (tmp_path / "new.txt").write_text("The soup was bland.\nWhat a lovely day.\n")
    out = run(
        "train",
        "terms.xml",
        "--extractor",
        "--out",
        "ex.aam",
        "--epochs",
        "2",
        "--embeddings",
        "none",
        "--embedding-dim",
        "8",
        "--hidden-size",
        "100",
        "--lr",
        "0.02",
        "--quiet",
        cwd=tmp_path,
    ).stdout
    summary = json.loads(out)
    assert summary["extractor"] and summary["sentences"] == 60
    from aspectattn.persistence import load

    encoder = load(tmp_path / "ex.aam").encoder  # the LSTM the flags describe
    assert (encoder.hidden_size, encoder.embedding_dim) == (100, 8)
    assert encoder.embeddings is None
    assert summary["language"] == "en" and summary["epochs"] == 2
    report = json.loads(
        run("evaluate", "ex.aam", "terms.xml", "--json", cwd=tmp_path).stdout
    )
    assert report["true"] == sum(map(len, y)) and 0 <= report["f1"] <= 1
    rows = list(
        csv.DictReader(
            io.StringIO(run("predict", "ex.aam", "new.txt", cwd=tmp_path).stdout)
        )
    )
    assert [r["text"] for r in rows][-1] == "What a lovely day."
    for row in rows:
        if row["term"]:
            assert row["text"][int(row["start"]) : int(row["end"])] == row["term"]
    bad = run(
        "train",
        "terms.xml",
        "--extractor",
        "--detector",
        "--out",
        "x.aam",
        cwd=tmp_path,
        check=False,
    )
    assert bad.returncode == 2 and "--extractor" in bad.stderr
    # the review report on the terms it finds, each classified by a term model
    run("train", "terms.xml", "--out", "terms.aam", "--epochs", "1", "--embeddings",
        "none", "--embedding-dim", "8", "--hidden-size", "8", "--quiet",
        cwd=tmp_path)  # fmt: skip
    (tmp_path / "reviews.csv").write_text(
        "text\nThe soup was bland. The host was lovely!\nWhat a lovely day.\n"
    )
    summary = json.loads(
        run(
            "analyze",
            "reviews.csv",
            "--extractor",
            "ex.aam",
            "--model",
            "terms.aam",
            "--out",
            "report.html",
            "--table",
            "sentences.csv",
            "--min-probability",
            "0.01",
            cwd=tmp_path,
        ).stdout  # fmt: skip
    )
    assert summary["reviews"] == 2 and summary["sentences"] == 3
    assert (tmp_path / "report.html").is_file()
    wrong = run("analyze", "reviews.csv", "--extractor", "terms.aam", "--model",
                "terms.aam", "--out", "r.html", cwd=tmp_path, check=False)  # fmt: skip
    assert wrong.returncode == 2 and "not an aspect term extractor" in wrong.stderr
    # ... and scored end to end: a hit needs the span and the polarity
    report = json.loads(
        run(
            "evaluate",
            "terms.aam",
            "terms.xml",
            "--extractor",
            "ex.aam",
            "--json",
            cwd=tmp_path,
        ).stdout  # fmt: skip
    )
    assert report["e2e_true"] == sum(map(len, y)) and 0 <= report["e2e_f1"] <= 1
    assert report["e2e_correct"] <= report["e2e_predicted"]
    # the two as one model file: the whole pipeline, used as they are together
    from aspectattn import AspectSentimentPipeline
    from aspectattn.persistence import load, save

    pipeline = AspectSentimentPipeline.from_fitted(
        load(tmp_path / "ex.aam"), load(tmp_path / "terms.aam")
    )
    save(pipeline, tmp_path / "pipeline.aam")
    again = run("evaluate", "pipeline.aam", "terms.xml", "--json", cwd=tmp_path)
    assert json.loads(again.stdout) == report
    rows = list(
        csv.DictReader(
            io.StringIO(run("predict", "pipeline.aam", "new.txt", cwd=tmp_path).stdout)
        )
    )
    assert rows[0]["polarity"] in ("positive", "negative") and rows[0]["probability"]
    assert all(bool(r["polarity"]) == bool(r["term"]) for r in rows)  # (none: "")
    run("analyze", "reviews.csv", "--model", "pipeline.aam", "--out", "p.html",
        cwd=tmp_path)  # fmt: skip
    assert (tmp_path / "p.html").is_file()
    wrong = run("analyze", "reviews.csv", "--model", "pipeline.aam", "--extractor",
                "ex.aam", "--out", "q.html", cwd=tmp_path, check=False)  # fmt: skip
    assert wrong.returncode == 2 and "drop --extractor" in wrong.stderr


# -- every command on every kind of model ---------------------------------------
@pytest.fixture(scope="module")
def kinds(tmp_path_factory, detector):
    """One model file of each kind, and the data each command reads: pairs of
    categories, terms with their spans (XML), sentences, reviews, broken XML."""
    from test_extraction import FAST_EXTRACTOR, make_sentences, term_pairs

    from aspectattn import (
        AspectAttentionClassifier,
        AspectSentimentExtractor,
        AspectSentimentPipeline,
        AspectTermExtractor,
    )
    from aspectattn.persistence import save

    d = tmp_path_factory.mktemp("kinds")
    texts, y = make_sentences(60, seed=0)
    pairs, labels = term_pairs(texts, y)
    fast = {**FAST, "max_epochs": 1}
    extractor = AspectTermExtractor(**{**FAST_EXTRACTOR, "max_epochs": 2})
    extractor.fit(texts, y)
    terms = AspectAttentionClassifier(**fast).fit(pairs, labels)
    save(extractor, d / "extractor.aam")
    save(terms, d / "terms.aam")
    save(AspectSentimentPipeline.from_fitted(extractor, terms), d / "pipeline.aam")
    joint = AspectSentimentExtractor(**{**FAST_EXTRACTOR, "max_epochs": 2})
    save(joint.fit(texts, y), d / "joint.aam")
    detector.save(d / "detector.aam")
    X, yc = make_pairs(40, seed=0)
    AspectAttentionClassifier(**fast).fit(X, yc).save(d / "categories.aam")
    _write_csv(d / "pairs.csv", X, yc)
    _write_terms_xml(d / "terms.xml", texts[:20], y[:20])
    (d / "bad.xml").write_text("<sentences><sentence><text>oops</sentence>")
    (d / "s.txt").write_text("The soup was bland.\nThe waiter was kind.\n")
    (d / "reviews.csv").write_text("text\nThe soup was bland. The host was kind.\n")
    return d


#: command -> its arguments after the model file (or the model's place).
COMMANDS = {
    "evaluate": ["evaluate", "{model}", "{data}"],
    "evaluate broken XML": ["evaluate", "{model}", "bad.xml"],
    "predict": ["predict", "{model}", "{data}", "--out", "out.csv"],
    "predict --aspects": ["predict", "{model}", "s.txt", "--aspects", "food"],
    "predict --quantize int8": ["predict", "{model}", "{data}", "--quantize", "int8"],
    "explain": ["explain", "{model}", "{pairs}", "--limit", "2"],
    "export": ["export", "{model}", "exported"],
    "check": ["check", "{model}", "--domains", "restaurants"],
    "analyze": ["analyze", "reviews.csv", "--model", "{model}", "--out", "r.html"],
}
#: kind -> (model file, its data, its pairs); then the cells that refuse, with
#: what the one line says (every other cell works).
KINDS = {
    "categories": ("categories.aam", "pairs.csv", "pairs.csv"),
    "terms": ("terms.aam", "terms.xml", "terms.xml"),
    "detector": ("detector.aam", "s.txt", "pairs.csv"),
    "extractor": ("extractor.aam", "terms.xml", "terms.xml"),
    "pipeline": ("pipeline.aam", "terms.xml", "terms.xml"),
    "joint": ("joint.aam", "terms.xml", "terms.xml"),
}
REFUSED = {
    ("categories", "analyze"): "is a pair classifier; analyze needs",
    ("terms", "predict --aspects"): "does not occur in its text",
    ("terms", "analyze"): "is a pair classifier; analyze needs",
    ("detector", "evaluate"): "the category detector reads",
    ("detector", "explain"): "this model is a category detector",
    ("extractor", "predict --aspects"): "finds each sentence's aspect terms",
    ("extractor", "explain"): "is an aspect term extractor, which gives no pol",
    ("extractor", "check"): "is an aspect term extractor, which gives no pol",
    ("extractor", "analyze"): "give it as --extractor",
    ("pipeline", "predict --aspects"): "finds each sentence's aspect terms",
    ("joint", "predict --aspects"): "finds each sentence's aspect terms",
    ("joint", "explain"): "is a joint aspect-sentiment model: explain reads",
}


@pytest.mark.parametrize("kind", KINDS)
def test_every_command_on_every_kind_works_or_says_why_not_in_one_line(kinds, kind):
    """The table the README's command list promises: a command either works on
    a model file, or exits 2 with one line that says why -- never a traceback,
    and never a flag ignored in silence."""
    import shutil

    model, data, pairs = KINDS[kind]
    for command, args in COMMANDS.items():
        shutil.rmtree(kinds / "exported", ignore_errors=True)
        argv = [a.format(model=model, data=data, pairs=pairs) for a in args]
        result = run(*argv, cwd=kinds, check=False)
        lines = result.stderr.strip().splitlines()
        if "broken XML" in command:
            assert result.returncode == 2, (kind, command)
            assert lines[-1].endswith("bad.xml is not well-formed XML (mismatched"
                                      " tag: line 1, column 33)"), lines  # fmt: skip
        elif (kind, command) in REFUSED:
            assert result.returncode == 2, (kind, command, result.stdout[-300:])
            errors = [ln for ln in lines if "error:" in ln]
            assert len(errors) == 1 and REFUSED[kind, command] in errors[0], lines
        else:
            assert result.returncode == 0, (kind, command, lines[-3:])
        assert "Traceback" not in result.stderr


def test_a_web_app_serves_a_pipeline_or_joint_file_and_refuses_an_extractor(kinds):
    import importlib.util

    pytest.importorskip("flask")
    example = Path(__file__).resolve().parents[1] / "examples" / "web_app.py"
    spec = importlib.util.spec_from_file_location("web_app_kinds", example)
    web_app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(web_app)
    client = web_app.create_app(str(kinds / "pipeline.aam")).test_client()
    assert client.get("/health").get_json()["extractor"] is True
    from aspectattn.persistence import load

    text = "The soup was bland. The waiter was kind."
    answer = client.post("/analyze", json={"texts": [text]})
    found = load(kinds / "pipeline.aam").analyze([text])[0]
    assert answer.status_code == 200
    assert [a["term"] for a in answer.get_json()["results"][0]] == [
        f["term"] for f in found
    ]
    with pytest.raises(ValueError, match="pass it as --extractor"):
        web_app.create_app(str(kinds / "extractor.aam"))
    # the joint model answers /analyze from its one pass, /predict given terms
    client = web_app.create_app(str(kinds / "joint.aam")).test_client()
    assert client.get("/health").get_json()["extractor"] is True
    answer = client.post("/analyze", json={"texts": [text]})
    found = load(kinds / "joint.aam").analyze([text])[0]
    assert [a["term"] for a in answer.get_json()["results"][0]] == [
        f["term"] for f in found
    ]
    pairs = {"pairs": [[text, "soup"]]}
    assert client.post("/predict", json=pairs).status_code == 200
    refused = client.post("/explain", json=pairs)
    assert refused.status_code == 400 and "joint" in refused.get_json()["error"]


def test_train_extractor_reads_its_flags_or_refuses_them(kinds):
    """--history-plot is drawn, --unlabelled and --validation-fraction 0 refused
    (they were ignored, 0 became 0.1), pairs without spans named as such, an
    output that cannot be written refused before training."""
    base = ["train", "terms.xml", "--extractor", "--epochs", "1", "--quiet"]
    base += ["--embeddings", "none", "--embedding-dim", "8", "--hidden-size", "8"]
    run(*base, "--out", "e.aam", "--history-plot", "h.png", cwd=kinds)
    assert (kinds / "h.png").stat().st_size > 0
    for extra, says in [
        (["--unlabelled", "s.txt"], "no --unlabelled"),
        (["--teacher", "terms.aam"], "no --teacher"),
        (["--validation-fraction", "0"], "--validation-fraction must be above 0"),
    ]:
        bad = run(*base, "--out", "x.aam", *extra, cwd=kinds, check=False)
        assert bad.returncode == 2 and says in bad.stderr
    bad = run(*base[:1], "pairs.csv", *base[2:], "--out", "x.aam", cwd=kinds,
              check=False)  # fmt: skip
    assert bad.returncode == 2 and "not a file of sentences with their" in bad.stderr
    bad = run(*base, "--out", "/proc/x.aam", cwd=kinds, check=False)
    assert bad.returncode == 2 and "cannot be written" in bad.stderr
    assert "epoch" not in bad.stderr  # refused before training


def test_train_joint_writes_the_joint_model_that_predict_reads(kinds):
    base = ["train", "terms.xml", "--joint", "--epochs", "1", "--quiet"]
    base += ["--embeddings", "none", "--embedding-dim", "8", "--hidden-size", "8"]
    report = json.loads(run(*base, "--out", "j.aam", cwd=kinds).stdout)
    assert report["joint"] is True and report["extractor"] is False
    rows = list(csv.DictReader(io.StringIO(run("predict", "j.aam", "s.txt",
                                               cwd=kinds).stdout)))  # fmt: skip
    assert set(rows[0]) == {"text", "start", "end", "term", "score", "polarity",
                            "probability"}  # fmt: skip
    both = run(*base, "--extractor", "--out", "x.aam", cwd=kinds, check=False)
    assert both.returncode == 2 and "not both" in both.stderr
    # taught by a joint model, on the unlabelled sentences of a text file too
    taught = run(*base, "--teacher", "j.aam", "--unlabelled", "s.txt", "--out",
                 "t.aam", cwd=kinds)  # fmt: skip
    report = json.loads(taught.stdout)
    n_unlabelled = len((kinds / "s.txt").read_text().splitlines())
    assert report["sentences"] > n_unlabelled and report["joint"] is True
    for extra, says in [
        (["--unlabelled", "s.txt"], "needs --teacher"),
        (["--teacher", "terms.aam"], "not a joint model"),
        (["--teacher", "j.aam", "--distill-weight", "2"], "--distill-weight must"),
    ]:
        bad = run(*base, "--out", "x.aam", *extra, cwd=kinds, check=False)
        assert bad.returncode == 2 and says in bad.stderr, bad.stderr


def test_an_output_link_into_a_directory_that_takes_no_file_is_refused_first():
    """output_path writes where a link points: the check before the work tries
    that directory, not the link's own."""
    import tempfile

    from aspectattn.cli._common import CLIError, check_outputs

    with tempfile.TemporaryDirectory() as here:
        link = Path(here) / "model.aam"
        link.symlink_to("/proc/x.aam")  # a directory that takes no new file
        with pytest.raises(CLIError, match="its directory /proc takes no new"):
            check_outputs([], [link])


def test_check_scores_the_probes_of_a_file_as_the_api_does(kinds):
    """`check --probes` read the data as pairs without spans, which dropped the
    probes that reverse a term's opinion (RevTgt, RevNon) in silence and
    inflated ARS; it now reads every span the data has."""
    from aspectattn.datasets import read_semeval2014
    from aspectattn.evaluation import aspect_robustness_score
    from aspectattn.persistence import load

    out = run("check", "terms.aam", "--domains", "restaurants", "--probes",
              "terms.xml", "--json", cwd=kinds).stdout  # fmt: skip
    X, y = read_semeval2014(kinds / "terms.xml", "term", spans=True)
    assert all(len(item) == 3 for item in X)
    api = aspect_robustness_score(load(kinds / "terms.aam"), X, y)
    assert json.loads(out)["probes"] == api
    assert api["n_RevTgt"] > 0 and api["n_RevNon"] > 0


def test_a_table_with_start_and_end_columns_gives_the_terms_places(kinds, tmp_path):
    from aspectattn.cli._common import CLIError, _read_table

    path = tmp_path / "t.csv"
    path.write_text("text,aspect,start,end\nsoup and soup,soup,9,13\nno term,x,,\n")
    *_, spans = _read_table(path, "text", "aspect", "label")
    assert spans == [(9, 13), None]
    path.write_text("text,aspect,start,end\nsoup,soup,-1,4\n")
    with pytest.raises(CLIError, match=r"row 1 has start='-1'"):
        _read_table(path, "text", "aspect", "label")
    path.write_text("text,aspect,start,end\nok,ok,0,2\nsoup and salad,soup,9,14\n")
    with pytest.raises(CLIError, match=r"\(9, 14\) of row 2 of .*t.csv holds 'salad'"):
        _read_table(path, "text", "aspect", "label")
    path.write_text("text,aspect,start,end\nsoup,soup,0,40\n")
    with pytest.raises(CLIError, match=r"\(0, 40\) of row 1 of .*t.csv is not inside"):
        _read_table(path, "text", "aspect", "label")
