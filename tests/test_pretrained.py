"""encoder="pretrained": a local Hugging Face checkpoint (MiniLM) fine-tuned under the
aspect attention."""

import json
import pickle
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from conftest import SHARED_DATA, make_pairs, spy_on_batches

from aspectattn import AspectAttentionClassifier, MissingDependencyError
from aspectattn.encoders import PretrainedEncoder

CHECKPOINT = SHARED_DATA / "all-MiniLM-L6-v2"
pytestmark = pytest.mark.skipif(not CHECKPOINT.is_dir(), reason="no MiniLM checkpoint")
PARAMS = dict(
    variant="at",
    lr=5e-5,
    dropout=0.1,
    max_epochs=1,
    batch_size=16,
    random_state=0,
)


@pytest.fixture(scope="module")
def data():
    return make_pairs(30, seed=0, single_share=0.4)


@pytest.fixture(scope="module", params=["vector", "pair"])
def fitted(request, data, tmp_path_factory):
    pytest.importorskip("transformers")
    # A private copy of the checkpoint, deleted after fit: predicting must not need it.
    copy = tmp_path_factory.mktemp("ckpt") / "minilm"
    shutil.copytree(CHECKPOINT, copy)
    clf = AspectAttentionClassifier(
        **PARAMS, encoder=PretrainedEncoder(str(copy), input=request.param)
    ).fit(*data)
    shutil.rmtree(copy)
    return clf


def test_explain_uses_the_checkpoints_subword_tokens(fitted):
    (res,) = fitted.explain([("The sushi was wonderful.", "food")])
    assert res["tokens"][:4] == ["[CLS]", "the", "su", "##shi"]
    if fitted.encoder.input == "pair":
        assert res["tokens"][-3:] == ["[SEP]", "food", "[SEP]"]
    assert np.isclose(res["weights"].sum(), 1.0)


def test_self_attention_maps_mask_padding(fitted):
    X = [
        ("the soup was bland.", "food"),
        ("the pasta was great but the waiter was rude.", "service"),
    ]
    maps = fitted.self_attention(X)
    assert maps[0].shape[:2] == (6, 12)  # MiniLM: 6 layers, 12 heads
    dataset = fitted.encode(X)
    tokens, lengths = dataset.sentences.pad(dataset.sentence)
    batch = {
        "tokens": torch.from_numpy(tokens),
        "lengths": torch.from_numpy(lengths),
        "aspect": torch.tensor([0, 1]),
    }
    with torch.inference_mode():
        raw = fitted.module_.self_attention_maps(**batch)
    short = lengths[0]
    for layer in raw:
        assert torch.all(layer[0, :, :, short:] == 0)


def test_many_aspects_and_predictions(fitted, data):
    texts = [t for t, _ in data[0][:6]]
    proba = fitted.predict_proba_aspects(texts)
    assert proba.shape == (6, 2, 2)
    pairwise = fitted.predict_proba(
        [(t, a) for t in texts for a in ("food", "service")]
    )
    np.testing.assert_allclose(proba.reshape(-1, 2), pairwise, atol=1e-5)


def test_inference_batches_keep_to_the_encoders_token_budget(fitted, data, monkeypatch):
    from aspectattn.engine import inference
    from aspectattn.nn.encoders.pretrained import PretrainedEncoder as Module

    X = data[0]
    assert inference.batch_tokens(fitted.module_) == Module.batch_tokens == 2048
    expected = fitted.predict_proba(X)
    seen = spy_on_batches(monkeypatch, inference)
    monkeypatch.setattr(Module, "batch_tokens", 64)
    np.testing.assert_allclose(fitted.predict_proba(X), expected, atol=1e-5)
    assert len(seen) > 1 and all(budget == 64 for *_, budget in seen)
    assert all(rows * longest <= 64 or rows == 1 for rows, longest, _ in seen)
    # one pass per sentence for all its aspects: batched alike
    seen.clear()
    fitted.predict_proba_aspects([t for t, _ in X[:12]])
    assert seen and all(budget == 64 for *_, budget in seen)


_RELOAD = textwrap.dedent("""
    import sys, pickle, numpy as np
    model = pickle.load(open(sys.argv[1], "rb"))
    X = pickle.load(open(sys.argv[2], "rb"))
    np.save(sys.argv[3], model.predict_proba(X))
""")


