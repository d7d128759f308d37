"""The one parameter table (aspectattn.params) and what is made from it: both
estimators' signatures, constraints and docstrings, the CLI's help, the README's
parameter table, the unused-parameter warnings and the configs."""

import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from aspectattn import AspectAttentionClassifier, AspectCategoryClassifier
from aspectattn import params as P
from aspectattn.attention import AspectAttention
from aspectattn.encoders import (
    LSTMEncoder,
    PretrainedEncoder,
    TransformerEncoder,
)
from aspectattn.estimators import categories as category_module
from aspectattn.estimators import pairs as pair_module
from aspectattn.estimators._slots import COMPONENT_NAMES
from aspectattn.training import EarlyStopping, Optimizer

#: Where the parameter table is written for people (the user guide's training page).
README = Path(__file__).resolve().parents[1] / "docs" / "guide" / "training.md"
ESTIMATORS = [
    (AspectAttentionClassifier, pair_module.SIGNATURE, P.CATEGORY_GROUPS),
    (AspectCategoryClassifier, category_module.SIGNATURE, P.PAIR_GROUPS),
]
#: The table parameters that belong to the components, not to an estimator.
COMPONENTS = COMPONENT_NAMES


def _table_default(name):
    """A parameter's default as the table states it (``attention``, a component
    slot: the name of its default score)."""
    return P.TABLE["attention_score" if name == "attention" else name].default


def _table_type(name):
    if name == "attention":
        return "AspectAttention or " + P.TABLE["attention_score"].type
    if name == "optimizer":
        return "Optimizer or " + P.TABLE[name].type
    if name == "early_stopping":
        return "bool or EarlyStopping"
    return P.TABLE[name].type


