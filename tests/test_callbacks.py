"""Fault tolerance: interrupted training keeps the best weights; checkpoints resume."""

import numpy as np
import pytest
import torch
from conftest import FAST, lstm, make_pairs

from aspectattn import AspectAttentionClassifier, AspectAttnWarning
from aspectattn.nn.model import AspectAttentionModel

PARAMS = {**FAST, "max_epochs": 8, "dropout": 0.2}


class _InterruptAfter:
    """Raise KeyboardInterrupt (as Ctrl-C would) at the n-th training batch."""

    def __init__(self, monkeypatch, n_batches):
        self.count, self.n = 0, n_batches
        original = AspectAttentionModel.forward

        def forward(module, *args, **kwargs):
            if module.training:
                self.count += 1
                if self.count == self.n:
                    raise KeyboardInterrupt
            return original(module, *args, **kwargs)

        monkeypatch.setattr(AspectAttentionModel, "forward", forward)


def test_interrupt_keeps_the_best_validation_epoch(monkeypatch):
    X, y = make_pairs(200, seed=5, single_share=0.4)
    from aspectattn.training import EarlyStopping

    params = {
        **PARAMS,
        "validation_fraction": 0.2,
        # the best epoch by accuracy; 8 epochs never stall 100 of them
        "early_stopping": EarlyStopping(scoring="accuracy", patience=100),
    }
    interrupt = _InterruptAfter(monkeypatch, n_batches=10**9)
    AspectAttentionClassifier(**{**params, "max_epochs": 1}).fit(X, y)
    per_epoch = interrupt.count  # training batches in one epoch
    interrupt.count, interrupt.n = 0, 5 * per_epoch + per_epoch // 2  # mid-epoch 6
    with pytest.warns(AspectAttnWarning, match="interrupted after 5 complete"):
        clf = AspectAttentionClassifier(**params).fit(X, y)
    assert clf.interrupted_ and len(clf.history_) == 5
    accs = [r["valid_acc"] for r in clf.history_]
    assert clf.best_epoch_ == 1 + int(np.argmax(accs))
    # The weights are those of that epoch: the same as a run that ends there.
    monkeypatch.undo()
    same = AspectAttentionClassifier(**{**params, "max_epochs": clf.best_epoch_})
    same.fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(X), same.predict_proba(X))


def test_interrupt_without_validation_keeps_last_complete_epoch(pairs, monkeypatch):
    interrupt = _InterruptAfter(monkeypatch, n_batches=10**9)
    AspectAttentionClassifier(**{**PARAMS, "max_epochs": 1}).fit(*pairs)
    per_epoch = interrupt.count
    interrupt.count, interrupt.n = 0, 3 * per_epoch + 2
    with pytest.warns(AspectAttnWarning):
        clf = AspectAttentionClassifier(**PARAMS).fit(*pairs)
    assert clf.interrupted_ and len(clf.history_) == 3
    losses = [r["train_loss"] for r in clf.history_]
    assert clf.best_epoch_ == 1 + int(np.argmin(losses))
    assert clf.predict(pairs[0][:4]).shape == (4,)


def test_completed_run_is_not_marked_interrupted(pairs):
    clf = AspectAttentionClassifier(**{**PARAMS, "max_epochs": 2}).fit(*pairs)
    assert not clf.interrupted_ and clf.best_epoch_ == 2


def test_checkpoint_resume_continues_exactly(pairs, tmp_path, monkeypatch):
    params = {**PARAMS, "validation_fraction": 0.2, "checkpoint_dir": str(tmp_path)}
    uninterrupted = AspectAttentionClassifier(**{**params, "checkpoint_dir": None})
    uninterrupted.fit(*pairs)

    interrupt = _InterruptAfter(monkeypatch, n_batches=10**9)
    AspectAttentionClassifier(
        **{**params, "max_epochs": 1, "checkpoint_dir": None}
    ).fit(*pairs)
    per_epoch = interrupt.count
    interrupt.count, interrupt.n = 0, 3 * per_epoch + 1
    with pytest.warns(AspectAttnWarning):
        first = AspectAttentionClassifier(**params).fit(*pairs)
    assert first.interrupted_ and len(first.history_) == 3
    assert len(list(tmp_path.iterdir())) == 1  # one checkpoint file for this run
    monkeypatch.undo()

    resumed = AspectAttentionClassifier(**params).fit(*pairs)
    assert not resumed.interrupted_
    assert len(resumed.history_) == PARAMS["max_epochs"]
    np.testing.assert_array_equal(
        resumed.predict_proba(pairs[0]), uninterrupted.predict_proba(pairs[0])
    )
    assert [r["train_loss"] for r in resumed.history_] == [
        r["train_loss"] for r in uninterrupted.history_
    ]
    # a finished run's checkpoint gives the finished model back at once
    again = AspectAttentionClassifier(**params).fit(*pairs)
    np.testing.assert_array_equal(
        again.predict_proba(pairs[0]), uninterrupted.predict_proba(pairs[0])
    )


def test_checkpoint_of_another_run_is_ignored(pairs, tmp_path):
    params = {**PARAMS, "max_epochs": 2, "checkpoint_dir": str(tmp_path)}
    AspectAttentionClassifier(**params).fit(*pairs)
    other = AspectAttentionClassifier(**{**params, "encoder": lstm(hidden_size=12)})
    other.fit(*pairs)
    assert (
        len(other.history_) == 2
        and other.module_.encoder.forward_lstm.hidden_size == 12
    )
    assert len(list(tmp_path.iterdir())) == 2
    payload = torch.load(next(tmp_path.iterdir()), weights_only=True)  # no pickles
    assert {"module", "optimizer", "history", "torch_rng"} <= set(payload)
