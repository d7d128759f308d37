"""The estimators' parameter table (aspectattn.params) and what is made from it:
both estimators' signatures, constraints and docstrings, the CLI's help, the
guide's parameter tables, the unused-parameter warnings, the configs and the
resolution of "auto" (the components' parameters are their own:
tests/test_encoders.py)."""

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
from aspectattn.training import EarlyStopping, Optimizer

#: Where the parameter table is written for people (the user guide's training page).
README = Path(__file__).resolve().parents[1] / "docs" / "guide" / "training.md"
ESTIMATORS = [
    (AspectAttentionClassifier, pair_module.SIGNATURE, P.CATEGORY_GROUPS),
    (AspectCategoryClassifier, category_module.SIGNATURE, P.PAIR_GROUPS),
]
#: English text: what the "auto" language of these tests resolves from.
ENGLISH = ["the soup was cold but the waiter was lovely"]


def _table_default(name):
    """A parameter's default as the table states it."""
    return P.TABLE[name].default


def _values(cls=AspectAttentionClassifier, **params) -> dict:
    """The settings ``fit`` resolves: those of ``cls(**params)``, each slot
    holding its component."""
    return cls(**params)._values()


def _resolved(values, aspect_type, labels=None, texts=ENGLISH, **kwargs) -> dict:
    """What ``resolve_auto`` makes of ``values``, as ``resolved_params_`` names
    it (the components' as ``slot__name``)."""
    resolved = P.resolve_auto(values, aspect_type, labels, texts, **kwargs)
    return P.resolved_record({**values, **resolved}, set(values))


def _table_type(name):
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
    groups = {P.TABLE[n].group for n in names}
    assert not groups & set(excluded)  # a parameter that does not apply is absent
    assert cls().get_params(deep=False) == {n: _table_default(n) for n in names}
    # the components' parameters are theirs: none is the estimator's
    for component in (LSTMEncoder, PretrainedEncoder, AspectAttention, Optimizer):
        assert not set(names) & set(component._get_param_names()) - {"dropout"}


def test_no_parameter_is_left_out_and_the_two_share_the_rest():
    pair, det = set(pair_module.SIGNATURE), set(category_module.SIGNATURE)
    assert pair | det == set(P.TABLE)
    shared = {p.name for p in P.PARAMS if p.group not in (*P.PAIR_GROUPS, "categories")}
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
        (AspectAttentionClassifier, dict(encoder=PretrainedEncoder()), "checkpoint"),
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
    values = _values(
        encoder=TransformerEncoder(embeddings="word2vec", extra_vocabulary=10),
        variant="ae",
        attention=AspectAttention(heads=2, term_query="both"),
        aspect_type="category",
        term_marker=True,
    )
    pairs_ = P.unused(values, "category")
    assert ("encoder__extra_vocabulary", "embeddings='word2vec'") in pairs_
    assert ("attention__heads", "variant='ae'") in pairs_
    assert ("attention__term_query", "aspect_type='category'") in pairs_
    assert ("term_marker", "aspect_type='category'") in pairs_
    with pytest.warns(UserWarning, match="'attention__heads' is not used when variant"):
        P.warn_unused(values, pairs_)
    # a checkpoint reads no words: the language's word rules are unused
    values = _values(encoder=PretrainedEncoder("ckpt"), language="fr")
    assert ("language", "encoder='pretrained'") in P.unused(values)


def test_configs_take_their_fields_from_the_table():
    from dataclasses import fields

    added = ("encoder", "distill_weight", "distill_temperature")
    for cls, goes, extra in (
        (P.ModelConfig, "model", ()),
        (P.TrainingConfig, "training", (*added, "keep_sentences", "run_params")),
    ):
        names = [f.name for f in fields(cls)]
        # every parameter that goes there is a field, and nothing else is
        assert [n for n in names if n not in extra] == [
            p.name for p in P.PARAMS if p.goes == goes
        ]
    assert {p.goes for p in P.PARAMS} == {"model", "training", "estimator"}
    # the components go down whole: building and training read their attributes
    values = _values(encoder=LSTMEncoder(hidden_size=7), attention="dot")
    config = P.ModelConfig.from_params(values)
    assert config.encoder.hidden_size == 7 and config.attention.score == "dot"
    training = P.TrainingConfig.from_params(values)
    assert training.encoder is config.encoder and training.optimizer.name == "adam"
    assert training.early_stopping is None  # early_stopping=False: none
    # a leftover value (no parameter of the table) is an error, never dropped
    with pytest.raises(ValueError, match="not parameters: \\['not_a_field'\\]"):
        P.ModelConfig.from_params({**values, "not_a_field": 1})
    with pytest.raises(ValueError, match="not_a_field"):
        P.TrainingConfig.from_params({**values, "not_a_field": 1})


