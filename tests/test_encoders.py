import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from aspectattn.nn.encoders import ENCODERS, get_encoder
from aspectattn.nn.encoders.lstm import LSTMEncoder
from aspectattn.nn.encoders.transformer import TransformerEncoder


def _lstm(input_size, hidden, bidirectional=False):
    # An encoder whose "embedding" is the identity on float inputs is not possible;
    # test the LSTM core through one-hot-free float inputs via the embedding table.
    return LSTMEncoder(
        vocab_size=50,
        embedding_dim=input_size,
        hidden_size=hidden,
        bidirectional=bidirectional,
    )


def test_bidirectional_encoder_matches_packed_reference():
    torch.manual_seed(1)
    encoder = _lstm(5, 7, bidirectional=True)
    reference = nn.LSTM(5, 7, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for name in ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]:
            getattr(reference, name).copy_(getattr(encoder.forward_lstm, name))
            getattr(reference, name + "_reverse").copy_(
                getattr(encoder.backward_lstm, name)
            )
    lengths = torch.tensor([6, 2, 4])
    tokens = torch.randint(1, 50, (3, 6))
    states, last = encoder(tokens, lengths)
    x = encoder.embedding(tokens)
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    ref_out, (h_n, _) = reference(packed)
    ref_states, _ = pad_packed_sequence(ref_out, batch_first=True)
    real = torch.arange(6)[None, :] < lengths[:, None]
    assert torch.allclose(states[real], ref_states[real], atol=1e-6)
    assert torch.allclose(last, torch.cat([h_n[0], h_n[1]], -1), atol=1e-6)


def test_lstm_states_are_contiguous():
    # Later matmuls over the states must fold into one GEMM (speed), which needs a
    # contiguous (B, T, D) tensor; nn.LSTM itself returns a transposed view.
    encoder = _lstm(4, 6)
    states, _ = encoder(torch.randint(1, 50, (3, 5)), torch.tensor([5, 2, 1]))
    assert states.is_contiguous()


def _transformer(**kw):
    torch.manual_seed(0)
    params = dict(vocab_size=40, embedding_dim=6, d_model=8, n_layers=1, n_heads=2)
    return TransformerEncoder(**{**params, **kw}).eval()


def test_concatenated_positions_are_half_the_input():
    encoder = _transformer(position_merge="concat", dropout=0.0)
    tokens, lengths = torch.randint(1, 40, (2, 5)), torch.tensor([5, 3])
    states, summary = encoder(tokens, lengths)
    assert states.shape == (2, 5, 8) and summary.shape == (2, 8)
    # the same word at two positions gets two different inputs: positions matter
    same = torch.full((1, 4), 7)
    out, _ = encoder(same, torch.tensor([4]))
    assert not torch.allclose(out[0, 0], out[0, 1])


def test_learned_positions_refuse_sentences_longer_than_their_table():
    encoder = _transformer(positional="learned", max_len=4)
    encoder(torch.randint(1, 40, (1, 4)), torch.tensor([4]))
    with pytest.raises(ValueError, match="longer than the 4 learned positions"):
        encoder(torch.randint(1, 40, (1, 5)), torch.tensor([5]))


def test_registry_names_every_encoder():
    assert set(ENCODERS) == {"lstm", "transformer", "pretrained"}
    assert get_encoder("lstm") is LSTMEncoder
    with pytest.raises(ValueError, match="encoder must be one of"):
        get_encoder("rnn")


def test_lstm_under_cpu_bfloat16_autocast_runs_where_onednn_has_no_bf16_lstm(
    monkeypatch,
):
    """oneDNN cannot build a bfloat16 LSTM on a CPU without AVX-512: there the
    LSTM runs in float32 inside the autocast region (it crashed before)."""
    from aspectattn.nn.encoders import lstm as module

    layer = torch.nn.LSTM(4, 3, batch_first=True)
    x = torch.randn(2, 5, 4)
    expected = layer(x)[0]
    monkeypatch.setattr(module, "_cpu_lstm_in_bfloat16", lambda: False)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = module._run(layer, x.bfloat16())
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, expected, atol=0.02, rtol=0.02)
    assert module._run(layer, x).dtype == torch.float32  # no autocast: as it was


# ------------------ the components (aspectattn.encoders, .attention, .training)


