"""Training an extractor through skorch: the tagged sentences as a dataset, the
net whose loss reads every token, and the validation F1 that picks the epoch.

Shapes: ``B`` sentences, ``T`` tokens (the batch's longest), ``W`` characters
(the batch's longest word), ``K`` tags.
"""

from __future__ import annotations

import numpy as np
import torch
from skorch import NeuralNet
from skorch.callbacks import Callback
from skorch.utils import to_tensor
from torch import nn
from torch.utils.data import Dataset

from ..engine.batching import length_sorted_batches
from ..engine.training import MixedPrecision
from ..nn.ops import distillation_loss
from ..text.tokens import EncodedTexts
from .inputs import Encoded, padded_batch, token_rows
from .reading import PREDICT_BATCH, batch_terms
from .words import TAGS, best_tags, decode

__all__ = [
    "TagDataset",
    "TaggerNet",
    "ValidSpanF1",
    "JointDataset",
    "JointNet",
    "ValidJointF1",
    "batch_inputs",
    "transition_scores",
    "IGNORE",
]

#: The loss's tag for a token not tagged (padding, a special token).
IGNORE = -100
#: The weight of the validation loss in ``valid_score``: one term more or less
#: found moves the F1 of a few hundred validation terms by ~3e-3, which a loss
#: below 1 weighted so never outweighs.
LOSS_WEIGHT = 1e-4


class TagDataset(Dataset):
    """Sentences as token ids, their tokens' written forms and the forms'
    character ids (:class:`~aspectattn.extraction.inputs.Encoded`), and their
    tags (``-100``: a token not tagged), batched padded to the batch's longest
    sentence and form (``__getitems__``, which the DataLoader calls with a
    batch's indices)."""

    def __init__(self, encoded: Encoded, tags: EncodedTexts):
        self.encoded, self.tags = encoded, tags
        self.lengths = encoded.ids.lengths
        self.sentence = np.arange(len(self.lengths))  # (BucketLoader's groups)

    def __len__(self) -> int:
        return len(self.lengths)

    def __getitems__(self, index):
        ids, lengths = self.encoded.ids.pad(index)  # (B, T), (B,)
        tags, _ = self.tags.pad(index)  # (B, T)
        tags[np.arange(ids.shape[1])[None, :] >= lengths[:, None]] = IGNORE
        return batch_inputs(self.encoded, index), torch.from_numpy(tags)

    def subset(self, index) -> TagDataset:
        encoded = self.encoded
        rows = token_rows(encoded.ids, index)
        part = Encoded(encoded.ids.take(index), encoded.forms[rows], encoded.chars, [])
        return TagDataset(part, self.tags.take(index))


def batch_inputs(encoded: Encoded, index) -> dict:
    """The tagger's inputs for the texts at ``index``, as tensors
    (:func:`~aspectattn.extraction.inputs.padded_batch`): token ids (B, T),
    lengths (B,), the batch's distinct forms' character ids (U, W) and each
    token's form (B, T)."""
    ids, lengths, chars, char_index = padded_batch(encoded, index)
    return {
        "tokens": torch.from_numpy(ids),
        "lengths": torch.from_numpy(lengths),
        "characters": Characters(torch.from_numpy(chars), torch.from_numpy(char_index)),
    }


class Characters:
    """A batch's distinct forms' character ids (U, W) and each token's form
    (B, T), as one item of the batch's inputs: its length is the batch's B
    sentences, as skorch counts a batch (U differs)."""

    def __init__(self, chars: torch.Tensor, index: torch.Tensor):
        self.chars, self.index = chars, index

    def __len__(self) -> int:
        return len(self.index)

    def to(self, device) -> Characters:
        return Characters(self.chars.to(device), self.index.to(device))


class Terms:
    """A batch's terms (P, 3) -- each one's sentence (its row in the batch) and
    its first and last token -- as one item of the batch's inputs: its length is
    the batch's ``n`` sentences, as skorch counts a batch (P differs)."""

    def __init__(self, terms: torch.Tensor, n: int):
        self.terms, self.n = terms, n

    def __len__(self) -> int:
        return self.n

    def to(self, device) -> Terms:
        return Terms(self.terms.to(device), self.n)


def module_inputs(X: dict) -> dict:
    """A batch's inputs (:func:`batch_inputs`) as the tagger's keyword arguments."""
    X = dict(X)
    characters = X.pop("characters")
    if "terms" in X:
        X["terms"] = X["terms"].terms
    return {**X, "chars": characters.chars, "char_index": characters.index}