@pytest.mark.parametrize("cls, names, excluded", ESTIMATORS)
def test_signature_and_constraints_are_the_tables(cls, names, excluded):
    signature = inspect.signature(cls.__init__).parameters
    # keyword-only, in table order, and nothing else (no catch-all **kwargs)
    assert list(signature)[1:] == names
    for name in names:
        assert signature[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert signature[name].default == _table_default(name), name
        assert type(signature[name].default) is type(_table_default(name)), name
    assert set(cls._parameter_constraints) == set(names)
    groups = {P.TABLE[n].group for n in names if n != "attention"}
    assert not groups & set(excluded)  # a parameter that does not apply is absent
    assert cls().get_params() == {n: _table_default(n) for n in names}
    # the components' parameters are theirs, not the estimator's
    assert not set(names) & COMPONENTS
    assert set(cls._table_names) == set(names) - {"attention"} | (
        COMPONENTS - {p.name for p in P.PARAMS if p.group in excluded}
    )


def test_no_parameter_is_left_out_and_the_two_share_the_rest():
    pair, det = set(pair_module.PARAMETERS), set(category_module.PARAMETERS)
    assert set(pair_module.SIGNATURE) - {"attention"} | COMPONENTS == pair
    # distillation's three: DistilledClassifier's, neither estimator's
    taught = {p.name for p in P.PARAMS if p.group in P.DISTILLATION_GROUPS}
    assert taught == {"teacher", "distill_weight", "distill_temperature"}
    assert pair | det | taught == set(P.TABLE) and not (pair | det) & taught
    shared = {
        p.name
        for p in P.PARAMS
        if p.group not in (*P.PAIR_GROUPS, "categories", *P.DISTILLATION_GROUPS)
    }
    assert pair & det == shared
    assert len(P.PARAMS) == len(P.TABLE)  # no name twice


def test_init_only_stores_its_arguments():
    clf = AspectCategoryClassifier(
        encoder=LSTMEncoder(hidden_size=-3), not_mentioned=""
    )
    assert clf.encoder.hidden_size == -3 and clf.not_mentioned == ""  # fit checks
    with pytest.raises(TypeError):
        AspectCategoryClassifier(variant="at")  # not a parameter of the detector
    with pytest.raises(TypeError):
        AspectAttentionClassifier(0)  # keyword-only


@pytest.mark.parametrize("cls", [AspectAttentionClassifier, AspectCategoryClassifier])
def test_constraint_messages_name_the_estimator(cls):
    with pytest.raises(
        ValueError,
        match=rf"The 'hidden_size' parameter of LSTMEncoder \(encoder of "
        rf"{cls.__name__}\) must be a str among {{'auto'}} or an int in the range "
        r"\[1, 100000\]. Got -3 "
        "instead.",
    ):
        cls(encoder=LSTMEncoder(hidden_size=-3)).fit(None, None)


def test_methods_that_do_not_apply_are_absent():
    detector = AspectCategoryClassifier()
    for name in (
        "explain",
        "predict_proba_aspects",
        "predict_aspects",
        "decision_function",
        "self_attention",
    ):
        assert not hasattr(detector, name), name
    assert not isinstance(detector, AspectAttentionClassifier)
    for name in ("analyze", "predict_sentiment"):
        assert not hasattr(AspectAttentionClassifier(), name), name


def _entries(doc: str) -> dict:
    """A numpydoc Parameters section's entries: name -> (type line, text)."""
    section = doc.split("Parameters\n    ----------\n")[1].split("\n\n    ")[0]
    entries, name = {}, None
    for line in section.splitlines():
        match = re.match(r"^    (\w+) : (.*)$", line)
        if match:
            name = match.group(1)
            entries[name] = [match.group(2), ""]
        elif name:
            entries[name][1] += line.strip() + " "
    return entries


@pytest.mark.parametrize("cls, names, _", ESTIMATORS)
def test_docstrings_document_every_parameter_with_its_default(cls, names, _):
    """The written-out docstrings document the signature, in its order, each
    default as the signature (and the table) has it."""
    entries = _entries(cls.__doc__)
    assert list(entries) == names
    for name, (type_line, text) in entries.items():
        default = type_line.rsplit("default=", 1)[1]
        assert ast.literal_eval(default) == _table_default(name), name
        assert _table_type(name) in type_line, name
        assert text.strip(), name


def test_the_two_estimators_document_a_shared_parameter_alike():
    pairs = _entries(AspectAttentionClassifier.__doc__)
    detector = _entries(AspectCategoryClassifier.__doc__)
    shared = set(pairs) & set(detector)
    assert len(shared) >= 15
    # the attention's and early stopping's entries say which of their settings
    # each estimator takes
    different = {n for n in shared if pairs[n] != detector[n]}
    assert different == {"attention", "early_stopping"}


@pytest.mark.parametrize(
    "cls, params, message",
    [
        (
            AspectCategoryClassifier,
            dict(attention=AspectAttention(final_state="term")),
            "final_state='term'",
        ),
        (
            AspectAttentionClassifier,
            dict(aspect_type="category", attention=AspectAttention(final_state="term")),
            "final_state='term'",
        ),
        (  # the detector has no terms: the attention's term settings stay unset
            AspectCategoryClassifier,
            dict(attention=AspectAttention(position_weighting="linear")),
            r"AspectAttention\(position_weighting='linear'\) does not apply to "
            "AspectCategoryClassifier",
        ),
        (
            AspectAttentionClassifier,
            dict(batch_by="sentence", variant="atae", aspect_type="category"),
            "batch_by",
        ),
        (
            AspectAttentionClassifier,
            dict(encoder=TransformerEncoder(d_model=10, n_heads=4)),
            "divisible",
        ),
        (AspectCategoryClassifier, dict(early_stopping=True), "validation_fraction"),
        (AspectAttentionClassifier, dict(encoder="pretrained"), "checkpoint"),
        (AspectAttentionClassifier, dict(encoder=PretrainedEncoder()), "path="),
    ],
)
def test_combinations_are_checked_before_any_data_work(cls, params, message):
    # X and y are not even data: the settings are refused first
    with pytest.raises(ValueError, match=message):
        cls(**params).fit(None, None)


def test_auto_aspects_are_checked_after_resolving_them_before_the_vocabulary(
    pairs, monkeypatch
):
    def no_building(*args, **kwargs):
        raise AssertionError("the model was being built")

    from aspectattn.estimators import _base

    monkeypatch.setattr(_base, "prepare_model", no_building)
    X, y = pairs
    with pytest.raises(ValueError, match="final_state='term' needs aspect terms"):
        AspectAttentionClassifier(attention=AspectAttention(final_state="term")).fit(
            X, y
        )


def test_unused_parameters_warn_in_sklearn_words():
    values = {
        **AspectAttentionClassifier()._table_params(),
        "encoder": "transformer",
        "hidden_size": 10,
        "variant": "ae",
        "attention_heads": 2,
        "aspect_type": "category",
        "term_marker": True,
    }
    pairs_ = P.unused(values, "category")
    assert ("hidden_size", "encoder='transformer'") in pairs_
    assert ("attention_heads", "variant='ae'") in pairs_
    assert ("term_marker", "aspect_type='category'") in pairs_
    with pytest.warns(UserWarning, match="'hidden_size' is not used when encoder="):
        P.warn_unused(values, pairs_)


def test_configs_take_their_fields_from_the_table():
    from dataclasses import fields

    for cls, goes in ((P.ModelConfig, "model"), (P.TrainingConfig, "training")):
        names = [f.name for f in fields(cls)]
        own = [
            n
            for n in names
            if n not in ("keep_sentences", "run_params", "encoder_params")
        ]
        # every parameter that goes there is a field, and nothing else is
        assert own == [p.name for p in P.PARAMS if p.goes == goes]
        for name in own:
            assert cls.__dataclass_fields__[name].default == P.TABLE[name].default
    assert {p.goes for p in P.PARAMS} == {"model", "training", "estimator"}
    config = P.ModelConfig.from_params({"hidden_size": 7, "lr": 0.5})
    assert config.hidden_size == 7 and config.encoder == "lstm"
    assert config.encoder_params == {"hidden_size": 7}  # what is given of its group
    config = P.ModelConfig.from_params(AspectAttentionClassifier()._table_params())
    assert config.encoder_params == {"hidden_size": "auto", "bidirectional": "auto"}
    # a leftover value (no parameter of the table) is an error, never dropped
    with pytest.raises(ValueError, match="not parameters: \\['not_a_field'\\]"):
        P.ModelConfig.from_params({"hidden_size": 7, "not_a_field": 1})
    with pytest.raises(ValueError, match="not_a_field"):
        P.TrainingConfig.from_params({"not_a_field": 1})


def test_the_module_schema_is_the_tables_constraints():
    from aspectattn.nn import schema
    from aspectattn.nn.encoders import get_encoder

    # a bound is stated once: the table's, for the estimator and for files alike
    assert schema.MODEL_SCHEMA["dropout"] == P.value_constraints("dropout")
    lstm = get_encoder("lstm").config_schema
    assert lstm["hidden_size"] == P.value_constraints("hidden_size")
    assert (
        LSTMEncoder._constraints()["hidden_size"] == P.TABLE["hidden_size"].constraints
    )
    for name in P.ENCODERS:
        assert isinstance(get_encoder(name).config_schema, dict), name


def test_an_unknown_encoder_is_an_error_never_a_fallback():
    from types import SimpleNamespace

    from aspectattn.engine.building import prepare_model

    config = P.ModelConfig(encoder="gru")
    with pytest.raises(ValueError, match="encoder must be one of"):
        data = SimpleNamespace(
            texts=["a b"],
            aspects=["a"],
            aspect_type="term",
            categories=np.array([]),
            labels=["negative", "positive"],
        )
        prepare_model(config, data, 0, np.random.default_rng(0))


def test_below_the_estimators_nothing_reads_the_estimator():
    root = Path(P.__file__).resolve().parents[1]
    for folder in ("engine", "nn", "text"):
        for path in (root / folder).rglob("*.py"):
            tree = ast.parse(path.read_text())
            names = {
                a.arg
                for n in ast.walk(tree)
                if isinstance(n, ast.arguments)
                for a in n.args + n.kwonlyargs
            }
            assert not {"est", "estimator"} & names, path


def test_cli_help_comes_from_the_table(capsys):
    from aspectattn.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for name in ("hidden_size", "attention_score", "position_weighting", "dropout"):
        assert " ".join(P.cli_help(name).split()) in out, name


def _readme_parameter_rows(heading="| parameter | default | meaning |"):
    text = README.read_text()
    start = text.index(heading)
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        names = re.findall(r"`(\w+)`", cells[0])
        defaults = re.findall(r"`([^`]*)`", cells[1])
        assert len(names) == len(defaults), line
        rows.update(zip(names, defaults, strict=True))
    return rows


def test_readme_parameter_table_matches_the_table():
    rows = _readme_parameter_rows()
    assert set(rows) == set(pair_module.SIGNATURE)
    for name, default in rows.items():
        assert ast.literal_eval(default) == _table_default(name), name
    # the components' table: each parameter of each encoder and of the
    # attention, with its default
    rows = _readme_parameter_rows("| component parameter | default | meaning |")
    signatures = [
        inspect.signature(cls).parameters
        for cls in (
            LSTMEncoder,
            TransformerEncoder,
            PretrainedEncoder,
            AspectAttention,
            Optimizer,
            EarlyStopping,
        )
    ]
    assert set(rows) == {name for params in signatures for name in params}
    for name, default in rows.items():
        for params in signatures:
            if name in params:
                assert ast.literal_eval(default) == params[name].default, name
    text = "".join(p.read_text() for p in sorted(README.parent.glob("*.md")))
    for name in set(category_module.PARAMETERS) - set(pair_module.PARAMETERS):
        assert f"`{name}`" in text, name


# ---------------------------------------------------------------- "auto" values
def test_auto_values_resolve_by_aspect_type_and_labels():
    values = AspectAttentionClassifier()._table_params()
    labels = ["negative", "neutral", "positive"]
    terms = P.resolve_auto(values, "term", labels)
    assert terms == {
        "language": "en",  # no texts: the English of the models before it
        "aspect_type": "term",
        "batch_by": "sentence",
        "final_state": "term",
        "position_weighting": "learned",  # the rule's choice for the LSTM's terms
        "bidirectional": True,
        "hidden_size": P.LSTM_SIZE,
        "augment": "flip+join+negate",  # the rule's choice for the LSTM's terms
        "copy_weight": 1.0,  # the rule kept the terms' copies at 1
        "head_lr": None,
        **P.SCRATCH_TRAINING,
        "precision": "float32",  # no device: the float32 of the models before
        "unseen_words": "spelling",
    }
    # fastText's own n-gram vectors read unseen words when they are trained
    fasttext = P.resolve_auto({**values, "embeddings": "fasttext"}, "term", labels)
    assert fasttext["unseen_words"] == "vectors"
    assert (
        P.resolve_auto({**values, "unseen_words": None}, "term")["unseen_words"] is None
    )
    categories = P.resolve_auto(values, "category", labels)
    assert categories["final_state"] is False
    assert categories["augment"] == "flip+join"  # the rule's, English categories
    assert categories["bidirectional"] is False
    # joined copies need both polarities: other label sets train without copies
    assert P.resolve_auto(values, "category", ["bad", "good"])["augment"] is None
    assert (
        P.resolve_auto({**values, "encoder": "pretrained"}, "term", ["bad", "good"])[
            "augment"
        ]
        is None
    )
    # the terms' copies per encoder (the transformer's were not measured), and
    # none outside English, whose opinion words they reverse
    # and their position prior (the LSTM's chosen by the rule, the others' not
    # measured with it); categories have none
    # and the pretrained encoder's terms as a second segment too, which then
    # batches pairs (each pair is its own encoder pass)
    for encoder, copies, prior, given, category_copies in [
        ("pretrained", "flip+join+negate", "linear", "pair", "join"),
        ("lstm", "flip+join+negate", "learned", None, "flip+join"),
        ("transformer", None, "linear", None, "join"),
    ]:
        got = P.resolve_auto({**values, "encoder": encoder}, "term", labels)
        assert (got["augment"], got["position_weighting"]) == (copies, prior)
        assert got.get("pretrained_input") == given
        assert got["batch_by"] == ("pair" if given == "pair" else "sentence")
        got = P.resolve_auto({**values, "encoder": encoder}, "category", labels)
        assert got["augment"] == category_copies
        assert got["position_weighting"] == "none"
        assert got.get("pretrained_input") == (given and "vector")
        assert got["batch_by"] == "sentence"
        # another encoder's parameters are not resolved: the LSTM's size is no
        # setting of a checkpoint's model, nor the checkpoint's input of the LSTM's
        lstm_only = {"hidden_size", "bidirectional"}
        assert lstm_only & set(got) == (lstm_only if encoder == "lstm" else set())
    pretrained = {**values, "encoder": "pretrained"}
    for language in ("es", "tr"):
        got = P.resolve_auto({**pretrained, "language": language}, "term", labels)
        assert got["augment"] is None
        # categories in another language: the joins alone (no English flips)
        for detector in (False, True):
            got = P.resolve_auto(
                {**values, "language": language}, "category", labels, detector=detector
            )
            assert got["augment"] == "join"
    # what the user set stays as set; an encoder that sees the aspect batches pairs
    mine = P.resolve_auto(
        {**values, "variant": "atae", "final_state": True, "augment": None},
        "category",
        labels,
    )
    assert mine["batch_by"] == "pair" and mine["final_state"] is True
    assert mine["augment"] is None
    # what a pretrained encoder feeds trains at its own rate
    pretrained = P.resolve_auto({**values, "encoder": "pretrained"}, "term", labels)
    assert pretrained["head_lr"] == P.PRETRAINED_HEAD_LR
    assert P.resolve_auto({**values, "head_lr": None}, "term")["head_lr"] is None
    # ... and fine-tunes with its own recipe; what the user set stays
    assert {k: pretrained[k] for k in P.PRETRAINED_TRAINING} == P.PRETRAINED_TRAINING
    assert P.PRETRAINED_TRAINING["lr"] < P.SCRATCH_TRAINING["lr"]
    mine = P.resolve_auto({**values, "encoder": "pretrained", "lr": 2e-5}, "term")
    assert mine["lr"] == 2e-5 and mine["max_epochs"] == 4


def test_the_detectors_mention_weight_is_the_encoders():
    from aspectattn import AspectCategoryClassifier

    values = AspectCategoryClassifier()._table_params()
    assert values["mention_weight"] == "auto"
    labels = ["negative", "neutral", "none", "positive"]
    # chosen on validation for the LSTM; the others' not measured
    for encoder, weight in [("lstm", 2.0), ("transformer", 1.0), ("pretrained", 1.0)]:
        got = P.resolve_auto({**values, "encoder": encoder}, "category", labels)
        assert got["mention_weight"] == weight
    mine = P.resolve_auto({**values, "mention_weight": 0.5}, "category", labels)
    assert mine["mention_weight"] == 0.5
    # the pair classifier has no such parameter, and resolves none
    pairs = AspectAttentionClassifier()._table_params()
    assert "mention_weight" not in P.resolve_auto(pairs, "category", labels)


def test_the_copies_weight_is_the_detectors_in_english_and_1_elsewhere():
    from aspectattn import AspectCategoryClassifier

    labels = ["negative", "neutral", "none", "positive"]
    detector = AspectCategoryClassifier()._table_params()
    pairs = AspectAttentionClassifier()._table_params()
    assert detector["copy_weight"] == pairs["copy_weight"] == "auto"
    english, spanish = ["the soup was cold"], ["la sopa estaba fría"]
    # chosen on validation for the LSTM detector's English copies; the others'
    # not measured (the LSTM's term copies: 1 by the same rule)
    for encoder, weight in [("lstm", 2.0), ("transformer", 1.0), ("pretrained", 1.0)]:
        got = P.resolve_auto(
            {**detector, "encoder": encoder},
            "category",
            labels,
            english,
            detector=True,
        )
        assert got["copy_weight"] == weight
    other = P.resolve_auto(detector, "category", labels, spanish, detector=True)
    assert other["language"] is None and other["copy_weight"] == 1.0
    for aspect_type in ("category", "term"):
        got = P.resolve_auto(pairs, aspect_type, labels, english)
        assert got["copy_weight"] == 1.0
    mine = P.resolve_auto({**detector, "copy_weight": 0.5}, "category", labels)
    assert mine["copy_weight"] == 0.5


def test_precision_auto_is_bfloat16_only_where_native(monkeypatch):
    import torch

    values = {**AspectAttentionClassifier()._table_params(), "encoder": "pretrained"}
    for native in (True, False):
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda n=native: n)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
        got = P.resolve_auto(values, "term", device="cpu")["precision"]
        assert got == ("bfloat16" if native else "float32")
    # the encoders trained from scratch stay float32 whatever the device
    lstm = P.resolve_auto({**values, "encoder": "lstm"}, "term", device="cpu")
    assert lstm["precision"] == "float32"
    assert P.resolve_auto(values, "term", device="mps")["precision"] == "float32"