def test_the_module_schema_is_the_tables_and_the_components_constraints():
    from aspectattn.nn import schema
    from aspectattn.nn.encoders import get_encoder

    # a bound is stated once: the table's or the component's, for the estimator
    # and for files alike
    dropout = P.TABLE["dropout"].constraints
    assert schema.MODEL_SCHEMA["dropout"] == P.value_constraints(dropout)
    heads = AspectAttention._parameter_constraints["heads"]
    assert schema.MODEL_SCHEMA["attention_heads"] == P.value_constraints(heads)
    lstm = get_encoder("lstm").config_schema
    size = LSTMEncoder._parameter_constraints["hidden_size"]
    assert lstm["hidden_size"] == P.value_constraints(size)
    for name in P.ENCODERS:
        assert isinstance(get_encoder(name).config_schema, dict), name


def test_an_unknown_encoder_is_an_error_never_a_fallback():
    from types import SimpleNamespace

    from aspectattn.engine.building import prepare_model

    gru = type("GRUEncoder", (LSTMEncoder,), {"kind": "gru"})()
    config = P.ModelConfig(encoder=gru)
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


def test_cli_help_comes_from_the_table_and_the_component_flags(capsys):
    from aspectattn.cli import build_parser
    from aspectattn.cli._common import COMPONENT_FLAGS

    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for name in ("dropout", "variant", "batch_by"):
        assert " ".join(P.cli_help(name).split()) in out, name
    for flag in ("hidden_size", "attention_score", "position_weighting"):
        assert " ".join(COMPONENT_FLAGS[flag][2].split()) in out, flag


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
    for name in set(category_module.SIGNATURE) - set(pair_module.SIGNATURE):
        assert f"`{name}`" in text, name