class TaggerNet(MixedPrecision, NeuralNet):
    """skorch's net with the loss over every word: the module gives (B, T, K)
    logits, the targets (B, T) tags (``-100`` at padding); with
    :class:`~aspectattn.engine.training.MixedPrecision`, as every net
    :func:`~aspectattn.engine.training.build_net` builds."""

    def infer(self, x, **fit_params):
        """The module on a batch, its characters unpacked (:func:`module_inputs`)."""
        return super().infer(module_inputs(x), **fit_params)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        return self._tag_loss(y_pred, to_tensor(y_true, device=self.device))

    def _tag_loss(self, logits: torch.Tensor, tags: torch.Tensor) -> torch.Tensor:
        """The tags' loss, ``logits`` (B, T, K), ``tags`` (B, T): their
        cross-entropy averaged over the tagged tokens; with the module's learned
        tag transitions (a CRF's), its sentences' negative log-likelihood summed
        and divided by their tagged tokens (the same scale)."""
        transitions = self.module_.transitions
        if transitions is None:
            return self.criterion_(logits.transpose(1, 2), tags)  # (B, K, T), (B, T)
        tagged = (tags != IGNORE).sum().clamp_min(1)
        return transitions.nll(logits, tags, IGNORE).sum() / tagged


class ValidSpanF1(Callback):
    """Record ``valid_f1``, the exact-span F1 of the validation sentences, and
    ``valid_score``, what picks the epoch, after every epoch (before
    :class:`BestWeights` reads it): the F1 less :data:`LOSS_WEIGHT` times the
    validation loss, so that between epochs of equal F1 the lower loss wins --
    and a model that finds no term yet but learns (its loss falls) is not
    stopped for want of progress. The found terms are read from the tags as
    ``decoding`` says (:func:`~aspectattn.extraction.words.best_tags`). A
    subclass says what a batch's gold and found terms are (``_terms``) and what
    it records of them (``_f1``)."""

    def __init__(self, dataset: TagDataset, decoding: str = "greedy"):
        self.dataset = dataset
        self.decoding = decoding

    def on_epoch_end(self, net, **kwargs):
        module = net.module_
        module.eval()
        gold, found = set(), set()
        cut = length_sorted_batches(
            self.dataset.lengths, PREDICT_BATCH, None, module.batch_tokens
        )
        for index in cut:
            X, y = self.dataset.__getitems__(index)
            with torch.no_grad():
                batch_gold, batch_found = self._terms(module, X, y, net.device)
            gold.update((index[r], *rest) for r, *rest in batch_gold)
            found.update((index[r], *rest) for r, *rest in batch_found)
        f1 = self._f1(net, gold, found)
        net.history.record("valid_f1", f1)
        loss = net.history[-1, "valid_loss"]
        net.history.record("valid_score", f1 - LOSS_WEIGHT * loss)

    def _terms(self, module, X, tags, device) -> tuple[list, list]:
        """The batch's gold and found terms: (row, first, last) token."""
        inputs = module_inputs(X)
        logits = module(**{k: v.to(device) for k, v in inputs.items()})
        real = tags != IGNORE  # (B, T): the tagged tokens
        lengths = real.sum(1).numpy()
        predicted = _read_tags(module, logits, real, lengths, self.decoding)
        return tuple(
            list(zip(*decode(flat, np.ones(len(flat)), lengths)[:3], strict=True))
            for flat in (tags[real].numpy(), predicted)
        )

    def _f1(self, net, gold: set, found: set) -> float:
        return _f1(gold, found)


