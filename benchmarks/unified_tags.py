"""Unified tags (BERT-E2E-ABSA's ``B-POS``, ``I-NEG``, ...) as a candidate of
the joint model, beside its polarity head: each token is tagged with its place
in a term *and* that term's polarity, one softmax over ``O``, ``B-c`` and
``I-c`` for every polarity ``c``, and a found term's polarity is read from its
own tokens' tags (no attention over the sentence).

A benchmark candidate, not a setting (``benchmarks/joint.py``, its second round):
it reuses the joint model's estimator, tagger and reading, and changes only the
polarity head and the loss. Its second form (``attention=True``, the third
round) keeps the joint model's attention head for the polarities and learns the
unified tags beside it: the tags' loss is the seven-way one, the attention's
cross-entropy is added as the joint model adds it, and the polarities read are
the attention's.

- The token's seven logits are the tagger's ``O``, ``B`` and ``I`` logits plus,
  for ``B`` and ``I``, a polarity logit of each class (a linear layer over the
  same states): ``z[B-c] = u[B] + v[B, c]``, any seven linear functions of the
  state. The tags read (greedy, Viterbi) are their marginals, ``P(B) =
  sum_c P(B-c)``: the tag logits given to the reading are ``u[B] +
  logsumexp_c v[B, c]``.
- The loss is the seven-way cross-entropy averaged over the tagged tokens, split
  exactly as ``-log P(B-c) = -log P(B) - log P(c | B)``: the tags' cross-entropy
  (the joint net's) plus ``polarity_weight`` (1 by default: the unified loss
  itself) times the polarities' ``-log P(c | tag)`` summed over the tokens of
  the terms that have one, divided by the tagged tokens.
- A term's polarity is the mean over its tokens of ``P(c | the token is in a
  term)`` (a soft majority of its tokens' tags, as BERT-E2E-ABSA reads a span).

Shapes: ``B`` sentences, ``T`` tokens, ``D`` state size, ``C`` polarities, ``P``
terms.
"""

from __future__ import annotations

import torch
from skorch.utils import to_tensor
from torch import nn

from aspectattn import AspectSentimentExtractor
from aspectattn.extraction._nets import IGNORE, JointNet
from aspectattn.extraction.words import B, I, O
from aspectattn.nn.joint import JointTagger
from aspectattn.nn.ops import token_distances


def _on_term(terms: torch.Tensor, width: int) -> torch.Tensor:
    """terms (P, 3), each one's sentence and first and last token -> (P, T)
    bool: the places of each term's tokens."""
    return token_distances(terms[:, 1:] + terms.new_tensor([0, 1]), width) == 0