# ---------------------------------------------------------------- "auto" values
def test_auto_values_resolve_by_aspect_type_and_labels():
    values = _values()
    labels = ["negative", "neutral", "positive"]
    recipe = P.SCRATCH_TRAINING
    assert _resolved(values, "term", labels) == {
        "language": "en",
        "aspect_type": "term",
        "batch_by": "sentence",
        "augment": "flip+join+negate",  # the rule's choice for the LSTM's terms
        "copy_weight": 1.0,  # the rule kept the terms' copies at 1
        **{k: recipe[k] for k in ("lr", "batch_size", "dropout")},
        "max_epochs": 30,  # the rule's, the LSTM's terms
        "precision": "float32",  # no device: float32
        "encoder__hidden_size": P.LSTM_SIZE,
        "encoder__bidirectional": True,
        "encoder__freeze_embeddings": recipe["freeze_embeddings"],
        "encoder__unseen_words": "spelling",
        "encoder__word_dropout": 0.0,
        "attention__final_state": "term",
        "attention__position_weighting": "learned",  # the rule's, LSTM terms
        "optimizer__head_lr": None,
        "optimizer__lr_schedule": recipe["lr_schedule"],
    }
    # fastText's own n-gram vectors read unseen words when they are trained
    fasttext = _values(encoder=LSTMEncoder(embeddings="fasttext"))
    assert _resolved(fasttext, "term")["encoder__unseen_words"] == "vectors"
    unseen = _values(encoder=LSTMEncoder(unseen_words=None))
    assert _resolved(unseen, "term")["encoder__unseen_words"] is None
    categories = _resolved(values, "category", labels)
    assert categories["attention__final_state"] is False
    assert categories["augment"] == "flip+join"  # the rule's, English categories
    assert categories["encoder__bidirectional"] is False
    assert categories["max_epochs"] == recipe["max_epochs"] == 20  # terms' 30
    # the rule's 30 for the LSTM detector too; the pretrained one keeps its 4
    assert _resolved(values, "category", labels, detector=True)["max_epochs"] == 30
    pretrained_detector = _values(encoder="pretrained")
    got = _resolved(pretrained_detector, "category", labels, detector=True)
    assert got["max_epochs"] == P.PRETRAINED_TRAINING["max_epochs"] == 4
    transformer = _resolved(_values(encoder="transformer"), "term", labels)
    assert transformer["max_epochs"] == recipe["max_epochs"]  # not measured
    # joined copies need both polarities: other label sets train without copies
    assert _resolved(values, "category", ["bad", "good"])["augment"] is None
    pretrained = _values(encoder="pretrained")
    assert _resolved(pretrained, "term", ["bad", "good"])["augment"] is None
    # the terms' copies per encoder (the transformer's were not measured), and
    # their position prior (the LSTM's chosen by the rule, the others' not
    # measured with it); categories have none; the pretrained encoder's terms as
    # a second segment too, which then batches pairs (each its own encoder pass)
    for encoder, copies, prior, given, category_copies in [
        ("pretrained", "flip+join+negate", "linear", "pair", "join"),
        ("lstm", "flip+join+negate", "learned", None, "flip+join"),
        ("transformer", None, "linear", None, "join"),
    ]:
        got = _resolved(_values(encoder=encoder), "term", labels)
        assert (got["augment"], got["attention__position_weighting"]) == (
            copies,
            prior,
        )
        assert got.get("encoder__input") == given
        assert got["batch_by"] == ("pair" if given == "pair" else "sentence")
        got = _resolved(_values(encoder=encoder), "category", labels)
        assert got["augment"] == category_copies
        assert got["attention__position_weighting"] == "none"
        assert got.get("encoder__input") == (given and "vector")
        assert got["batch_by"] == "sentence"
        # each encoder resolves its own parameters: the LSTM's size is no
        # setting of a checkpoint's model, nor the checkpoint's input of the LSTM's
        lstm_only = {"encoder__hidden_size", "encoder__bidirectional"}
        assert lstm_only & set(got) == (lstm_only if encoder == "lstm" else set())
    for language in ("es", "tr"):  # none outside English, whose words they reverse
        got = _resolved(_values(encoder="pretrained", language=language), "term")
        assert got["augment"] is None
        # categories in another language: the joins alone (no English flips)
        for detector in (False, True):
            got = _resolved(
                _values(language=language), "category", labels, detector=detector
            )
            assert got["augment"] == "join"
    # what the user set stays as set; an encoder that sees the aspect batches pairs
    mine = _values(
        variant="atae", attention=AspectAttention(final_state=True), augment=None
    )
    mine = _resolved(mine, "category", labels)
    assert mine["batch_by"] == "pair" and mine["attention__final_state"] is True
    assert mine["augment"] is None
    # what a pretrained encoder feeds trains at its own rate ...
    got = _resolved(pretrained, "term", labels)
    assert got["optimizer__head_lr"] == P.PRETRAINED_HEAD_LR
    none = _values(encoder="pretrained", optimizer=Optimizer(head_lr=None))
    assert _resolved(none, "term")["optimizer__head_lr"] is None
    # ... and fine-tunes with its own recipe; what the user set stays
    recipe = P.PRETRAINED_TRAINING
    assert {k: got[k] for k in ("lr", "batch_size", "max_epochs", "dropout")} == {
        k: recipe[k] for k in ("lr", "batch_size", "max_epochs", "dropout")
    }
    assert got["encoder__freeze_embeddings"] == recipe["freeze_embeddings"]
    assert got["optimizer__lr_schedule"] == recipe["lr_schedule"]
    assert recipe["lr"] < P.SCRATCH_TRAINING["lr"]
    stopping = _values(
        encoder="pretrained", early_stopping=True, validation_fraction=0.1
    )
    assert (
        _resolved(stopping, "term")["early_stopping__patience"] == (recipe["patience"])
    )
    mine = _resolved(_values(encoder="pretrained", lr=2e-5), "term")
    assert mine["lr"] == 2e-5 and mine["max_epochs"] == 4