@pytest.mark.parametrize("cls", [LSTMEncoder, TransformerEncoder])
def test_word_dropout_reads_each_word_as_unknown_at_its_rate_in_training(cls):
    # Kiperwasser and Goldberg's word dropout: word i is the unknown token with
    # probability rates[i] while training; never at prediction, never saved
    from aspectattn.text.tokens import OOV_ID

    sizes = {"hidden_size": 4} if cls is LSTMEncoder else {"d_model": 4, "n_heads": 1}
    encoder = cls(vocab_size=6, embedding_dim=4, **sizes)
    rates = torch.tensor([0.0, 0.0, 0.0, 0.2, 0.5, 1.0])
    encoder.set_word_dropout(rates)
    read = []
    embed = encoder.embedding.forward
    encoder.embedding.forward = lambda t: read.append(t) or embed(t)
    tokens = torch.tensor([[2, 3, 4, 5, 0]]).repeat(500, 1)  # (500, 5), padded
    lengths = torch.full((500,), 4)
    torch.manual_seed(0)
    encoder.train()
    encoder(tokens, lengths)
    (seen,) = read
    unknown = (seen == OOV_ID).float().mean(0)  # (5,)
    # binomial, n=500: the rates, and never the padding
    torch.testing.assert_close(
        unknown, torch.tensor([0.0, 0.2, 0.5, 1.0, 0.0]), atol=0.07, rtol=0
    )
    assert (seen[:, 4] == 0).all()
    read.clear()
    encoder.eval()
    encoder(tokens, lengths)
    assert torch.equal(read[0], tokens)  # prediction reads every word
    assert "word_dropout_rates" not in encoder.state_dict()
    with pytest.raises(ValueError, match="a rate per word"):
        encoder.set_word_dropout(torch.zeros(5))


def test_word_dropout_rates_fall_with_each_words_count_in_the_distinct_texts():
    from aspectattn.engine.building import word_dropout_rates
    from aspectattn.text.pipelines import WordPipeline

    texts = ["good food", "good food", "good service", "bad food here"]
    pipeline = WordPipeline(True, 1, 100, "en").fit(texts)
    assert word_dropout_rates(pipeline, texts, 0.0) is None
    rates = word_dropout_rates(pipeline, texts, 0.25)
    index = pipeline.vocabulary.index_
    # counted once per distinct sentence: "good" twice, "food" twice, "here" once
    expected = {"good": 0.25 / 2.25, "food": 0.25 / 2.25, "here": 0.25 / 1.25}
    for word, rate in expected.items():
        assert rates[index[word]].item() == pytest.approx(rate)
    assert rates[:2].tolist() == [0.0, 0.0]  # padding, the unknown token
    assert rates.shape == (len(pipeline.vocabulary),)
    # a word under min_count is not counted as its spelling's neighbour
    rare = WordPipeline(True, 2, 100, "en").fit([*texts, "goods"])
    rare.unseen = NearestGood(rare.vocabulary.index_["good"])
    counted = word_dropout_rates(rare, [*texts, "goods"], 0.25)
    assert counted[rare.vocabulary.index_["good"]].item() == pytest.approx(0.25 / 2.25)


class NearestGood:
    """An unseen-word reader that reads every word as ``good``."""

    def __init__(self, good: int):
        self.good = good

    def nearest(self, words, vocabulary):
        import numpy as np

        return np.full(len(words), self.good)


from conftest import settings as _settings  # noqa: E402

from aspectattn.params._constraints import satisfies  # noqa: E402


def _components():
    from aspectattn import attention, encoders, training

    return [
        encoders.LSTMEncoder,
        encoders.TransformerEncoder,
        encoders.PretrainedEncoder,
        attention.AspectAttention,
        training.Optimizer,
        training.EarlyStopping,
    ]


@pytest.mark.parametrize("cls", _components(), ids=lambda c: c.__name__)
def test_each_component_states_its_parameters_once(cls):
    """A component declares its parameters itself: its signature, its
    constraints (each default among them), its docstring (each with its
    default); no table of the estimators holds them."""
    import inspect
    import re

    from sklearn.utils._param_validation import make_constraint

    from aspectattn import params as P

    signature = inspect.signature(cls).parameters
    assert set(cls._parameter_constraints) == set(signature)
    assert set(cls._needs) <= set(signature)
    for name, parameter in signature.items():
        constraints = cls._parameter_constraints[name]
        for constraint in constraints:
            make_constraint(constraint)  # scikit-learn's own forms
        if name != "path":  # (the checkpoint has no default)
            assert satisfies(parameter.default, constraints), name
        documented = re.search(rf"^    {name} : .*default=(.*)$", cls.__doc__, re.M)
        if parameter.default is inspect.Parameter.empty or name == "path":
            assert re.search(rf"^    {name} : ", cls.__doc__, re.M), name
        else:
            assert documented, name
            default = documented.group(1).strip('"')
            assert default == str(parameter.default), name
        # the estimators' table has its own parameters, never a component's
        # (the transformer's dropout, inside it, is not the classifier's)
        assert name not in P.TABLE or name == "dropout", name