class UnifiedTagger(JointTagger):
    """The joint model's tagger with unified tags: its ``token_polarity`` layer
    gives each token's polarity logits for ``B`` and for ``I`` (D -> 2C); with
    ``attention``, the joint model's attention head (``polarity``) reads the
    terms' polarities, else the tokens' tags do."""

    def __init__(
        self, *, tagger: nn.Module, n_classes: int, dropout: float, attention: bool
    ):
        super().__init__(tagger=tagger, n_classes=n_classes, dropout=dropout)
        self.attention = attention
        if not attention:
            del self.polarity
        self.token_polarity = nn.Linear(tagger.output_size, 2 * n_classes)

    def _unified(self, states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """states (B, T, D) -> the tags' marginal logits (B, T, 3) and
        ``log P(c | tag)`` for the tags B and I (B, T, 2, C), from the same
        dropped-out states."""
        dropped = self.tagger.dropout(states)
        u = self.tagger.tags(dropped)  # (B, T, 3)
        v = self.token_polarity(dropped)  # (B, T, 2C)
        v = v.view(*v.shape[:2], 2, -1)  # (B, T, 2, C): [B, I]
        spread = torch.logsumexp(v, -1)  # (B, T, 2)
        marginal = torch.stack(
            [u[..., O], u[..., B] + spread[..., 0], u[..., I] + spread[..., 1]], -1
        )  # (B, T, 3)
        return marginal, v.log_softmax(-1)

    def tag_logits(self, states: torch.Tensor) -> torch.Tensor:
        return self._unified(states)[0]

    def polarity_logits(self, states, lengths, terms) -> torch.Tensor:
        """The attention's logits (P, C) with ``attention``; else the log of the
        mean over each term's tokens of ``P(c | in a term)``."""
        if self.attention:
            return super().polarity_logits(states, lengths, terms)
        marginal, conditional = self._unified(states)  # (B, T, 3), (B, T, 2, C)
        in_term = marginal[..., [B, I]].log_softmax(-1)  # (B, T, 2): B or I, given in
        mixed = torch.logsumexp(in_term[..., None] + conditional, 2)  # (B, T, C)
        proba = mixed.exp()[terms[:, 0]]  # (P, T, C)
        mask = _on_term(terms, proba.shape[1])  # (P, T)
        mean = (proba * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        return mean.clamp_min(1e-12).log()  # (P, C)

    def forward(self, tokens, lengths, chars, char_index, terms):
        """-> the tags' marginal logits (B, T, 3), ``log P(c | tag)`` (B, T, 2,
        C), the terms (P, 3), which the loss reads, and with ``attention`` the
        attention's polarity logits (P, C) (else None)."""
        states = self.states(tokens, lengths, chars, char_index)  # (B, T, D)
        marginal, conditional = self._unified(states)
        read = None
        if self.attention:
            read = super().polarity_logits(states, lengths, terms)
        return marginal, conditional, terms, read


class UnifiedNet(JointNet):
    """The unified tags' loss (see the module's docstring)."""

    def get_loss(self, y_pred, y_true, X=None, training=False):
        marginal, conditional, terms, read = y_pred
        tags = to_tensor(y_true["tags"], device=self.device)  # (B, T)
        polarity = to_tensor(y_true["polarity"], device=self.device)  # (P,)
        loss = self._tag_loss(marginal, tags)  # (the mean over the tagged tokens)
        has = polarity != IGNORE  # (P,)
        if not has.any():
            return loss
        if read is not None:  # the attention's, as the joint net adds it
            loss = loss + self.polarity_weight * self.criterion_(read, polarity)
        terms, polarity = terms[has], polarity[has]  # (P', 3), (P',)
        width = tags.shape[1]
        mask = _on_term(terms, width)  # (P', T)
        term_tags = tags[terms[:, 0]]  # (P', T)
        mask &= (term_tags == B) | (term_tags == I)
        which = (term_tags - B).clamp(0, 1)  # (P', T): 0 for B, 1 for I
        rows = conditional[terms[:, 0]]  # (P', T, 2, C)
        picked = rows.gather(
            2, which[..., None, None].expand(-1, -1, 1, rows.shape[-1])
        )[:, :, 0]  # (P', T, C)
        nll = -picked.gather(2, polarity[:, None, None].expand(-1, width, 1))[..., 0]
        tagged = (tags != IGNORE).sum().clamp_min(1)
        weight = 1.0 if read is not None else self.polarity_weight
        return loss + weight * (nll * mask).sum() / tagged


class UnifiedTagsExtractor(AspectSentimentExtractor):
    """The joint model with unified tags (a benchmark candidate); with
    ``_ATTENTION``, its attention head reads the polarities."""

    _NET = UnifiedNet
    _ATTENTION = False

    def _module(self, build):
        dropout = self.resolved_params_["dropout"]
        return _UnifiedBuild(build, len(self.classes_), dropout, self._ATTENTION)


class UnifiedTagsAttentionExtractor(UnifiedTagsExtractor):
    """Unified tags learned beside the attention head, which reads the
    polarities."""

    _ATTENTION = True


class _UnifiedBuild:
    def __init__(self, tagger, n_classes: int, dropout: float, attention: bool):
        self.tagger, self.n_classes, self.dropout = tagger, n_classes, dropout
        self.attention = attention

    def __call__(self) -> UnifiedTagger:
        return UnifiedTagger(
            tagger=self.tagger(),
            n_classes=self.n_classes,
            dropout=self.dropout,
            attention=self.attention,
        )
