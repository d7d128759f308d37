"""The LSTM learning from MiniLM (``DistilledClassifier``): students beside the LSTM
defaults and the teacher itself, chosen on validation data.

    ASPECTATTN_DATA=../shared/data OMP_NUM_THREADS=1 \\
        python -m benchmarks distillation --worker 0 --workers 2 &
    ASPECTATTN_DATA=../shared/data OMP_NUM_THREADS=1 \\
        python -m benchmarks distillation --worker 1 --workers 2
    python -m benchmarks distillation --table

Every run trains on the training file less a validation split of 10% of its
*sentences* (:func:`benchmarks.pretrained.validation_split`, seed 0, the same for
every candidate and seed). The teacher is MiniLM-L6 fine-tuned with the
estimator's defaults on that training side (one per data set and seed, cached in
``benchmarks/results/cache/``, git-ignored) and handed to the students fitted,
through :class:`sklearn.frozen.FrozenEstimator`; its probabilities of the pairs
are memoised across candidates (:class:`MemoTeacher`). The students are the LSTM
with its defaults and GloVe 6B 50-d, one change per candidate
(:data:`CANDIDATES`). Scores as :mod:`benchmarks.pretrained`: validation
accuracy, macro-F1, disagreeing pairs and flip probes choose; the test columns
are reported, never used to choose.

Unlabelled pairs (``y = -1``), restaurants only: the aspects of SemEval-2015's and
MAMS's training sentences (categories mapped onto SemEval-2014's, terms as
annotated) without their labels, less every sentence of the training file and of
the test file scored here.

Runs are appended to ``benchmarks/results/distillation.runs.jsonl`` (a rerun
skips finished ones); ``--table`` writes ``distillation.md``
(:mod:`benchmarks.runner`).
"""

from __future__ import annotations

import os
import platform
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator

from aspectattn import AspectAttentionClassifier
from aspectattn.encoders import PretrainedEncoder
from aspectattn.persistence import load as load_model
from aspectattn.persistence import save
from benchmarks.common import (
    COPIES_ONCE,
    JOINED,
    JOINED_DETECTOR,
    RESULTS,
    TEN_PASSES,
    TWENTY_EPOCHS,
    build,
    glove,
    load,
    same_sentence,
)
from benchmarks.pretrained import load_data, minilm, scores, validation_split
from benchmarks.runner import Experiment

CACHE = RESULTS / "cache"

#: Candidate -> the student's settings (None: the teacher itself).
CANDIDATES = {
    "LSTM defaults": {},
    "teacher: MiniLM defaults": None,
    "student (teacher=, defaults)": dict(teacher=True),
    "student, distill_weight 0.9": dict(teacher=True, distill_weight=0.9),
    "student + unlabelled restaurant pairs": dict(teacher=True, unlabelled=True),
    "student + flip copies": dict(teacher=True, augment="flip"),
    # "not" before the opinion word; "not <negative>" labelled by the teacher alone
    "student + negated copies": dict(teacher=True, augment="negate"),
    # the two levers together (restaurant terms)
    "student + unlabelled pairs + flip copies": dict(
        teacher=True, unlabelled=True, augment="flip"
    ),
    # categories: every category of each training sentence that its labels do
    # not name, labelled by the teacher alone (y = -1)
    "student + every category of its sentences": dict(
        teacher=True, all_categories=True
    ),
}
DATA = (
    "restaurant categories",
    "restaurant terms",
    "laptop terms",
    "restaurant detector",
)
SEEDS = (0, 1, 2)
TERMS_ONLY = {
    "student + flip copies",
    "student + negated copies",
    "student + unlabelled pairs + flip copies",
}
#: The detector (SemEval-2014 restaurant sentences, one column per category):
#: its own candidates.
DETECTOR = {
    "LSTM defaults": {},
    "teacher: MiniLM defaults": None,
    "student (teacher=, defaults)": dict(teacher=True),
    "student + unlabelled restaurant sentences": dict(teacher=True, unlabelled=True),
}
CATEGORIES_ONLY = {"student + every category of its sentences"}
#: What the LSTM rows of categories pin of the defaults when they ran.
THEN = {"restaurant categories": JOINED, "restaurant detector": JOINED_DETECTOR}
RESTAURANTS_ONLY = {
    "student + unlabelled restaurant pairs",
    "student + unlabelled pairs + flip copies",
}