def test_encoders_are_sklearn_components_of_the_estimators():
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    from aspectattn import AspectAttentionClassifier
    from aspectattn.encoders import LSTMEncoder, TransformerEncoder

    clf = AspectAttentionClassifier(encoder=LSTMEncoder(hidden_size=50))
    params = clf.get_params()
    assert params["encoder__hidden_size"] == 50
    assert "hidden_size" not in params  # the encoder's, not the estimator's
    copy = clone(clf)
    assert copy.encoder is not clf.encoder and copy.encoder.hidden_size == 50
    # a named encoder becomes its component when a grid reaches into it
    named = AspectAttentionClassifier(encoder="transformer")
    for grid in ParameterGrid({"encoder__n_layers": [1, 3]}):
        assert (
            clone(named).set_params(**grid).encoder.n_layers
            == grid["encoder__n_layers"]
        )
    assert named.encoder == "transformer"  # (the clone's changed, not it)
    both = clone(named).set_params(encoder="lstm", encoder__hidden_size=7)
    assert isinstance(both.encoder, LSTMEncoder) and both.encoder.hidden_size == 7
    assert repr(TransformerEncoder(d_model=64)) == "TransformerEncoder(d_model=64)"


def test_every_slot_is_reached_by_prefix_from_what_stands_for_its_component():
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    from aspectattn import AspectAttentionClassifier
    from aspectattn.attention import AspectAttention
    from aspectattn.training import EarlyStopping, Optimizer

    clf = AspectAttentionClassifier(attention="dot", optimizer="sgd")
    grid = {
        "attention__heads": [1, 2],
        "optimizer__weight_decay": [0.0, 0.01],
        "early_stopping": [True],
        "early_stopping__patience": [3],
    }
    for params in ParameterGrid(grid):
        got = clone(clf).set_params(**params)
        heads = params["attention__heads"]
        wanted = AspectAttention(score="dot", heads=heads).get_params()
        assert got.attention.get_params() == wanted
        assert (
            got.optimizer.get_params()
            == Optimizer(
                "sgd", weight_decay=params["optimizer__weight_decay"]
            ).get_params()
        )
        assert got.early_stopping.get_params() == EarlyStopping(patience=3).get_params()
        # what a fit reads: the components themselves
        values = got._values()
        assert (values["optimizer"].name, values["attention"].score) == ("sgd", "dot")
        assert values["early_stopping"].patience == 3
    assert (clf.attention, clf.optimizer) == ("dot", "sgd")  # clones changed, not it
    assert clf._values()["early_stopping"] is None  # early_stopping=False: none


def test_the_flat_names_are_unknown_keywords_and_the_components_hold_them():
    """Nothing was released: a flat name (hidden_size=) is Python's TypeError,
    never a setting that overrides the component beside it (it trained 7 in
    AspectAttentionClassifier(encoder=LSTMEncoder(hidden_size=5), hidden_size=7))."""
    from aspectattn import (
        AspectAttentionClassifier,
        AspectCategoryClassifier,
        AspectTermExtractor,
    )
    from aspectattn.encoders import LSTMEncoder

    for estimator in (
        AspectAttentionClassifier,
        AspectCategoryClassifier,
        AspectTermExtractor,
    ):
        with pytest.raises(TypeError, match="unexpected keyword argument 'hidden_siz"):
            estimator(encoder=LSTMEncoder(hidden_size=5), hidden_size=7)
        with pytest.raises(ValueError, match="Invalid parameter 'teacher'"):
            estimator().set_params(teacher=None)
        assert "teacher" not in estimator().get_params()
    clf = AspectAttentionClassifier().set_params(encoder__hidden_size=7)
    assert clf.encoder.hidden_size == 7  # the component, reached by its prefix


def test_model_files_keep_each_component_with_its_own_parameters(tmp_path):
    from conftest import FAST, make_pairs

    from aspectattn import AspectAttentionClassifier
    from aspectattn.encoders import LSTMEncoder
    from aspectattn.persistence import describe, load

    X, y = make_pairs(30, seed=0)
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(X, y)
    params = describe(clf)["params"]
    assert params["encoder"] == {
        "component": "LSTMEncoder",
        "params": {**LSTMEncoder().get_params(), **FAST["encoder"].get_params()},
    }
    assert params["encoder"]["params"]["hidden_size"] == 24
    assert params["attention"] == "additive"  # a name stays a name
    clf.save(tmp_path / "m.aam")
    loaded = load(tmp_path / "m.aam")
    assert _settings(loaded) == _settings(clf)
    assert repr(loaded.encoder) == repr(clf.encoder)
    assert (loaded.predict_proba(X) == clf.predict_proba(X)).all()


def test_the_detector_refuses_what_only_pairs_have():
    from aspectattn import AspectCategoryClassifier
    from aspectattn.encoders import PretrainedEncoder

    # it reads each sentence once for all its categories: no aspect segment
    with pytest.raises(
        ValueError,
        match=r"PretrainedEncoder\(input='pair'\) does not apply to "
        "AspectCategoryClassifier",
    ):
        AspectCategoryClassifier(encoder=PretrainedEncoder("x", input="pair")).fit(
            ["a"], [["positive"]]
        )