class JointDataset(TagDataset):
    """Tagged sentences (:class:`TagDataset`) with their terms' places and
    polarities: ``terms[i]`` (n_i, 3) int64, each term of sentence ``i`` as its
    first and last token and its class (``-100``: no polarity to learn, a
    ``conflict`` term); taught, ``teacher[i]`` (n_i, C) float32, the teacher's
    softened polarities of those terms (NaN rows: none). A batch's targets are
    ``{"tags": (B, T), "polarity": (P,)[, "teacher": (P, C)]}``, its inputs
    hold the terms (:class:`Terms`)."""

    def __init__(
        self,
        encoded: Encoded,
        tags: EncodedTexts,
        terms: list,
        teacher=None,
        teacher_tags=None,
    ):
        super().__init__(encoded, tags)
        self.terms = terms
        self.teacher = teacher
        self.teacher_tags = teacher_tags

    def __getitems__(self, index):
        X, tags = super().__getitems__(index)
        rows = [np.full(len(self.terms[i]), k) for k, i in enumerate(index)]
        found = np.concatenate([self.terms[i] for i in index] + [_NO_TERMS])
        places = np.column_stack([np.concatenate(rows + [[]]), found[:, :2]])
        X["terms"] = Terms(torch.from_numpy(places.astype(np.int64)), len(index))
        polarity = torch.from_numpy(found[:, 2].astype(np.int64))
        y = {"tags": tags, "polarity": polarity}
        if self.teacher is not None:
            width = self.teacher[index[0]].shape[1] if len(index) else 0
            y["teacher"] = torch.from_numpy(
                np.concatenate(
                    [self.teacher[i] for i in index]
                    + [np.zeros((0, width), np.float32)]
                )
            )
        if self.teacher_tags is not None:
            # (B, T, K): NaN where the teacher says nothing of a token
            soft = np.full((*tags.shape, len(TAGS)), np.nan, dtype=np.float32)
            for row, i in enumerate(index):
                soft[row, : len(self.teacher_tags[i])] = self.teacher_tags[i]
            y["teacher_tags"] = torch.from_numpy(soft)
        return X, y

    def subset(self, index) -> JointDataset:
        part = super().subset(index)

        def pick(values):
            return None if values is None else [values[i] for i in index]

        return JointDataset(
            part.encoded,
            part.tags,
            pick(self.terms),
            pick(self.teacher),
            pick(self.teacher_tags),
        )


_NO_TERMS = np.zeros((0, 3), dtype=np.int64)


class JointNet(TaggerNet):
    """skorch's net with the joint loss: the tags' cross-entropy over every
    token plus ``polarity_weight`` times the polarities' over the terms that
    have one. Taught (targets with ``"teacher"`` and ``"teacher_tags"``), a
    term or a token with the teacher's probabilities learns ``(1 -
    distill_weight) * CE + distill_weight * T**2 * KL`` (``T**2 * KL`` alone
    where it has no label), the others the cross-entropy, averaged over the
    terms and over the tokens. The module gives ``(tag logits (B, T, K),
    polarity logits (P, C))``."""

    def __init__(
        self, *args, polarity_weight=1.0, distill_weight=0.5, temperature=2.0, **kw
    ):
        super().__init__(*args, **kw)
        self.polarity_weight = polarity_weight
        self.distill_weight = distill_weight
        self.temperature = temperature

    def get_loss(self, y_pred, y_true, X=None, training=False):
        tag_logits, polarity_logits = y_pred
        tags = to_tensor(y_true["tags"], device=self.device)  # (B, T)
        polarity = to_tensor(y_true["polarity"], device=self.device)  # (P,)
        if "teacher_tags" in y_true:  # (B, T, K): the tokens' as rows
            soft = to_tensor(y_true["teacher_tags"], device=self.device)
            loss = self._taught_tags_loss(tag_logits, tags, soft)
        else:
            loss = self._tag_loss(tag_logits, tags)
        if "teacher" in y_true:
            teacher = to_tensor(y_true["teacher"], device=self.device)  # (P, C)
            return loss + self.polarity_weight * self._taught_loss(
                polarity_logits, polarity, teacher
            )
        if (polarity != IGNORE).any():
            loss = loss + self.polarity_weight * self.criterion_(
                polarity_logits, polarity
            )
        return loss

    def _taught_tags_loss(self, logits, tags, soft):
        """The tags' loss taught: ``logits`` (B, T, K), ``tags`` (B, T), the
        teacher's ``soft`` (B, T, K) (NaN rows: none). Each token's as
        :meth:`_taught_loss` mixes it; with learned tag transitions, ``(1 - w)``
        times the sentences' loss (:meth:`_tag_loss`) plus ``w * T**2`` times
        the mean KL over the tokens the teacher speaks of."""
        logits, soft = logits.flatten(0, 1), soft.flatten(0, 1)  # (B * T, K)
        if self.module_.transitions is None:
            return self._taught_loss(logits, tags.flatten(), soft)
        loss = (1 - self.distill_weight) * self._tag_loss(
            logits.view(*tags.shape, -1), tags
        )
        taught = ~torch.isnan(soft[:, 0])  # (B * T,)
        if taught.any():
            unlabelled = torch.full_like(tags.flatten()[taught], -1)
            kl = distillation_loss(
                logits[taught],
                unlabelled,  # (-1: the KL alone, T**2 * KL)
                soft[taught],
                None,
                self.distill_weight,
                self.temperature,
            )
            loss = loss + self.distill_weight * kl
        return loss

    def _taught_loss(self, logits, labels, teacher):
        """The loss over the rows (terms, or tokens) with a label or the
        teacher's answer: ``logits`` (N, C), ``labels`` (N,) (-100: none),
        ``teacher`` (N, C) (NaN rows: none): ``(1 - w) * CE + w * T**2 * KL``
        where both are, ``T**2 * KL`` where the teacher's alone is, the
        cross-entropy where the label's alone is, averaged over the rows."""
        taught = ~torch.isnan(teacher[:, 0])  # (N,)
        labelled_only = (labels != IGNORE) & ~taught  # (N,)
        n = int(taught.sum()) + int(labelled_only.sum())
        if n == 0:
            return logits.sum() * 0.0
        total = logits.new_zeros(())
        if taught.any():
            total = total + int(taught.sum()) * distillation_loss(
                logits[taught],
                labels[taught],  # (-100: the teacher's alone)
                teacher[taught],
                None,
                self.distill_weight,
                self.temperature,
            )
        if labelled_only.any():
            total = total + nn.functional.cross_entropy(
                logits[labelled_only], labels[labelled_only], reduction="sum"
            )
        return total / n


