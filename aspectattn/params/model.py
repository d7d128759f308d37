"""Parameters of the model: the variant and aspects, word vectors, the aspect
attention, and the aspect-term options."""

from __future__ import annotations

import os
from numbers import Integral, Real

from ..text.languages import LANGUAGE_CODE
from ._constraints import Interval, Matching, StrOptions
from ._core import (
    ATTENTION_SCORES,
    AUGMENTATIONS,
    POSITION_WEIGHTINGS,
    TERM_QUERIES,
    UNSEEN_WORDS,
    VARIANTS,
    Param,
    destined,
)
from .encoders import ENCODERS

PARAMS = [
    Param(
        "variant",
        "at",
        [StrOptions(set(VARIANTS))],
        "pairs",
        "AT: aspect as attention query; AE: aspect with every word; ATAE: both",
        type='{"atae", "at", "ae"}',
        needs=(),
        doc="""\
``"at"``: attention with the aspect as query over an aspect-independent
encoder (one encoder pass serves all aspects of a sentence, in training and
prediction); ``"ae"``: the aspect vector appended to every word, last state
classified; ``"atae"``: both. ``"at"`` is the default: it gets more of the
pairs whose sentence has aspects that disagree, at the accuracy of
``"atae"`` and in half its time (``benchmarks/defaults.py``).""",
    ),
    Param(
        "aspect_type",
        "auto",
        [StrOptions({"auto", "category", "term"})],
        "pairs",
        "aspect categories, terms found in the text, or auto",
        type='{"auto", "category", "term"}',
        needs=(),
        goes="estimator",
        doc="""\
``"category"``: aspects form a closed set (``food``, ``service``...); each
gets a learnable vector, initialised from the word vectors of its name where
they exist; an unseen category at predict time is an error. ``"term"``:
aspects are phrases from the text (``"pasta carbonara"``); ``v_a`` is the
mean of the term's (trainable) word embeddings, so unseen terms work.
``"auto"`` picks ``"term"`` when at least 90% of the training aspects occur
in their text, else ``"category"``; see ``aspect_type_``.""",
    ),
    Param(
        "encoder",
        "lstm",
        [StrOptions(set(ENCODERS))],
        "model",
        "sentence encoder under the aspect attention",
        type='encoder or {"lstm", "transformer", "pretrained"}',
        needs=(),
        doc="""\
The sentence encoder under the aspect attention, with its own parameters:
:class:`~aspectattn.encoders.LSTMEncoder` (Wang et al.'s),
:class:`~aspectattn.encoders.TransformerEncoder` (multi-head self-attention
over the same word vectors) or :class:`~aspectattn.encoders.PretrainedEncoder`
(a Hugging Face checkpoint fine-tuned end to end). A name stands for that
encoder with its defaults. Grid searches reach its parameters as
``encoder__hidden_size`` and so on.""",
    ),
    Param(
        "freeze_embeddings",
        "auto",
        ["boolean", StrOptions({"auto"})],
        "model",
        "keep the word (or sub-word) vectors fixed (auto: only a checkpoint's)",
        type='bool or "auto"',
        needs=(),
        goes="training",
        doc="""\
Keep the word vectors -- or a pretrained checkpoint's sub-word embedding
table -- fixed during training. ``"auto"``: ``True`` with
``encoder="pretrained"`` (validation accuracy unchanged on three data sets,
and no gradient or Adam step for MiniLM's 11.7M table weights every batch:
~10% less time per epoch), else ``False``; see ``resolved_params_``.""",
    ),
    Param(
        "embedding_lr",
        None,
        [None, Interval(Real, 0, None, closed="neither")],
        "model",
        "learning rate of the word vectors (default: lr)",
        type="float or None",
        needs=(),
        goes="training",
        doc="""\
Learning rate of the word vectors (``None``: same as ``lr``). Weight decay
is never applied to them.""",
    ),
    Param(
        "head_lr",
        "auto",
        [None, StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "model",
        "learning rate outside the encoder (auto: 1e-3 for a pretrained one)",
        type='float, None or "auto"',
        needs=(),
        goes="training",
        doc="""\
Learning rate of the parameters outside the encoder -- the aspect vectors,
the attention and the classifier (``None``: same as ``lr``). ``"auto"``:
``1e-3`` with ``encoder="pretrained"`` (they start from random weights, and
at the small ``lr`` that fine-tunes a checkpoint the aspect vectors barely
move: every aspect of a sentence then gets the sentence's tone), else
``None``; see ``resolved_params_``.""",
    ),
    Param(
        "dropout",
        "auto",
        [StrOptions({"auto"}), Interval(Real, 0, 1, closed="left")],
        "model",
        "dropout before the classifier (auto: 0.5, or 0.1 pretrained)",
        type='float or "auto"',
        needs=(),
        doc="""\
Dropout on the final sentence representation. ``"auto"``: 0.5 as in Wang et
al.'s code, or the checkpoint's usual 0.1 with ``encoder="pretrained"``.""",
    ),
    Param(
        "max_len",
        100,
        [Interval(Integral, 1, 1_000_000, closed="both")],
        "model",
        "tokens kept per sentence",
        type="int",
        needs=(),
        doc="""\
Sentences are truncated to their first ``max_len`` tokens.""",
    ),
    Param(
        "embeddings",
        "word2vec",
        [None, str, os.PathLike],
        "words",
        "'word2vec', 'fasttext', a vector file, a gensim-data name, or none for "
        "random vectors",
        type="str, path-like or None",
        needs=("words",),
        doc="""\
Word vectors: ``"word2vec"``/``"fasttext"`` trains them with gensim on the
fitting texts; a path loads word2vec text/binary, GloVe text, gensim
``.kv`` vectors (``.gz`` allowed) or a fastText ``.bin`` (whose character
n-grams give every word of the fitting texts a vector); a gensim-data name such as
``"glove-wiki-gigaword-50"`` downloads them; ``None`` initialises randomly.
Files are loaded once per process and cached. Only the rows of the fitted
vocabulary are kept in the fitted model.""",
    ),
    Param(
        "embedding_dim",
        None,
        [None, Interval(Integral, 1, 100_000, closed="both")],
        "words",
        "size of trained or random vectors (default 100)",
        type="int or None",
        needs=("words",),
        doc="""\
Word-vector size when vectors are trained or random (default 100); must
match the file when vectors are loaded (``None`` takes the file's size).""",
    ),
    Param(
        "aspect_size",
        None,
        [None, Interval(Integral, 1, 100_000, closed="both")],
        "words",
        "size of the aspect vector v_a",
        type="int or None",
        needs=("words",),
        doc="""\
Size of ``v_a``; ``None`` uses the word-vector size, or the encoder
states' size for the single-head ``"dot"`` form (so that ``v_a`` itself
is the query).""",
    ),
    Param(
        "embedding_dropout",
        0.5,
        [Interval(Real, 0, 1, closed="left")],
        "words",
        "dropout on word vectors",
        type="float",
        needs=("words",),
        doc="""\
Dropout on the word vectors entering the LSTM. (The authors' code has none;
with 50-d GloVe it improves validation accuracy on SemEval-2014, see
``benchmarks/select_config.py``.)""",
    ),
    Param(
        "lowercase",
        True,
        ["boolean"],
        "words",
        "lower-case the text",
        type="bool",
        needs=("words",),
        doc="""\
Lower-case text before tokenizing.""",
    ),
    Param(
        "language",
        "auto",
        [
            None,
            StrOptions({"auto"}),
            Matching(LANGUAGE_CODE, ("en", "fr", "ru", "tr"), "an ISO 639 code"),
        ],
        "words",
        "language of the text: an ISO 639 code, none, or auto",
        type='str, "auto" or None',
        needs=("words",),
        doc="""\
The text's language, for the tokenizer: an ISO 639 code (``"en"``,
``"tr"``...). English splits contractions into clitics (``"don't"`` ->
``"do"``, ``"n't"``), as English word vectors have them; other languages keep a
word's inner apostrophes (``"l'addition"``); Turkish and Azerbaijani lower-case
``I`` to ``ı``. ``None``: no language's rules. ``"auto"``: ``"en"`` when the
fitting texts look English (their share of English function words), else
``None``; see ``resolved_params_``.""",
    ),
    Param(
        "min_count",
        1,
        [Interval(Integral, 1, None, closed="left")],
        "words",
        "words seen fewer times are unknown",
        type="int",
        needs=("words",),
        doc="""\
Words seen fewer times in the training texts map to the unknown token.""",
    ),
    Param(
        "extra_vocabulary",
        0,
        [Interval(Integral, 0, None, closed="left")],
        "words",
        "keep the vectors of this many frequent words the training text lacks",
        type="int",
        needs=("words", "vector_file"),
        doc="""\
With pretrained word vectors (a file or name in ``embeddings``): the words
among the first ``extra_vocabulary`` of the vectors (their most frequent
words; only lower-case ones with ``lowercase=True``) that the training
texts lack join the vocabulary with their pretrained vectors, so that a
word first met at prediction time is read as its vector instead of as the
unknown token. Training never updates those rows (no training word uses
them). The model grows by ``extra_vocabulary x dim`` floats at most (20 MB
for the 100,000 50-d GloVe words).""",
    ),
    Param(
        "unseen_words",
        "auto",
        [None, StrOptions({"auto", *UNSEEN_WORDS})],
        "words",
        "read a word training never saw as the nearest known word by n-grams",
        type='{"auto", "spelling", "vectors"} or None',
        needs=("words",),
        doc="""\
How a word the vocabulary lacks is read at prediction time -- in Russian or
Turkish most inflections are such words. ``"spelling"``: as the vocabulary
word with the most similar character n-grams (3- to 6-grams, weighted by
their rarity; cosine at least 0.45), e.g. ``креветкой`` as ``креветки``, so
it gets that word's trained embedding; it needs nothing beyond the
vocabulary. ``"vectors"``: the same by fastText's n-gram vectors, with
``embeddings="fasttext"`` or a fastText ``.bin`` (the model keeps the
n-gram vectors its vocabulary uses, at most 16 MB as float16). ``None``:
the unknown token. ``"auto"``: ``"vectors"`` with ``embeddings="fasttext"``,
else ``"spelling"``; see ``resolved_params_`` and
:mod:`aspectattn.text.ngrams`.""",
    ),
    Param(
        "attention_score",
        "additive",
        [StrOptions(set(ATTENTION_SCORES))],
        "attention",
        "how the aspect vector scores the encoder states",
        type='{"additive", "dot", "general", "scaled_dot", "concat"}',
        needs=("attention",),
        doc="""\
How ``v_a`` scores the encoder states ``h_i`` (:mod:`aspectattn.nn.attention`):
``"additive"`` ``w^T tanh(W_h h_i + W_v v_a)`` (Bahdanau); ``"dot"``
``<v_a, h_i>``; ``"general"`` ``h_i^T W_a v_a`` (Luong); ``"scaled_dot"``
``softmax(q K^T / sqrt(d)) V`` with keys and values ``tanh(H W)``;
``"concat"`` the formula printed in the paper, where the aspect cancels in
the softmax (AT then ignores the aspect).""",
    ),
    Param(
        "attention_heads",
        1,
        [Interval(Integral, 1, 1024, closed="both")],
        "attention",
        "aspect-attention heads",
        type="int",
        needs=("attention",),
        doc="""\
Several queries per aspect, each its own projection of ``v_a`` over a
``1/m`` slice of the projected states; the pooled vectors are
concatenated and projected back. Must divide the encoder's state size.
``explain`` then returns weights per head.""",
    ),
    Param(
        "final_state",
        "auto",
        ["boolean", StrOptions({"term", "auto"})],
        "attention",
        "what joins the aspect's attention pooling: the encoder's final state, "
        "its summary of the term, or nothing",
        type='{"auto", True, False, "term"}',
        needs=("attention",),
        doc="""\
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
tone); see ``resolved_params_``.""",
    ),
    Param(
        "position_weighting",
        "auto",
        [StrOptions({*POSITION_WEIGHTINGS, "auto"})],
        "terms",
        "aspect terms: weigh words near the term more in the attention",
        type='{"auto", "none", "linear", "learned"}',
        needs=("attention", "terms"),
        doc="""\
Aspect terms only. ``"linear"``: the attention weight of token ``i`` is
proportional to ``w_i exp(e_i)`` with ``w_i = 1 - d_i / n``, ``d_i`` its
distance in tokens from the term (0 on the term) and ``n`` the sentence
length: nearer words weigh more (the location weighting of Tang et al.
2016 and Chen et al. 2017, as a prior on the attention). ``"learned"``:
proportional to ``exp(e_i + b_d)`` with one learned bias ``b_d`` per
distance ``d`` up to 16 (farther tokens share one), started at 0: the
model learns how fast attention falls off away from the term. ``"auto"``:
``"linear"``.""",
    ),
    Param(
        "term_marker",
        False,
        ["boolean"],
        "terms",
        "aspect terms: flag the term's tokens in the encoder input",
        type="bool",
        needs=("words", "terms"),
        doc="""\
Aspect terms only, LSTM and transformer encoders: append a 0/1 flag to
every input word, 1 on the term's tokens. The encoder then sees the aspect,
so each pair is its own encoder pass.""",
    ),
    Param(
        "term_query",
        "vectors",
        [StrOptions(set(TERM_QUERIES))],
        "terms",
        "aspect terms: query with the term's word vectors, its encoder states, or both",
        type='{"vectors", "states", "both"}',
        needs=("attention", "terms"),
        doc="""\
Aspect terms only: what queries the encoder states. ``"vectors"``: ``v_a``,
the mean of the term's word vectors (Wang et al.); ``"states"``: the mean of
the encoder states over the term's tokens, projected to the size of
``v_a``; ``"both"``: their sum. With the pretrained encoder, the states are
those of the term's sub-words.
The three term-position options need to know where the term is: give its
character span as a pair's third item ``(text, term, (start, end))`` or as
``start``/``end`` columns of a DataFrame; without one the term is found in
the text (its first whole-word occurrence, ignoring case). A term that is
not in its text is then an error.""",
    ),
    Param(
        "augment",
        "auto",
        [None, StrOptions({*AUGMENTATIONS, "auto"})],
        "model",
        "also train on sentences joined from two of opposite polarity (join), or, "
        "for aspect terms, on copies with one opinion flipped (flip)",
        type='{"auto", None, "flip", "join", "flip+join", "negate"}',
        needs=(),
        goes="estimator",
        doc="""\
Add training data made from the training sentences, so that the model learns
to follow each aspect rather than the sentence's overall tone. ``"join"``:
each sentence whose aspects are all positive (or all negative) joined with a
random one of the opposite polarity that shares none of its aspects,
``"<one>, but <other>"``, every aspect keeping its label (categories:
:func:`aspectattn.augment.join_categories`, the detector's table:
:func:`~aspectattn.augment.join_table`, terms:
:func:`~aspectattn.augment.join_pairs`). ``"flip"`` (aspect terms only): for
each positive or negative term, a copy of its sentence in which the opinion
word nearest to the term (and nearer to it than to any other term) is
replaced by its antonym, with the term's label reversed and the other terms'
labels kept (:func:`aspectattn.augment.flip_opinions`). ``"negate"`` (aspect
terms, English): the same copies with ``"not"`` put before the opinion word
instead; the rule is sure of a negated positive opinion only, so a negated
negative one ("not awful") is labelled by the ``teacher`` alone, and left out
without one. A copy trains only
when all its source sentences are on the training side of the validation
split, and copies are never scored in validation (the validation scores of
settings with and without copies are taken on the same sentences). Needs
the labels ``"positive"`` and ``"negative"``. ``"auto"``, with those labels:
``"join"`` for aspect categories; for English aspect terms ``"flip+join"``
with the LSTM and a pretrained encoder (chosen on validation by accuracy,
then robustness: :data:`~aspectattn.params.TERM_COPIES`), none with the
transformer (not measured) or in other languages (the copies reverse English
opinion words); without those labels, none. See ``resolved_params_``.""",
    ),
    Param(
        "antonyms",
        None,
        [None, dict],
        "terms",
        "the word -> antonym map of augment='flip'",
        type="dict or None",
        needs=("terms",),
        goes="estimator",
        doc="""\
The opinion words ``augment="flip"`` swaps, lower-case word -> antonym;
``None`` uses :data:`aspectattn.augment.OPINION_ANTONYMS`.""",
    ),
]

#: Where each parameter goes that does not say: the model config.
PARAMS = destined(PARAMS, "model")