#: SemEval-2015 and MAMS categories -> SemEval-2014's (the others are left out).
CATEGORY_MAP = {
    "FOOD#QUALITY": "food",
    "FOOD#STYLE_OPTIONS": "food",
    "FOOD#GENERAL": "food",
    "DRINKS#QUALITY": "food",
    "DRINKS#STYLE_OPTIONS": "food",
    "SERVICE#GENERAL": "service",
    "FOOD#PRICES": "price",
    "DRINKS#PRICES": "price",
    "RESTAURANT#PRICES": "price",
    "AMBIENCE#GENERAL": "ambience",
    "RESTAURANT#GENERAL": "anecdotes/miscellaneous",
    "RESTAURANT#MISCELLANEOUS": "anecdotes/miscellaneous",
    "food": "food",
    "service": "service",
    "staff": "service",
    "price": "price",
    "ambience": "ambience",
    "miscellaneous": "anecdotes/miscellaneous",
}


class MemoTeacher(ClassifierMixin, BaseEstimator):
    """A fitted classifier whose ``predict_proba`` is remembered per pair (the
    students of one data set and seed ask for the same pairs)."""

    def __init__(self, model=None):
        self.model = model

    def fit(self, X, y):
        return self

    def __sklearn_is_fitted__(self):
        return True

    @property
    def classes_(self):
        return self.model.classes_

    def predict_proba(self, X):
        memo = self.__dict__.setdefault("_memo", {})
        keys = [(x[0], x[1], tuple(x[2]) if len(x) > 2 and x[2] else ()) for x in X]
        todo = [k for k, key in enumerate(keys) if key not in memo]
        if todo:
            proba = self.model.predict_proba([X[k] for k in todo])
            memo.update((keys[k], p) for k, p in zip(todo, proba, strict=True))
        return np.stack([memo[key] for key in keys])


def cached_model(path: Path, fit):
    """The model saved at ``path``, fitted by ``fit()`` and saved first when it is
    not there (one worker fits it, the others wait for the file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_suffix(".lock")
    while not path.exists():
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL)
        except FileExistsError:  # another worker fits it
            time.sleep(10)
            continue
        os.close(fd)
        start = time.perf_counter()
        model = fit()
        print(f"{path.name}: {time.perf_counter() - start:.0f} s", flush=True)
        save(model, path)
        lock.unlink()
    return load_model(path)


def teacher_for(data: str, seed: int, X_fit, y_fit, cls=AspectAttentionClassifier):
    """MiniLM fine-tuned with ``cls``'s defaults on the training side of ``data``
    (cached per data set and seed)."""
    return cached_model(
        CACHE / f"teacher-{data.replace(' ', '_')}-{seed}.aam",
        lambda: cls(encoder=PretrainedEncoder(minilm()), random_state=seed).fit(
            X_fit, y_fit
        ),
    )


def unlabelled_pairs(data: str, exclude) -> list:
    """Restaurant pairs with no label (see the module docstring), less the
    sentences of ``exclude``."""
    if data == "restaurant categories":
        sources = [
            load("semeval2015-restaurants-category", "train")[0],
            load("mams-category", "train")[0],
        ]
        pairs = [
            (text, CATEGORY_MAP[a])
            for X in sources
            for text, a in X
            if a in CATEGORY_MAP
        ]
    elif data == "restaurant terms":
        pairs = [
            tuple(x[:2])
            for name in ("semeval2015-restaurants-target", "mams-term")
            for x in load(name, "train")[0]
            if x[1] != "NULL"
        ]
    else:
        return []
    exclude = {same_sentence(text) for text in exclude}
    return sorted({p for p in pairs if same_sentence(p[0]) not in exclude})


def unnamed_categories(X) -> list:
    """``(sentence, category)`` for every category of ``X`` that a sentence's
    pairs do not name."""
    categories = sorted({a for _, a in X})
    named = defaultdict(set)
    for text, a in X:
        named[text].add(a)
    return [(t, c) for t in sorted(named) for c in categories if c not in named[t]]


_TEACHERS: dict = {}


def table_split(texts, Y, fraction=0.1, seed=0):
    """(train, validation) of a table: a share ``fraction`` of the sentences."""
    rng = np.random.default_rng(seed)
    held = set(rng.permutation(len(texts))[: int(round(fraction * len(texts)))])
    valid = np.array([k in held for k in range(len(texts))])
    texts = np.asarray(texts, dtype=object)
    return (
        (texts[~valid].tolist(), Y[~valid].reset_index(drop=True)),
        (texts[valid].tolist(), Y[valid].reset_index(drop=True)),
    )


def detector_scores(clf, texts, Y, prefix: str) -> dict:
    """Detection and end-to-end micro-F1 of the cells; accuracy of the mentioned
    pairs (and of those whose sentence has aspects that disagree)."""
    from aspectattn.estimators.categories import detection_f1, mention_f1
    from benchmarks.common import pair_scores

    Y = Y.reindex(columns=list(clf.categories_), fill_value="none")
    predicted, truth = clf.predict(texts), Y.to_numpy()
    pairs = [
        ((text, c), label)
        for text, row in zip(texts, truth, strict=True)
        for c, label in zip(clf.categories_, row, strict=True)
        if label != "none"
    ]
    X_pairs, y_pairs = [p for p, _ in pairs], [label for _, label in pairs]
    out = pair_scores(clf.predict_sentiment(X_pairs), X_pairs, y_pairs, prefix)
    out[f"{prefix}detection_f1"] = 100 * detection_f1(truth, predicted)
    out[f"{prefix}end_to_end_f1"] = 100 * mention_f1(truth, predicted)
    return out


def unlabelled_sentences(exclude) -> list:
    """SemEval-2015 and MAMS training sentences, less those of ``exclude``."""
    exclude = {same_sentence(text) for text in exclude}
    texts = {
        x[0]
        for name in ("semeval2015-restaurants-category", "mams-category")
        for x in load(name, "train")[0]
    }
    return sorted(t for t in texts if same_sentence(t) not in exclude)


def _record(candidate: str, data: str, seed: int, fit_seconds: float) -> dict:
    """The start of a run's record: what ran, and its fit time."""
    return {
        "candidate": candidate,
        "data": data,
        "seed": seed,
        "fit_seconds": fit_seconds,
        "threads": torch.get_num_threads(),
    }


