"""The aspect-attention model of Wang et al. (2016) over any encoder.

:class:`AspectAttentionModel` is the only model class: an encoder from
:mod:`aspectattn.nn.encoders` (LSTM, transformer, pretrained checkpoint), an attention
form from :mod:`aspectattn.nn.attention`, and the classifier head.

Shapes in comments: ``B`` sentences, ``P`` (sentence, aspect) pairs, ``T`` tokens,
``A`` aspect-vector size, ``D`` encoder output size, ``K`` aspects scored per
sentence, ``C`` classes, ``L`` tokens of an aspect term.

References
----------
Yequan Wang, Minlie Huang, Xiaoyan Zhu and Li Zhao. 2016. Attention-based LSTM for
Aspect-level Sentiment Classification. EMNLP, 606-615.
"""

from __future__ import annotations

import torch
from torch import nn

from ..params import FINAL_STATES, POSITION_WEIGHTINGS, TERM_QUERIES, VARIANTS
from ..text.tokens import PAD_ID
from .attention import make_attention
from .encoders import get_encoder
from .ops import (
    clip_spans,
    distance_weights,
    first_of_group,
    is_term_state,
    length_mask,
    masked_mean_embedding,
    span_mask,
    span_mean,
    token_distances,
    uses_position,
)

__all__ = ["AspectAttentionModel", "MAX_DISTANCE"]

#: ``position_weighting="learned"`` learns one attention bias per distance from the
#: term up to this one; farther tokens share the last.
MAX_DISTANCE = 16