def test_the_detectors_mention_weight_is_the_encoders():
    values = _values(AspectCategoryClassifier)
    assert values["mention_weight"] == "auto"
    labels = ["negative", "neutral", "none", "positive"]
    # chosen on validation for the LSTM; the others' not measured
    for encoder, weight in [("lstm", 2.0), ("transformer", 1.0), ("pretrained", 1.0)]:
        got = _resolved(_values(AspectCategoryClassifier, encoder=encoder), "category")
        assert got["mention_weight"] == weight
    mine = _values(AspectCategoryClassifier, mention_weight=0.5)
    assert _resolved(mine, "category", labels)["mention_weight"] == 0.5
    # the pair classifier has no such parameter, and resolves none
    assert "mention_weight" not in P.resolve_auto(_values(), "category", labels)


def test_the_copies_weight_is_the_detectors_in_english_and_1_elsewhere():
    labels = ["negative", "neutral", "none", "positive"]
    detector = _values(AspectCategoryClassifier)
    assert detector["copy_weight"] == _values()["copy_weight"] == "auto"
    # chosen on validation for the LSTM detector's English copies; the others'
    # not measured (the LSTM's term copies: 1 by the same rule)
    for encoder, weight in [("lstm", 2.0), ("transformer", 1.0), ("pretrained", 1.0)]:
        values = _values(AspectCategoryClassifier, encoder=encoder)
        got = _resolved(values, "category", labels, detector=True)
        assert got["copy_weight"] == weight
    spanish = ["la sopa estaba fría"]
    other = _resolved(detector, "category", labels, spanish, detector=True)
    assert other["language"] is None and other["copy_weight"] == 1.0
    for aspect_type in ("category", "term"):
        assert _resolved(_values(), aspect_type, labels)["copy_weight"] == 1.0
    mine = _values(AspectCategoryClassifier, copy_weight=0.5)
    assert _resolved(mine, "category", labels)["copy_weight"] == 0.5


def test_precision_auto_is_bfloat16_only_where_native(monkeypatch):
    import torch

    values = _values(encoder="pretrained")
    for native in (True, False):
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda n=native: n)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
        got = P.resolve_auto(values, "term", device="cpu")["precision"]
        assert got == ("bfloat16" if native else "float32")
    # the encoders trained from scratch stay float32 whatever the device
    lstm = P.resolve_auto(_values(), "term", device="cpu")
    assert lstm["precision"] == "float32"
    assert P.resolve_auto(values, "term", device="mps")["precision"] == "float32"


def test_every_auto_default_is_resolved():
    """No parameter -- the estimators', or a component's -- defaults to "auto"
    without a rule in resolve_auto."""
    autos = {p.name for p in P.PARAMS if p.default == "auto" and p.name != "device"}
    assert autos == set(P.AUTO_PARAMS)
    components = (LSTMEncoder, TransformerEncoder, PretrainedEncoder)
    assert {n for c in components for n in c.auto_names()} == {
        "hidden_size",
        "bidirectional",
        "freeze_embeddings",
        "unseen_words",
        "word_dropout",
        "input",
    }
    for encoder in ("lstm", "transformer", "pretrained"):
        for aspect_type in ("category", "term"):
            values = _values(
                encoder=encoder, early_stopping=True, validation_fraction=0.1
            )
            resolved = P.resolve_auto(values, aspect_type, texts=ENGLISH)
            settings = [v for k, v in resolved.items() if k not in P.SLOTS]
            for slot in P.SLOTS:
                settings += list(resolved[slot].get_params().values())
            assert "auto" not in [v for v in settings if isinstance(v, str)]


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

    values = _values()
    labels = ["negative", "neutral", "positive"]
    entry = P.ENCODERS["lstm"]
    # the pair classifier reads category_copies, the detector detector_copies
    assert _resolved(values, "category", labels)["augment"] == "flip+join"
    got = _resolved(values, "category", labels, detector=True)
    assert got["augment"] == "flip+join+negate"
    recipe = replace(entry.recipe, category_copies="flip", detector_copies="negate")
    monkeypatch.setitem(P.ENCODERS, "lstm", replace(entry, recipe=recipe))
    assert _resolved(values, "category", labels)["augment"] == "flip"
    got = _resolved(values, "category", labels, detector=True)
    assert got["augment"] == "negate"
    # ... in English: elsewhere a recipe without joins makes no copies
    french = _values(language="fr")
    assert _resolved(french, "category", labels)["augment"] is None
    assert _resolved(values, "category", ["bad", "good"])["augment"] is None