# (one input: the pair's reads the most of the kept tokenizer, and a fresh process
# costs seconds of imports)
@pytest.mark.parametrize("fitted", ["pair"], indirect=True)
def test_pickle_in_a_fresh_process_without_the_checkpoint(fitted, data, tmp_path):
    X = data[0][:10]
    (tmp_path / "m.pkl").write_bytes(pickle.dumps(fitted))
    (tmp_path / "x.pkl").write_bytes(pickle.dumps(X))
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            _RELOAD,
            str(tmp_path / "m.pkl"),
            str(tmp_path / "x.pkl"),
            str(tmp_path / "p.npy"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        # the same thread count: another one sums in another order
        env={
            "HF_HUB_OFFLINE": "1",
            "PATH": "",
            "OMP_NUM_THREADS": str(torch.get_num_threads()),
        },
    )
    assert run.returncode == 0, run.stderr[-2000:]
    np.testing.assert_array_equal(np.load(tmp_path / "p.npy"), fitted.predict_proba(X))


def test_safe_format_round_trip(fitted, data, tmp_path):
    from aspectattn.persistence import load

    fitted.save(tmp_path / "m.aam")
    loaded = load(tmp_path / "m.aam")
    # what the pretrained encoder feeds trained at its own rate; recorded and kept
    assert fitted.resolved_params_["optimizer__head_lr"] == 1e-3
    assert loaded.resolved_params_ == fitted.resolved_params_
    X = data[0][:10]
    np.testing.assert_array_equal(loaded.predict_proba(X), fitted.predict_proba(X))
    assert loaded.explain(X[:1])[0]["tokens"] == fitted.explain(X[:1])[0]["tokens"]


@pytest.mark.parametrize(
    "params, message",
    [
        ({"encoder": PretrainedEncoder()}, "needs its checkpoint"),
        ({"encoder": "pretrained"}, "needs its checkpoint"),
        ({"variant": "atae"}, "supports variant='at' only"),
        ({"encoder": PretrainedEncoder("/nowhere")}, "not a directory"),
    ],
)
def test_bad_configuration(params, message, data):
    pytest.importorskip("transformers")
    clf = AspectAttentionClassifier(
        **{**PARAMS, "encoder": PretrainedEncoder(str(CHECKPOINT)), **params}
    )
    with pytest.raises((ValueError, FileNotFoundError), match=message):
        clf.fit(*data)


def test_missing_transformers_gives_an_install_hint(monkeypatch, data):
    monkeypatch.setitem(sys.modules, "transformers", None)
    clf = AspectAttentionClassifier(
        **PARAMS, encoder=PretrainedEncoder(str(CHECKPOINT))
    )
    with pytest.raises(MissingDependencyError, match=r"aspectattn\[pretrained\]"):
        clf.fit(*data)


@pytest.mark.parametrize(
    ("family", "positions"),
    [("bert", 128), ("roberta", 128), ("xlmr", 128), ("deberta", None)],
)
def test_max_len_over_the_checkpoints_positions_is_refused(family, positions, tmp_path):
    """`max_len=2000` fitted, then a long text failed at predict (positions past
    the table's end; the web app answered 500): refused in fit and on load.
    RoBERTa's family skips the ids up to its padding id; DeBERTa's relative
    attention has no limit."""
    from conftest import make_tiny_checkpoint

    pytest.importorskip("transformers")
    from aspectattn.nn.encoders.pretrained import checkpoint_positions
    from aspectattn.persistence import ModelFileError, _digest, from_payload, to_payload

    path = make_tiny_checkpoint(tmp_path / family, family)
    config = json.loads((path / "config.json").read_text())
    assert checkpoint_positions(config) == positions
    if positions is None:
        return
    X, y = make_pairs(8, seed=0)
    fast = dict(max_epochs=1, batch_size=8, random_state=0)
    with pytest.raises(ValueError, match=f"max_len={positions + 1} .* {positions}"):
        AspectAttentionClassifier(
            encoder=PretrainedEncoder(str(path), max_len=positions + 1), **fast
        ).fit(X, y)
    clf = AspectAttentionClassifier(
        encoder=PretrainedEncoder(str(path), max_len=positions), **fast
    ).fit(X, y)
    long_text = " ".join(["the soup was bland"] * 200)
    assert clf.predict([(long_text, "food")]).shape == (1,)
    payload = to_payload(clf)
    meta = json.loads(payload["metadata"])
    meta["fitted"]["text_pipeline_"]["max_len"] = positions + 1
    payload["metadata"] = json.dumps(meta)
    payload["sha256"] = _digest(payload["metadata"], payload["tensors"])
    with pytest.raises(ModelFileError, match="max_len"):
        from_payload(payload)