class AspectAttentionModel(nn.Module):
    """AT, AE and ATAE (Wang et al., 2016) over any registered encoder.

    * ``"at"``: ``H = encoder(x)``; attention pooling ``r`` with ``v_a`` as query;
      ``h* = tanh(W_p r + W_x h_N)``; ``y = softmax(W_s h* + b_s)``. The encoder
      does not see the aspect, so one encoder pass serves every aspect of a sentence.
      With ``final_state=False``, ``h* = tanh(W_p r)``: the final state ``h_N``,
      the same for every aspect of an AT sentence, is left out; with
      ``final_state="term"`` (terms) the encoder's summary of the term takes its
      place (below).
    * ``"ae"``: ``v_a`` appended to every input word; the summary ``h_N`` is
      classified.
    * ``"atae"``: both.

    Aspects are *categories* (a learnable vector per category; ``aspect`` holds
    category ids) or *terms* (the mean of the term's token embeddings, through a
    linear map when ``aspect_size`` differs from the embedding size; ``aspect``
    holds the term's padded token ids).

    Terms have a place in the sentence (``span``, token positions, in
    :meth:`forward`), which these options use, each independent of the others:

    * ``position_weighting="linear"``: ``alpha_i`` proportional to
      ``w_i exp(e_i)`` with ``w_i = 1 - d_i / n`` (``d_i`` the distance of token
      ``i`` from the term, ``n`` the sentence length): nearer words weigh more;
      ``"learned"``: proportional to ``exp(e_i + b[min(d_i, MAX_DISTANCE)])``
      with one learned bias ``b`` per distance, started at 0 (no prior): how
      fast the weight falls off with the distance is learned from the data;
    * ``position_dropout=p`` (training only): each pair is encoded from its own
      copy of its sentence, in which token ``i`` is dropped (padding: a zero
      vector for the word encoders) with probability ``p (1 - w_i)``, ``w_i`` as
      above: Ma et al. (2021)'s position-bias dropout, which teaches the encoder
      to read the term's own clause; the term's tokens are never dropped;
    * ``term_marker=True``: a 0/1 flag on the term's tokens appended to every
      encoder input word (the encoder then sees the aspect: one pass per pair);
    * ``term_query="states"``: the mean of the encoder states over the term's
      tokens, projected to ``A``, queries the states instead of ``v_a`` (the mean
      of the term's word vectors); ``"both"``: their sum;
    * ``final_state="term"``: ``h* = tanh(W_p r + W_x h_term)``, with ``h_term``
      the encoder's summary of the term instead of the sentence's ``h_N``: for the
      LSTM, the forward state at the term's last token and (bidirectional) the
      backward state at its first, i.e. TD-LSTM's two LSTMs read from either end
      of the sentence up to the term (Tang et al., 2016), from the one shared
      pass; for other encoders (``term_summary`` absent), the mean of the term's
      states.

    Parameters
    ----------
    encoder : str
        A name in :data:`aspectattn.params.ENCODERS`.
    encoder_config : dict
        Keyword arguments of that encoder (``aspect_input_size`` is set here).
    n_classes : int
    aspect_type : {"category", "term"}
    n_aspects : int
        Number of aspect categories (ignored for terms).
    aspect_size : int or None
        Size ``A`` of ``v_a``; ``None``: the encoder's embedding size.
    variant : {"at", "ae", "atae"}
    attention_score : str
        A name in :data:`aspectattn.nn.attention.ATTENTION_SCORES`.
    attention_heads : int
    dropout : float
        On the final representation (as in Wang et al.'s code).
    final_state : {True, False, "term"}
        Whether ``h*`` takes the encoder's final state ``h_N`` besides the
        attention pooling, or (``"term"``) the encoder's summary of the term
        (ignored without attention: AE classifies ``h_N``).
    position_weighting : {"none", "linear", "learned"}
    position_dropout : float in [0, 1]
    term_marker : bool
    term_query : {"vectors", "states", "both"}
    """

    # Defaults for modules pickled before these options existed.
    position_weighting = "none"
    position_dropout = 0.0
    term_marker = False
    term_query = "vectors"
    uses_position = False
    final_state = True

    def __init__(
        self,
        *,
        encoder: str,
        encoder_config: dict,
        n_classes: int,
        aspect_type: str = "category",
        n_aspects: int = 1,
        aspect_size: int | None = None,
        variant: str = "atae",
        attention_score: str = "additive",
        attention_heads: int = 1,
        dropout: float = 0.5,
        final_state: bool | str = True,
        position_weighting: str = "none",
        position_dropout: float = 0.0,
        term_marker: bool = False,
        term_query: str = "vectors",
    ):
        super().__init__()
        encoder_class = get_encoder(encoder)
        position = _check_options(
            encoder,
            encoder_class,
            aspect_type,
            variant,
            final_state,
            position_weighting,
            position_dropout,
            term_marker,
            term_query,
        )
        self.variant = variant
        self.aspect_type = aspect_type
        self.encoder_kind = encoder
        self.uses_attention = variant in ("at", "atae")
        aspect_in_words = variant in ("ae", "atae")
        if aspect_size is None:
            aspect_size = encoder_class.embedding_size(encoder_config)
        self.position_weighting = position_weighting
        self.position_dropout = float(position_dropout)
        self.term_marker = term_marker
        self.term_query = term_query
        #: Whether :meth:`forward` needs the term's ``span``.
        self.uses_position = position
        # Created first: the embedding, then the aspect vectors, then the encoder
        # (the order seeded weights have always been drawn in).
        config, embedding_dim = _encoder_arguments(
            encoder_class, encoder_config, aspect_size, aspect_in_words, term_marker
        )
        self._build_aspects(n_aspects, aspect_size, embedding_dim)
        self.encoder = encoder_class(**config)
        self._build_head(
            self.encoder.output_size,
            aspect_size,
            attention_score,
            attention_heads,
            final_state,
            dropout,
            n_classes,
        )

    def _build_aspects(self, n_aspects: int, aspect_size: int, embedding_dim: int):
        """The aspect vectors: a table of categories, or the map from a term's
        mean token embedding (``embedding_dim``) to ``aspect_size``."""
        if self.aspect_type == "category":
            self.aspect_embedding = nn.Embedding(n_aspects, aspect_size)
        elif self.aspect_type == "term":
            self.aspect_projection = (
                nn.Identity()
                if aspect_size == embedding_dim
                else nn.Linear(embedding_dim, aspect_size)
            )
        else:
            raise ValueError(
                f"aspect_type must be 'category' or 'term', got {self.aspect_type!r}"
            )

    def _build_head(
        self, d, aspect_size, attention_score, attention_heads, final_state, dropout,
        n_classes,
    ):  # fmt: skip
        """What follows the encoder's states of size ``d``: the term options'
        weights, the aspect attention, ``W_p`` (and ``W_x``), the classifier."""
        if self.position_weighting == "learned":
            # (MAX_DISTANCE + 1,) attention bias by distance from the term
            self.distance_bias = nn.Parameter(torch.zeros(MAX_DISTANCE + 1))
        if self.term_query != "vectors":
            self.term_state_projection = nn.Linear(d, aspect_size)
        if self.uses_attention:
            self.attention = make_attention(
                attention_score, d, aspect_size, attention_heads
            )
            self.W_p = nn.Linear(self.attention.output_size, d, bias=False)
            if final_state:
                self.W_x = nn.Linear(d, d, bias=False)
        self.final_state = final_state
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(d, n_classes)

    @property
    def encoder_sees_aspect(self) -> bool:
        """Whether the encoder's output depends on the aspect (each pair is then
        its own pass): the aspect with every word, the term's flag, or the
        aspect among the encoder's tokens (a checkpoint's second segment)."""
        return (
            self.variant in ("ae", "atae")
            or self.term_marker
            or getattr(self.encoder, "aspect_in_tokens", False)
        )

    @property
    def embedding(self) -> nn.Embedding:
        """The encoder's token-embedding table."""
        return self.encoder.embedding

    # -- pieces -----------------------------------------------------------------------
    def aspect_vectors(self, aspect: torch.Tensor) -> torch.Tensor:
        """Aspect ids (N,) or term token ids (N, L) -> aspect vectors (N, A)."""
        if self.aspect_type == "category":
            return self.aspect_embedding(aspect)
        return self.aspect_projection(masked_mean_embedding(self.embedding, aspect))

    def _encode(self, tokens, lengths, v_a, marker=None):
        """(B, T), (B,), (B, A), (B, T) -> states (B, T, D), summary (B, D)."""
        aspect_input = v_a if self.variant in ("ae", "atae") else None
        if marker is None:
            return self.encoder(tokens, lengths, aspect_input)
        return self.encoder(tokens, lengths, aspect_input, marker=marker)

    def _term_query(self, v_a, states, span, row):
        """The query of each pair: ``v_a``, or (from) the term's mean state.

        v_a (P, A), states (B, T, D), span (P, 2), row (P,) the ``states`` row of
        each pair -> (P, A)
        """
        if self.term_query == "vectors" or not self.uses_attention:
            return v_a
        # the term's tokens within the batch's width (none: a zero mean)
        mean = span_mean(states, span.clamp(max=states.shape[1]), row)  # (P, D)
        projected = self.term_state_projection(mean)  # (P, A)
        return projected if self.term_query == "states" else v_a + projected

    def _head(self, states, summary, mask, v_a, sentence=None, bias=None):
        """The classifier on top of the encoder.

        ``h* = tanh(W_p r + W_x h_N)`` with ``r`` the aspect-attention pooling of the
        states, then ``W_s h* + b_s``; without attention (AE), ``h_N`` is classified.

        states (B, T, D), summary (N, D) (each row's ``h_N`` or term summary),
        mask (B, T), v_a (N or 1, K, A), sentence (N,) or None,
        bias (N, K, T) or None -> logits (N, K, C), alpha (N, K, T) or None
        """
        if not self.uses_attention:
            h = summary[:, None, :].expand(-1, v_a.shape[1], -1)  # (N, K, D)
            return self.classifier(self.dropout(h)), None
        r, alpha = self.attention(states, mask, v_a, sentence, bias)  # (N, K, D')
        pooled = self.W_p(r)  # (N, K, D)
        if self.final_state:
            pooled = pooled + self.W_x(summary)[:, None, :]
        h_star = torch.tanh(pooled)  # (N, K, D)
        return self.classifier(self.dropout(h_star)), alpha

    # -- entry points -----------------------------------------------------------------
    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        aspect: torch.Tensor,
        sentence: torch.Tensor | None = None,
        span: torch.Tensor | None = None,
        return_attention: bool = False,
    ):
        """Score one aspect per row.

        Parameters
        ----------
        tokens : (P, T) long -- token ids, 0 is padding
        lengths : (P,) long -- real tokens per row, >= 1
        aspect : (P,) long category ids, or (P, L) long term token ids
        sentence : (P,) long or None
            Rows with the same value hold the same sentence (their ``tokens`` rows
            are equal): the encoder then runs once per distinct sentence when it
            does not see the aspect. ``None``: every row is encoded.
        span : (P, 2) long or None
            Token span ``[start, end)`` of each row's term; needed when a
            term-position option is on (:attr:`uses_position`).
        return_attention : bool

        Returns
        -------
        logits : (P, C)
        alpha : (P, T) [or (P, heads, T)], only if ``return_attention`` (zeros for
            the AE variant)
        """
        v_a = self.aspect_vectors(aspect)  # (P, A)
        width = tokens.shape[1]
        bias = None
        if self.uses_position:
            if span is None:
                raise ValueError("this model uses the term's position: pass span=")
            if self.position_weighting == "linear":
                w = distance_weights(span, lengths, width)  # (P, T)
                bias = torch.log(w)[:, None, :]  # (P, 1, T)
            elif self.position_weighting == "learned":
                d = token_distances(span, width).clamp(max=MAX_DISTANCE)  # (P, T)
                bias = self.distance_bias[d][:, None, :]  # (P, 1, T)
        marker = span_mask(span, width) if self.term_marker else None  # (P, T)
        if self.training and self.position_dropout > 0:
            # each pair reads its own copy of its sentence, far words dropped
            far = 1.0 - distance_weights(span, lengths, width)  # (P, T): d_i / n
            drop = torch.rand_like(far) < self.position_dropout * far  # (P, T)
            tokens = tokens.masked_fill(drop, PAD_ID)
            sentence = None
        if sentence is None or self.encoder_sees_aspect:
            states, summary = self._encode(tokens, lengths, v_a, marker)
            sentence = None
        else:
            first = first_of_group(sentence)  # (B,)
            states, summary = self._encode(tokens[first], lengths[first], None)
            lengths = lengths[first]
        mask = length_mask(lengths, width)  # (B, T)
        if self.uses_position:
            row = torch.arange(span.shape[0], device=span.device)
            row = row if sentence is None else sentence  # (P,)
            v_a = self._term_query(v_a, states, span, row)  # (P, A)
        if is_term_state(self.final_state) and self.uses_attention:
            summarise = getattr(self.encoder, "term_summary", span_mean)
            summary = summarise(states, clip_spans(span, lengths[row]), row)  # (P, D)
        elif sentence is not None:
            summary = summary[sentence]  # (P, D)
        logits, alpha = self._head(
            states, summary, mask, v_a[:, None, :], sentence, bias
        )
        logits = logits[:, 0]  # (P, C)
        if not return_attention:
            return logits
        if alpha is None:
            alpha = torch.zeros(tokens.shape, dtype=logits.dtype, device=tokens.device)
        else:
            alpha = alpha[:, 0]
        return logits, alpha

    def forward_many(
        self, tokens: torch.Tensor, lengths: torch.Tensor, aspects: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Score every sentence on each of the same K aspects.

        When the encoder does not see the aspect it runs once per sentence;
        otherwise each (sentence, aspect) pair is encoded.

        Parameters
        ----------
        tokens : (B, T) long
        lengths : (B,) long
        aspects : (K,) long category ids, or (K, L) long term token ids

        Returns
        -------
        logits : (B, K, C)
        alpha : (B, K, T) [or (B, K, heads, T)], or None for the AE variant
        """
        if self.uses_position:
            raise ValueError(
                "this model uses the term's position in each sentence: score "
                "(text, term) pairs with forward() and their spans"
            )
        v = self.aspect_vectors(aspects)  # (K, A)
        B, K = tokens.shape[0], v.shape[0]
        mask = length_mask(lengths, tokens.shape[1])  # (B, T)
        if not self.encoder_sees_aspect:
            states, summary = self._encode(tokens, lengths, None)  # once per sentence
            # (1, K, A): the aspect projections are computed once, then broadcast.
            return self._head(states, summary, mask, v[None])
        # Encode each (sentence, aspect) pair: repeat sentences K times.
        tokens_k = tokens.repeat_interleave(K, 0)  # (B*K, T)
        lengths_k = lengths.repeat_interleave(K, 0)  # (B*K,)
        v_k = v.repeat(B, 1)  # (B*K, A)
        states, summary = self._encode(tokens_k, lengths_k, v_k)
        logits, alpha = self._head(
            states, summary, mask.repeat_interleave(K, 0), v_k[:, None, :]
        )
        logits = logits.reshape(B, K, -1)
        alpha = None if alpha is None else alpha.reshape(B, K, *alpha.shape[2:])
        return logits, alpha

    def self_attention_maps(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        aspect: torch.Tensor,
        span: torch.Tensor | None = None,
    ) -> list[torch.Tensor]:
        """Self-attention weights of every encoder layer.

        Returns
        -------
        list of (B, heads, T, T) tensors, one per layer: row ``i`` of a head is how
        token ``i`` attends to every token; padding columns are exactly zero.
        """
        aspect_input = (
            self.aspect_vectors(aspect) if self.variant in ("ae", "atae") else None
        )
        if self.term_marker:
            marker = span_mask(span, tokens.shape[1])  # (B, T)
            return self.encoder.self_attention_maps(
                tokens, lengths, aspect_input, marker
            )
        return self.encoder.self_attention_maps(tokens, lengths, aspect_input)


def _check_options(
    encoder, encoder_class, aspect_type, variant, final_state, position_weighting,
    position_dropout, term_marker, term_query,
) -> bool:  # fmt: skip
    """Refuse options the model cannot take together; whether it reads the
    term's position (some term option is on)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if position_weighting not in POSITION_WEIGHTINGS:
        raise ValueError(
            f"position_weighting must be one of {POSITION_WEIGHTINGS}, "
            f"got {position_weighting!r}"
        )
    if not 0 <= position_dropout <= 1:
        raise ValueError(
            f"position_dropout must be in [0, 1], got {position_dropout!r}"
        )
    if position_dropout and not encoder_class.accepts_aspect_input:
        raise ValueError(f"encoder={encoder!r} cannot drop words by position")
    if term_query not in TERM_QUERIES:
        raise ValueError(
            f"term_query must be one of {TERM_QUERIES}, got {term_query!r}"
        )
    if not (final_state is True or final_state is False or is_term_state(final_state)):
        raise ValueError(
            f"final_state must be one of {FINAL_STATES}, got {final_state!r}"
        )
    position = uses_position(
        dict(
            position_weighting=position_weighting,
            position_dropout=position_dropout,
            term_marker=term_marker,
            term_query=term_query,
            final_state=final_state,
        )
    )
    if position and aspect_type != "term":
        raise ValueError("the term-position options need aspect_type='term'")
    if variant in ("ae", "atae") and not encoder_class.accepts_aspect_input:
        raise ValueError(
            f"encoder={encoder!r} cannot take the aspect with every word "
            f"(variant={variant!r}); use variant='at'"
        )
    if term_marker and not encoder_class.accepts_aspect_input:
        raise ValueError(f"encoder={encoder!r} cannot take a term marker")
    return position


def _encoder_arguments(
    encoder_class, encoder_config: dict, aspect_size: int, aspect_in_words: bool,
    term_marker: bool,
) -> tuple[dict, int]:  # fmt: skip
    """``(keyword arguments, embedding_dim)``: what ``encoder_class`` is built
    with -- for a word encoder, the aspect vector appended to every word (AE,
    ATAE), the term's 0/1 flag and its embedding table, made here -- and the
    size of the token embeddings a term's aspect vector is made from."""
    config = dict(encoder_config)
    if not encoder_class.accepts_aspect_input:
        return config, aspect_size
    config["aspect_input_size"] = aspect_size if aspect_in_words else 0
    config["marker_size"] = 1 if term_marker else 0
    config["embedding"] = encoder_class.make_embedding(config)
    return config, config["embedding_dim"]
