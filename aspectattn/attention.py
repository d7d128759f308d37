"""The aspect attention of the attention estimators, as a component.

:class:`AspectAttention` is passed whole as ``attention=`` to
:class:`~aspectattn.AspectAttentionClassifier` and
:class:`~aspectattn.AspectCategoryClassifier`: how the aspect's vector ``v_a``
queries the encoder states, how many queries it makes, what joins the pooled
vector before it is classified and, for aspect terms, where the term is. Grid
searches reach its parameters by prefix::

    clf = AspectAttentionClassifier(attention=AspectAttention(score="dot", heads=2))
    GridSearchCV(clf, {"attention__score": ["dot", "general"]})

A score's name stands for the attention with that score and the other defaults
(``attention="dot"``); ``set_params(attention__heads=2)`` on a name makes it the
component first. This module imports no torch: the modules it describes are in
:mod:`aspectattn.nn.attention`.
"""

from __future__ import annotations

from numbers import Integral, Real

from .params._constraints import Interval, StrOptions
from .params._core import ATTENTION_SCORES, POSITION_WEIGHTINGS, TERM_QUERIES
from .params.components import Component

__all__ = [
    "AspectAttention",
    "ATTENTION_SCORES",
    "attention_component",
    "attention_constraints",
]


class AspectAttention(Component):
    """Aspect attention after Wang et al. (2016): the aspect's vector ``v_a``
    scores the encoder states ``H``, ``alpha = softmax(score(H, v_a))`` pools them
    into ``r``, and ``h* = tanh(W_p r [+ W_x h_N])`` is classified.

    Parameters
    ----------
    score : {"additive", "dot", "general", "scaled_dot", "concat"}, \
default="additive"
        How ``v_a`` scores the encoder states ``h_i`` (:mod:`aspectattn.nn.attention`):
        ``"additive"`` ``w^T tanh(W_h h_i + W_v v_a)`` (Bahdanau); ``"dot"``
        ``<v_a, h_i>``; ``"general"`` ``h_i^T W_a v_a`` (Luong); ``"scaled_dot"``
        ``softmax(q K^T / sqrt(d)) V`` with keys and values ``tanh(H W)``;
        ``"concat"`` the formula printed in the paper, where the aspect cancels in
        the softmax (AT then ignores the aspect).
    heads : int, default=1
        Several queries per aspect, each its own projection of ``v_a`` over a
        ``1/m`` slice of the projected states; the pooled vectors are
        concatenated and projected back. Must divide the encoder's state size.
        ``explain`` then returns weights per head.
    final_state : {"auto", True, False, "term"}, default="auto"
        Whether the classified vector ``h* = tanh(W_p r + W_x h_N)`` takes the
        encoder's final state ``h_N`` besides the attention pooling ``r`` (Wang
        et al.). With ``variant="at"`` the encoder does not see the aspect, so
        ``h_N`` is the same for every aspect of a sentence and carries its
        overall tone; ``False`` classifies ``h* = tanh(W_p r)``, what the aspect's
        attention picked out, alone. ``"term"`` (aspect terms only) puts the
        encoder's summary of the term in place of ``h_N``: for the LSTM, the
        forward state at the term's last token and, with ``bidirectional=True``,
        the backward state at its first -- TD-LSTM's two readings of the sentence
        up to the term (Tang et al., 2016), taken from the one encoder pass that
        every term of the sentence shares; for the transformer and pretrained
        encoders, the mean of the term's states. Unused by ``variant="ae"``.
        ``"auto"``: ``"term"`` for aspect terms, ``False`` for categories (the
        category's attention alone; ``h_N`` pulls every aspect of a sentence to its
        tone); the estimator's ``resolved_params_`` says which.
    position_weighting : {"auto", "none", "linear", "learned"}, default="auto"
        Aspect terms only (the pair classifier). ``"linear"``: the attention
        weight of token ``i`` is proportional to ``w_i exp(e_i)`` with
        ``w_i = 1 - d_i / n``, ``d_i`` its distance in tokens from the term (0 on
        the term) and ``n`` the sentence length: nearer words weigh more (the
        location weighting of Tang et al. 2016 and Chen et al. 2017, as a prior
        on the attention). ``"learned"``: proportional to ``exp(e_i + b_d)`` with
        one learned bias ``b_d`` per distance ``d`` up to 16 (farther tokens
        share one), started at 0: the model learns how fast attention falls off
        away from the term. ``"auto"``: the encoder's recipe for aspect terms:
        ``"learned"`` for the LSTM (chosen on validation by accuracy, then
        robustness, ``benchmarks/behaviour.py``), ``"linear"`` for the
        transformer and pretrained encoders (not measured with the rule).
    position_dropout : float, default=0.0
        Aspect terms and word encoders (the LSTM, the transformer), in training
        only: the position-bias dropout of Ma et al. (2021). Each pair's encoder
        reads its own copy of its sentence, in which a word at distance ``d_i``
        from the term is dropped (read as a zero vector) with probability
        ``position_dropout * d_i / n`` (``1 - w_i`` of the linear weighting
        above, times the rate); the term's words are kept. ``1.0`` is Ma et al.'s
        rate. Training then encodes every pair, not every sentence, once;
        prediction is unchanged (one pass per sentence).
    term_query : {"vectors", "states", "both"}, default="vectors"
        Aspect terms only (the pair classifier): what queries the encoder
        states. ``"vectors"``: ``v_a``, the mean of the term's word vectors (Wang
        et al.); ``"states"``: the mean of the encoder states over the term's
        tokens, projected to the size of ``v_a``; ``"both"``: their sum. With the
        pretrained encoder, the states are those of the term's sub-words.

    See Also
    --------
    aspectattn.encoders : The encoders whose states the attention pools.

    Examples
    --------
    >>> from aspectattn import AspectAttentionClassifier
    >>> from aspectattn.attention import AspectAttention
    >>> clf = AspectAttentionClassifier(attention=AspectAttention(score="dot"))
    >>> clf.get_params()["attention__score"]
    'dot'
    """

    slot = "attention"
    _parameter_constraints = {
        "score": [StrOptions(set(ATTENTION_SCORES))],
        "heads": [Interval(Integral, 1, 1024, closed="both")],
        "final_state": ["boolean", StrOptions({"term", "auto"})],
        "position_weighting": [StrOptions({*POSITION_WEIGHTINGS, "auto"})],
        "position_dropout": [Interval(Real, 0, 1, closed="both")],
        "term_query": [StrOptions(set(TERM_QUERIES))],
    }
    # (an attention layer: every variant but AE; aspect terms; word encoders)
    _needs = {
        "score": ("attention",),
        "heads": ("attention",),
        "final_state": ("attention",),
        "position_weighting": ("attention", "terms"),
        "position_dropout": ("words", "terms"),
        "term_query": ("attention", "terms"),
    }

    def __init__(
        self,
        *,
        score="additive",
        heads=1,
        final_state="auto",
        position_weighting="auto",
        position_dropout=0.0,
        term_query="vectors",
    ):
        self.score = score
        self.heads = heads
        self.final_state = final_state
        self.position_weighting = position_weighting
        self.position_dropout = position_dropout
        self.term_query = term_query

    def _short(self):
        if self.get_params() == AspectAttention(score=self.score).get_params():
            return self.score  # the score's name stands for the rest
        return None


def attention_component(attention) -> AspectAttention:
    """The component ``attention`` (a component or a score's name) stands for: a
    name gives the attention with that score and the other defaults."""
    if isinstance(attention, AspectAttention):
        return attention
    if attention not in ATTENTION_SCORES:
        raise ValueError(
            "attention must be an AspectAttention or one of "
            f"{sorted(ATTENTION_SCORES)}; got {str(attention)[:80]!r}."
        )
    return AspectAttention(score=attention)


def attention_constraints() -> list:
    """The constraints of an estimator's ``attention``: a score's name or the
    component."""
    return [StrOptions(set(ATTENTION_SCORES)), AspectAttention]