def run_detector(candidate: str, seed: int) -> dict:
    import pandas as pd

    from aspectattn import AspectCategoryClassifier
    from aspectattn.datasets import fetch_category_table

    texts, Y = fetch_category_table("semeval2014", "train")
    test_texts, Y_test = fetch_category_table("semeval2014", "test")
    (fit_texts, Y_fit), (val_texts, Y_val) = table_split(texts, Y)
    settings = DETECTOR[candidate]
    if settings is None:
        clf = teacher_for("detector", seed, fit_texts, Y_fit, AspectCategoryClassifier)
        fit_seconds = clf.fit_time_
    else:
        settings = {
            **THEN["restaurant detector"],
            **COPIES_ONCE,
            **TWENTY_EPOCHS,
            **settings,
        }
        X_train, Y_train = list(fit_texts), Y_fit
        if settings.pop("teacher", False):
            settings["teacher"] = FrozenEstimator(
                teacher_for(
                    "detector", seed, fit_texts, Y_fit, AspectCategoryClassifier
                )
            )
        if settings.pop("unlabelled", False):
            extra = unlabelled_sentences([*texts, *test_texts])
            X_train += extra
            Y_train = pd.concat(
                [Y_fit, pd.DataFrame(-1, index=range(len(extra)), columns=Y.columns)],
                ignore_index=True,
            )
        start = time.perf_counter()
        clf = build(
            AspectCategoryClassifier, embeddings=glove(), random_state=seed, **settings
        ).fit(X_train, Y_train)
        clf = getattr(clf, "student_", clf)  # a taught model: its student
        fit_seconds = time.perf_counter() - start
    result = _record(candidate, "restaurant detector", seed, fit_seconds)
    result.update(detector_scores(clf, val_texts, Y_val, "val_"))
    result.update(detector_scores(clf, test_texts, Y_test, "test_"))
    return result