class ValidJointF1(ValidSpanF1):
    """Record ``valid_f1``, the end-to-end F1 of the validation sentences (a
    term counts when its span and its polarity are a gold term's; gold terms
    without a polarity, ``conflict``, count neither as gold nor, when found, as
    errors), ``valid_span_f1`` (the spans alone), and ``valid_score``, what
    picks the epoch (see :class:`ValidSpanF1`)."""

    def _terms(self, module, X, y, device) -> tuple[list, list]:
        """The batch's gold and found terms: (row, first, last, class)."""
        terms = X["terms"].terms.numpy()
        gold = [(*t, c) for t, c in zip(terms, y["polarity"].numpy(), strict=True)]
        return gold, _found_terms(module, X, y["tags"], device, self.decoding)

    def _f1(self, net, gold: set, found: set) -> float:
        unscored = {g[:3] for g in gold if g[3] == IGNORE}
        gold = {g for g in gold if g[3] != IGNORE}
        found = {f for f in found if f[:3] not in unscored}
        spans = _f1({g[:3] for g in gold}, {f[:3] for f in found})
        net.history.record("valid_span_f1", spans)
        return _f1(gold, found)


def _read_tags(module, logits, real, lengths, decoding: str) -> np.ndarray:
    """The tags of the tagged tokens (``real``, (B, T)) read from ``logits``
    (B, T, K) of ``module`` as ``decoding`` says: (n_real,) int64, sentence
    after sentence."""
    if decoding == "greedy":  # (the logits' argmax: no ties moved by a softmax)
        return logits.argmax(-1).cpu()[real].numpy()
    proba = torch.softmax(logits.float(), -1).cpu()[real].numpy()  # (n_real, K)
    return best_tags(proba, lengths, decoding, transition_scores(module))


def transition_scores(module) -> tuple | None:
    """The learned tag transitions of a tagger ``module`` as
    :func:`~aspectattn.extraction.words.best_tags` reads them (start (K,) and
    pair (K, K) scores, numpy), or None if it has none."""
    if module.transitions is None:
        return None
    with torch.no_grad():
        scores = module.transitions.scores()
        return tuple(t.double().cpu().numpy() for t in scores)


def _found_terms(module, X, tags, device, decoding: str) -> list[tuple]:
    """(row, first token, last token, class) of the terms the joint ``module``
    finds in a batch (its tags read as ``decoding`` says), and their
    polarities, from one pass."""
    inputs = {k: v.to(device) for k, v in module_inputs(X).items()}
    inputs.pop("terms")
    states = module.states(**inputs)  # (B, T, D)
    real = tags != IGNORE  # (B, T): the tagged tokens
    lengths = real.sum(1).numpy()
    predicted = _read_tags(module, module.tag_logits(states), real, lengths, decoding)
    row, first, last, _ = decode(predicted, np.ones(len(predicted)), lengths)
    if not len(row):
        return []
    places = batch_terms(real.numpy(), row, first, last)  # (n, 3)
    logits = module.polarity_logits(
        states, inputs["lengths"], torch.from_numpy(places).to(device)
    )
    classes = logits.argmax(-1).cpu().numpy()
    return [(*place, c) for place, c in zip(places.tolist(), classes, strict=True)]


def _f1(gold: set, found: set) -> float:
    correct = len(gold & found)
    return 2 * correct / (len(gold) + len(found)) if correct else 0.0