def test_every_auto_default_is_resolved():
    """No parameter defaults to "auto" without a rule in resolve_auto."""
    autos = {p.name for p in P.PARAMS if p.default == "auto" and p.name != "device"}
    assert autos == set(P.AUTO_PARAMS)
    for aspect_type in ("category", "term"):
        resolved = P.resolve_auto(
            AspectAttentionClassifier()._table_params(), aspect_type
        )
        assert "auto" not in [v for v in resolved.values() if isinstance(v, str)]


# -------------------------------------------- scikit-learn's validation machinery


@pytest.mark.parametrize("cls", [AspectAttentionClassifier, AspectCategoryClassifier])
def test_constraints_are_sklearns_own(cls):
    from sklearn.utils._param_validation import InvalidParameterError, make_constraint

    for allowed in cls._parameter_constraints.values():
        for constraint in allowed:
            make_constraint(constraint)  # raises on a form sklearn does not know
    with pytest.raises(InvalidParameterError):
        cls(lr=float("inf")).fit(["a b"], [["positive"]])


def test_the_detector_is_a_classifier():
    from sklearn.base import is_classifier

    assert is_classifier(AspectCategoryClassifier())
    assert is_classifier(AspectAttentionClassifier())


def test_the_copies_of_categories_are_the_encoders_recipes(monkeypatch):
    from dataclasses import replace

    values = AspectAttentionClassifier()._table_params()
    labels = ["negative", "neutral", "positive"]
    entry = P.ENCODERS["lstm"]
    # the pair classifier reads category_copies, the detector detector_copies
    assert P.resolve_auto(values, "category", labels)["augment"] == "flip+join"
    got = P.resolve_auto(values, "category", labels, detector=True)
    assert got["augment"] == "flip+join+negate"
    recipe = replace(entry.recipe, category_copies="flip", detector_copies="negate")
    monkeypatch.setitem(P.ENCODERS, "lstm", replace(entry, recipe=recipe))
    assert P.resolve_auto(values, "category", labels)["augment"] == "flip"
    got = P.resolve_auto(values, "category", labels, detector=True)
    assert got["augment"] == "negate"
    # ... in English: elsewhere a recipe without joins makes no copies
    values["language"] = "fr"
    assert P.resolve_auto(values, "category", labels)["augment"] is None
    assert P.resolve_auto(values, "category", ["bad", "good"])["augment"] is None