def run(candidate: str, data: str, seed: int) -> dict:
    if data == "restaurant detector":
        return run_detector(candidate, seed)
    (X, y), (X_test, y_test) = load_data(data)
    (X_fit, y_fit), (X_val, y_val) = validation_split(X, y)
    is_terms = data.endswith("terms")
    settings = CANDIDATES[candidate]
    if settings is None:
        clf = teacher_for(data, seed, X_fit, y_fit)
        fit_seconds = clf.fit_time_
    else:
        settings = {**THEN.get(data, {}), **settings}
        X_train, y_train = list(X_fit), list(y_fit)
        if settings.pop("teacher", False):
            key = (data, seed)
            if key not in _TEACHERS:
                _TEACHERS.clear()
                model = teacher_for(data, seed, X_fit, y_fit)
                _TEACHERS[key] = FrozenEstimator(MemoTeacher(model))
            settings["teacher"] = _TEACHERS[key]
        if settings.pop("all_categories", False):
            extra = unnamed_categories(X_fit)
            X_train += extra
            y_train += [-1] * len(extra)
        if settings.pop("unlabelled", False):
            seen = [x[0] for x in (*X_fit, *X_val, *X_test)]
            extra = unlabelled_pairs(data, seen)
            X_train += extra
            y_train += [-1] * len(extra)
        start = time.perf_counter()
        clf = build(
            AspectAttentionClassifier,
            embeddings=glove(),
            random_state=seed,
            **{**TWENTY_EPOCHS, **settings},
        ).fit(X_train, y_train)
        clf = getattr(clf, "student_", clf)  # a taught model: its student
        fit_seconds = time.perf_counter() - start
    result = _record(candidate, data, seed, fit_seconds)
    result.update(scores(clf, X_val, y_val, "val_", is_terms))
    result.update(scores(clf, X_test, y_test, "test_", is_terms))
    return result


def jobs():
    """The teachers first (each fitted once), then the students."""
    plan = [
        (c, d, s)
        for c in CANDIDATES
        for d in DATA
        for s in SEEDS
        if d != "restaurant detector"
        and (d.endswith("terms") or c not in TERMS_ONLY)
        and (d.startswith("restaurant") or c not in RESTAURANTS_ONLY)
        and (d == "restaurant categories" or c not in CATEGORIES_ONLY)
    ]
    plan += [(c, "restaurant detector", s) for c in DETECTOR for s in SEEDS]
    settings = {**CANDIDATES, **DETECTOR}
    # students of one teacher in a row: its memoised probabilities serve them
    return sorted(plan, key=lambda j: (settings[j[0]] is not None, j[1], j[2]))


KEYS = [
    ("val_detection_f1", "val detection F1"),
    ("val_end_to_end_f1", "val end-to-end F1"),
    ("val_accuracy", "val acc"),
    ("val_macro_f1", "val F1"),
    ("val_disagree_accuracy", "val disagreeing pairs"),
    ("val_flip_target_accuracy", "val flip: target follows"),
    ("val_flip_others_accuracy", "val flip: others stay"),
    ("test_detection_f1", "test detection F1"),
    ("test_end_to_end_f1", "test end-to-end F1"),
    ("test_accuracy", "test acc"),
    ("test_macro_f1", "test F1"),
    ("test_disagree_accuracy", "test disagreeing pairs"),
    ("test_disagree_sentences_all_right", "test disagreeing sentences all right"),
    ("test_flip_target_accuracy", "test flip: target follows"),
    ("test_flip_others_accuracy", "test flip: others stay"),
    ("fit_seconds", "fit s (1 thread)"),
]


def note() -> str:
    return (
        "Students: the LSTM with its defaults and GloVe 6B 50-d, one change each "
        "(on categories with the joined copies alone and, the detector, mentions "
        "weighted 1: the defaults when they ran); "
        "teacher: MiniLM-L6 with its defaults, fitted on the same training side and "
        "given fitted. Mean ± std over seeds; validation: 10% of the training "
        "sentences (seed 0), never trained on by either; the test columns are "
        "reported, never used to choose. The teacher's fit time is its own fit; a "
        "student's includes the teacher's predictions (memoised across candidates, "
        "so the first student of a seed pays them); the runs shared the 2 cores "
        "(two or three at a time, one thread each), so fit times are rough. "
        "`python -m benchmarks distillation` (see its docstring), "
        f"{platform.machine()}, torch {torch.__version__}."
    )


EXPERIMENT = Experiment(
    "distillation",
    tuple(DATA),
    {**CANDIDATES, **DETECTOR},
    run,
    KEYS,
    note,
    SEEDS,
    jobs(),
    vector_passes=TEN_PASSES,
)

if __name__ == "__main__":
    EXPERIMENT.main()
