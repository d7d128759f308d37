"""What the LSTM's own word vectors are trained on: the defaults as they were
trained them (``embeddings="word2vec"``: 100-d skip-gram, 10 passes) on every
row the fit trains on, the copies that ``augment`` makes included; the first
candidate trains them on the sentences as written (the given rows, and the
unlabelled ones a teacher labels), not on the copies; the second, added after,
on every row for 30 passes. By this benchmark the estimators' own vectors now
make 30 passes (:data:`aspectattn.params.VECTOR_PASSES`).

    ASPECTATTN_DATA=../shared/data NLTK_DATA=../shared/data/nltk_data \\
        OMP_NUM_THREADS=1 python -m benchmarks own_vectors \\
        [--workers N --worker I] [--candidates ...] [--seeds 0 1 2]
    ASPECTATTN_DATA=../shared/data python -m benchmarks own_vectors --table
    ASPECTATTN_DATA=../shared/data NLTK_DATA=../shared/data/nltk_data \\
        OMP_NUM_THREADS=1 python -m benchmarks own_vectors --detector \\
        [--workers N --worker I] [--table]
    ASPECTATTN_DATA=../shared/data NLTK_DATA=../shared/data/nltk_data \\
        OMP_NUM_THREADS=1 python -m benchmarks own_vectors --category-pairs \\
        [--workers N --worker I] [--table]

Why: a flipped copy puts an opinion word's antonym in the opinion word's own
context ("The pasta was great" -> "The pasta was terrible"), a negated copy
puts "not" before it, a joined copy repeats two sentences. Those are what the
classifier should learn from, and they are what word2vec should not: skip-gram
learns a word from its contexts, and the copies give "great" and "terrible"
the same ones. Trained with the copies on SemEval-2014's restaurant terms
(seed 0, the 90% the runs fit on), "terrible" is the word nearest to "great"
(cosine 0.87; "good"/"bad" 0.85); trained on the given sentences, 0.52 and
0.70, and the nearest to "great" are "setting", "speedy", "value", "casual".
The embeddings are trained with the model either way; what changes is where
they start, and the words the labelled pairs seldom show keep most of it.
Issue 63 asks the fast tier for accuracy (its own vectors: 72.9 / 64.0 on the
restaurant / laptop test sides, the targets 76 / 66), and the behaviour table
measured the gap the vectors make (GloVe 6B 50-d: 76.3 / 66.3 without copies,
its own 72.5 / 63.8).

Added after those two had run, when the sentences as written -- a third to a
fourth of the rows -- had lost 1.5 points of validation accuracy on the
restaurant terms and 4-6 on the pair classifier of categories (a fit's own
vectors gain from more text, even the copies'): the vectors of every row
trained for 30 passes instead of 10 (gensim's ``epochs``; each candidate's
fits read its passes patched in for :data:`aspectattn.params.VECTOR_PASSES`,
so every row stays what it measured), on all three models. The
detector's runs of the sentences as written were not made (stopped before any
had finished, on those two results).

Each run fits ``AspectAttentionClassifier(random_state=seed)`` (the defaults:
flipped, joined and negated copies, the learned prior, 30 epochs; the
candidate's vectors) with one seed
on the 90% of a data set's training sentences that :mod:`benchmarks.behaviour`
fits on and scores as :mod:`benchmarks.lstm_training` scores: on the other 10%
(**validation**, what chooses) accuracy, the ARS of the ARTS-style probes and
the negation probes of every form; on the test side and the suite
(**reported**, chooses nothing). The sentences as written are not a library
setting: their fits train the vectors on :func:`written_texts` (patched in for
:func:`aspectattn.engine.building.vector_texts`).

``--detector``: the same for the LSTM detector's defaults
(``AspectCategoryClassifier()``: flipped, joined and negated copies, 30
epochs), scored as :mod:`benchmarks.lstm_training` scores it, on its
validation (category, polarity) micro-F1, ARS and negation-probe micro-F1.
``--category-pairs``: the same three for the LSTM pair classifier of categories
(its flipped and joined copies, 20 epochs), scored as there, its negation
probes in every form.

The rule, stated before the runs, is :mod:`benchmarks.lstm_training`'s
(:func:`benchmarks.negation.rule`): among the candidates whose mean validation
accuracy (the detector: micro-F1) is on each data set at most one point below
the most accurate candidate's there, and whose validation ARS averaged over
the data sets is at most one point below the best, the one whose validation
negation probes are answered best, averaged over the data sets; if none is
within both bounds, the defaults stay. Each model's table marks its choice.
The own vectors are one setting of the word encoders, whatever model reads
them: stated after the pair classifier's runs with 30 passes, before any of
the detector's or the terms' had finished, the library's passes change only
if the rule chooses 30 passes for all three models; else 10 stay.

What they chose: 30 passes, on all three. The sentences as written lose on
every model (1.5 and 0.6 points of validation accuracy on restaurant and
laptop terms, 6.2 and 4.2 on the pair classifier of categories): at a few
thousand sentences more text, the copies' too, starts the vectors better than
text that keeps antonyms apart. 30 passes gain 2.3 and 4.3 points of validation
accuracy on terms, 2.0 and 2.5 of the detector's micro-F1, and level the pair
classifier's (which the rule takes for its negation probes, within its
bounds); on the test side, which chooses nothing, they are level on terms
(71.9 / 63.6 against 72.8 / 63.4) and the detector gains 1.3 / 0.8 points of
micro-F1.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple
from unittest import mock

import numpy as np

from aspectattn import AspectAttentionClassifier, AspectCategoryClassifier, params
from aspectattn.engine import building
from benchmarks.behaviour import (
    DATA,
    DETECTOR_DATA,
    SEEDS,
)
from benchmarks.copy_weight import detector_run_of, term_run
from benchmarks.lstm_training import PAIR_KEYS, pair_run
from benchmarks.negation import DETECTOR_KEYS, KEYS, rule
from benchmarks.runner import Experiment, main_of


def written_texts(data) -> list[str]:
    """``data``'s texts as written: its given rows and the unlabelled rows a
    teacher labels (source ``-1``), not the copies ``augment`` made (a source
    ``>= 0``: the given rows each was made from)."""
    if data.source is None:
        return list(data.texts)
    source = np.asarray(data.source).reshape(len(data.source), -1)  # (n_new, k)
    made = (source >= 0).any(axis=1)  # (n_new,)
    rest = data.texts[data.n_given :]
    return [
        *data.texts[: data.n_given],
        *(t for t, m in zip(rest, made, strict=True) if not m),
    ]


@contextlib.contextmanager
def vectors_trained(written: bool, passes: int):
    """Meanwhile, the word encoders' own vectors are trained on
    :func:`written_texts` (``written``) or on every row (the library's), for
    ``passes`` passes (:data:`aspectattn.params.VECTOR_PASSES`)."""
    with contextlib.ExitStack() as stack:
        if written:
            stack.enter_context(
                mock.patch.object(building, "vector_texts", written_texts)
            )
        stack.enter_context(mock.patch.object(params, "VECTOR_PASSES", passes))
        yield


#: Candidate -> (its own vectors trained on the sentences as written, the
#: passes over their texts). The third was added after the first two had run.
CANDIDATES = {
    "LSTM: own vectors of every row, copies included, 10 passes "
    "(the defaults before)": (False, 10),
    "LSTM: own vectors of the sentences as written, 10 passes": (True, 10),
    "LSTM: own vectors of every row, 30 passes": (False, 30),
}


def run(candidate: str, data: str, seed: int) -> dict:
    clf = AspectAttentionClassifier(random_state=seed)
    during = vectors_trained(*CANDIDATES[candidate])
    return term_run(clf, candidate, data, seed, during=during)


#: What every note ends with: the rule.
RULE = (
    "Chosen (in bold): among the candidates whose validation {accuracy} is on "
    "each data set at most one point below the best candidate's and whose "
    "validation ARS is at most one point below the best, the one with {negation}, "
    "averaged over the data sets; else the defaults. "
    "The test columns and the suite choose nothing."
)


class LSTMModel(NamedTuple):
    """What an LSTM model's experiments under :data:`RULE` share: its data sets
    and columns, the validation keys the rule reads, and their words in the
    notes (the rule's, and a confirmation's)."""

    data: tuple
    keys: list
    accuracy: str
    negation: str
    accuracy_words: str
    negation_words: str
    confirm_words: str


TERMS = LSTMModel(
    DATA, KEYS, "valid_accuracy", "valid_negated", "accuracy",
    "the most validation negation probes right",
    "more validation negation probes right",
)  # fmt: skip
DETECTOR = LSTMModel(
    DETECTOR_DATA, DETECTOR_KEYS, "valid_f1", "valid_negated_f1", "micro-F1",
    "the best validation negation F1", "a better validation negation F1",
)  # fmt: skip
PAIRS = LSTMModel(
    DETECTOR_DATA, PAIR_KEYS, "valid_accuracy", "valid_negated_every", "accuracy",
    "the most validation negation probes right (every form)",
    "more validation negation probes right (every form)",
)  # fmt: skip


def lstm_experiment(
    model, name, candidates, run, note, after="", keys=None, seeds=SEEDS
):
    """An experiment on ``model`` (:data:`TERMS`, :data:`DETECTOR` or
    :data:`PAIRS`) under :data:`RULE`, on 3 ``seeds``: ``note``, then the rule
    in the model's words, then ``after``; ``keys``: the columns (the model's)."""
    words = dict(accuracy=model.accuracy_words, negation=model.negation_words)
    return Experiment(
        name, model.data, candidates, run, keys or model.keys,
        note + RULE.format(**words) + after, seeds,
        choose=rule(model.data, candidates, model.accuracy, model.negation),
    )  # fmt: skip


#: The seeds of a confirmation: new ones, the candidate found on :data:`SEEDS`.
CONFIRM_SEEDS = (3, 4, 5)
#: What a confirmation's note ends with: the rule, its bounds counted from the
#: defaults (the first candidate).
CONFIRM_RULE = (
    "Chosen (in bold), by a rule stated before these runs, its bound counted "
    "from the defaults: {candidate} if its validation {accuracy} is on each "
    "data set at most one point below the defaults', its validation ARS "
    "averaged over the data sets at most one point below theirs and it has "
    "{negation}; else the defaults. The test columns and the suite choose nothing."
)


def confirmation(model, name, candidates, run, note, candidate, keys=None):
    """The defaults (the first of ``candidates``) and ``candidate`` (its words
    in the note) of ``model`` on :data:`CONFIRM_SEEDS`, under
    :data:`CONFIRM_RULE`."""
    words = dict(
        candidate=candidate,
        accuracy=model.accuracy_words,
        negation=model.confirm_words,
    )
    defaults = next(iter(candidates))
    return Experiment(
        name, model.data, candidates, run, keys or model.keys,
        note + CONFIRM_RULE.format(**words), CONFIRM_SEEDS,
        choose=rule(
            model.data, candidates, model.accuracy, model.negation, anchor=defaults
        ),
    )  # fmt: skip


NOTE = (
    "Mean ± std over 3 seeds, the LSTM's defaults for aspect terms (flipped, "
    "joined and negated copies, the learned position prior, 30 epochs), its own "
    "word2vec vectors trained on every row the fit trains on for 10 passes (the "
    "defaults before), on the sentences as written, or on every row for 30 passes "
    "(added after the other two had run), one thread each on a 2-core CPU. "
    "Validation: "
    "10% of the training sentences, as in the behaviour table; the negation "
    "probes as in the negation table. "
)
EXPERIMENT = lstm_experiment(TERMS, "own_vectors", CANDIDATES, run, NOTE)


# ------------------------------------------------------------- the detector
#: The sentences as written were not run here: they had lost on the terms and,
#: by 4-6 points of validation accuracy, on the pair classifier of categories.
DETECTOR_CANDIDATES = {
    "LSTM detector: own vectors of every row, copies included, 10 passes "
    "(the defaults before)": (False, 10),
    "LSTM detector: own vectors of every row, 30 passes": (False, 30),
}


def detector_run(candidate: str, data: str, seed: int) -> dict:
    """One seed of the LSTM detector's defaults, its vectors trained as the
    candidate says, scored as :func:`benchmarks.negation.detector_run` scores."""
    detector = AspectCategoryClassifier(random_state=seed)
    during = vectors_trained(*DETECTOR_CANDIDATES[candidate])
    return detector_run_of(detector, candidate, data, seed, during)


DETECTOR_NOTE = (
    "The LSTM detector's defaults (AspectCategoryClassifier(): flipped, joined "
    "and negated copies counted twice, mentioned cells weighted 2, 30 epochs), "
    "its own word2vec vectors trained on every row for 10 passes (the "
    "defaults before) or 30 (added after the pair classifier's runs), mean ± "
    "std over 3 seeds, one thread each on a 2-core CPU; the columns as in the "
    "detector's negation table. "
)
DETECTOR_EXPERIMENT = lstm_experiment(
    DETECTOR, "own_vectors_detector", DETECTOR_CANDIDATES, detector_run, DETECTOR_NOTE
)


# ----------------------------------------- the pair classifier of categories
PAIR_CANDIDATES = {
    "LSTM pair classifier of categories: own vectors of every row, copies "
    "included, 10 passes (the defaults before)": (False, 10),
    "LSTM pair classifier of categories: own vectors of the sentences as "
    "written, 10 passes": (True, 10),
    "LSTM pair classifier of categories: own vectors of every row, 30 passes": (
        False,
        30,
    ),
}


def category_pair_run(candidate: str, data: str, seed: int) -> dict:
    """One seed of the LSTM pair classifier's defaults on the pairs of a
    category table's training side, its vectors trained as the candidate says,
    scored as :func:`benchmarks.lstm_training.category_pair_run` scores."""
    clf = AspectAttentionClassifier(random_state=seed)
    during = vectors_trained(*PAIR_CANDIDATES[candidate])
    return pair_run(clf, candidate, data, seed, during=during)


PAIR_NOTE = (
    "The LSTM pair classifier of categories (AspectAttentionClassifier(): AT, "
    "flipped and joined copies, 20 epochs), its own word2vec vectors trained "
    "on every row for 10 passes (the defaults before), on the sentences as "
    "written, or "
    "on every row for 30 passes (added after the other two had run), trained on "
    "the pairs of the detector's split, mean ± std over 3 seeds, one thread each "
    "on a 2-core CPU; the columns as in lstm_training's table of the pair "
    "classifier (the negation probes also in every form). "
)
PAIR_EXPERIMENT = lstm_experiment(
    PAIRS, "own_vectors_category_pairs", PAIR_CANDIDATES, category_pair_run, PAIR_NOTE
)


if __name__ == "__main__":
    main_of(
        EXPERIMENT,
        __doc__.splitlines()[0],
        detector=DETECTOR_EXPERIMENT,
        category_pairs=PAIR_EXPERIMENT,
    )
