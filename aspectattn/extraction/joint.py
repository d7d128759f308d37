"""The joint aspect-sentiment model: sentences in, each aspect term with its
polarity out, from one encoder pass per sentence.

The tagger of :class:`~aspectattn.AspectTermExtractor` (an LSTM over word
vectors and characters, or a pretrained checkpoint fine-tuned end to end) with a
second head on the same states: each term -- a gold one in training, a found
one in prediction -- queries its sentence through the aspect attention of the
design (:class:`~aspectattn.nn.joint.TermPolarity`). Both heads train together
on ``(start, end, polarity)`` triples; the epoch kept is the one with the best
end-to-end F1 on a validation share of the sentences.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import torch
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import augment as augment_module
from .. import params as P
from .._validation import _is_unlabelled, check_texts
from ..encoders import encoder_component
from ..engine.distillation import (
    _checked_proba,
    check_teaching,
    fitted_teacher,
    soften,
    teacher_targets,
)
from ..estimators._base import AUGMENT_STREAM
from ..exceptions import AspectAttnWarning, InputError
from ..nn.joint import JointTagger
from ..params._constraints import Interval
from ..persistence import register
from ..text.spans import term_tokens
from ..text.tokens import EncodedTexts
from ._nets import IGNORE, JointDataset, JointNet, ValidJointF1
from .aspects import AspectNames, check_aspect_names
from .extractor import SpanTagger, _TagProba, token_tags
from .inputs import SubwordInputs, padded_batch
from .metrics import check_spans
from .reading import (
    GivenTerms,
    TermsEndToEnd,
    given_terms_proba,
    read_terms,
    tag_batches,
    with_polarities,
)
from .words import TAGS, read_proba

__all__ = ["AspectSentimentExtractor"]


def _unlabelled(y) -> tuple:
    """``(y, marks)``: ``y`` as a list (as given where it is no sequence:
    ``check_spans`` names what it should be) and which of its entries mark a
    sentence nobody labelled: ``None``, ``-1`` or NaN (scikit-learn's marks, as
    the classifiers read them)."""
    if isinstance(y, (str, bytes)) or not hasattr(y, "__iter__"):
        return y, np.zeros(0, dtype=bool)
    values = list(y)
    return values, np.fromiter(map(_is_unlabelled, values), bool, count=len(values))


def _teacher_tags(teacher, texts, teaching, name: str) -> list:
    """Per text, the teacher's tokens' character spans and their tag
    probabilities softened at the temperature, or None where the teacher does
    not give them (its terms alone then teach the tags)."""
    read = getattr(teacher, "_token_tag_proba", None)
    if read is None or not texts:
        return [None] * len(texts)
    out = []
    for offsets, proba in read(texts):
        proba = _checked_proba(proba, (len(offsets), len(TAGS)), name)
        out.append((offsets, soften(proba, teaching.temperature).astype(np.float32)))
    return out


def _aligned_tags(offsets: np.ndarray, given) -> np.ndarray:
    """The teacher's tag probabilities of the student's tokens (``offsets``,
    (n, 2)): each word's is the teacher's token that starts where it does (a
    word's first sub-word piece), NaN where none does (or ``given`` is None)."""
    out = np.full((len(offsets), len(TAGS)), np.nan, dtype=np.float32)
    if given is None or not len(given[0]):
        return out
    starts, proba = given[0][:, 0], given[1]
    order = np.argsort(starts, kind="stable")
    starts, proba = starts[order], proba[order]
    at = np.minimum(np.searchsorted(starts, offsets[:, 0]), len(starts) - 1)
    hit = (starts[at] == offsets[:, 0]) & (offsets[:, 1] > offsets[:, 0])
    out[hit] = proba[at[hit]]
    return out


#: The label of a term whose opinions disagree (SemEval's): it trains the tags
#: only, as no single polarity is its answer.
CONFLICT = "conflict"
#: The copies ``augment`` can make (``"auto"``: the encoder's recipe's
#: ``tagger_copies`` for English with the labels "positive" and "negative", none
#: otherwise: the copies reverse English opinion words and join with English
#: connectives).
AUGMENTATIONS = ("flip", "join", "flip+join", "negate", "flip+join+negate")


@register
class AspectSentimentExtractor(TermsEndToEnd, SpanTagger):
    """Find the aspect terms of sentences and tell each one's polarity, in one
    encoder pass per sentence.

    One encoder reads each sentence once: a linear layer tags its tokens (the
    first of a term, a later one, no term's) and each term found queries the
    same states through the design's aspect attention, the term as the query
    ``v_a`` (with a learned bias for each word's distance from it), for its
    polarity. Both heads train together, through skorch; the epoch kept is the
    one with the best end-to-end F1 (a term counts when its span and its
    polarity are right) on ``validation_fraction`` of the sentences.

    Use it where :class:`~aspectattn.AspectSentimentPipeline` would run an
    extractor and a classifier in series: one model to train, to ship and to
    run, and each sentence encoded once instead of twice. The pipeline stays for
    parts trained apart (say, a classifier trained on more pairs than there are
    sentences with spans).

    Parameters
    ----------
    encoder : LSTMEncoder, PretrainedEncoder or {"lstm", "pretrained"}, \
            default="lstm"
        As :class:`~aspectattn.AspectTermExtractor` takes it: a bidirectional
        LSTM over word vectors and characters (fast; ``hidden_size`` ``"auto"``
        is 100 units per direction), or a pretrained checkpoint fine-tuned end
        to end (better, slower).
    characters : bool, default=True
        With the LSTM: read each word's characters too.
    dropout, lr, batch_size, max_epochs : "auto" or a value
        The encoder's recipe where ``"auto"``, as
        :class:`~aspectattn.AspectTermExtractor`'s
        (its ``tagger`` in :data:`aspectattn.params.ENCODERS`).
    early_stopping : bool or EarlyStopping, default=True
        As :class:`~aspectattn.AspectTermExtractor` takes it: stop after its
        ``patience`` epochs without a better validation score and keep the best
        epoch (``False``: every epoch, the last one kept).
    polarity_weight : float, default=1.0
        The weight of the polarities' cross-entropy beside the tags' in the
        loss.
    augment : {"auto", "flip", "join", "flip+join", "negate", "flip+join+negate"} \
            or None, default="auto"
        Train on copies of the training sentences too, as the classifiers do
        (:mod:`aspectattn.augment`): ``"flip"``, each with the opinion word next
        to one term swapped for its antonym (that term's polarity reversed, the
        others' kept); ``"join"``, two sentences whose terms disagree joined
        into one ("..., but ..."); ``"negate"``, that word negated instead
        (the forms of :data:`~aspectattn.augment.COPY_NEGATIONS`; the term's
        polarity reversed, as SemEval's annotators label negated opinions). Copies
        never enter the validation share.
        ``"auto"``: ``"flip+join"`` for English (``language_``) with the labels
        "positive" and "negative", else none.
    validation_fraction : float, default=0.1
        Share of the sentences held out to choose the epoch.
    decoding : {"auto", "greedy", "viterbi", "crf"}, default="auto"
        How the tags are read (see :class:`~aspectattn.AspectTermExtractor`;
        ``"auto"``: ``"viterbi"`` with the LSTM, chosen on validation over a
        CRF, which found terms and their polarities as well but read the
        given terms' polarities less robustly; ``"greedy"`` with a pretrained
        encoder, the recipe's ``joint_decoding``). The epoch is chosen on the
        tags read this way (against the greedy tags: the same validation
        ARS, end-to-end F1 a twentieth of a point higher); a fitted model
        reads them as ``decoding`` says when predicting.
    aspect_names : dict of str to str or None, default=None
        For :meth:`analyze` (the review report): a term's aspect where the
        grouping of :mod:`aspectattn.extraction.aspects` does not group it.
    language : str, "auto" or None, default="auto"
        The tokenizer's language (see :class:`~aspectattn.AspectTermExtractor`).
    device : str, default="auto"
        ``"auto"``: CUDA when available, else the CPU.
    quantize : {None, "int8", "bfloat16"}, default=None
        How predictions run, terms and polarities alike; set on a fitted or
        loaded model too (see :class:`~aspectattn.AspectTermExtractor`).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the vectors, the split, the weights and the batch order, without
        touching any global random state.
    verbose : int, default=0

    Attributes
    ----------
    classes_ : ndarray
        The polarities, as ``y`` names them (``"conflict"`` is not one).
    module_ : torch.nn.Module
        The trained model (:class:`~aspectattn.nn.joint.JointTagger`).
    language_ : str or None
    inputs_ : WordInputs or SubwordInputs
    resolved_params_ : dict
        What the ``"auto"`` settings stood for, the language among them.
    best_epoch_ : int
    history_ : list of dict
        Per epoch: ``train_loss``, ``valid_loss``, ``valid_f1`` (end to end),
        ``valid_span_f1`` (the terms alone).

    See Also
    --------
    AspectSentimentPipeline : an extractor and a classifier trained apart.

    Examples
    --------
    >>> from aspectattn import AspectSentimentExtractor
    >>> texts = ["The pasta was great.", "Our waiter was rude.", "What a day!"] * 10
    >>> y = [[(4, 9, "positive")], [(4, 10, "negative")], []] * 10
    >>> model = AspectSentimentExtractor(lr=0.01, max_epochs=20, random_state=0)
    >>> [found] = model.fit(texts, y).predict(["The pasta was great."])
    >>> [(t["term"], t["polarity"]) for t in found]
    [('pasta', 'positive')]
    """

    _parameter_constraints: dict = {
        **SpanTagger._parameter_constraints,
        "polarity_weight": [Interval(Real, 0, None, closed="neither")],
        "augment": [None, StrOptions({"auto", *AUGMENTATIONS})],
        "aspect_names": [None, dict],
    }
    _NET = JointNet
    _SCORING = ValidJointF1
    _HISTORY = (
        "epoch",
        "train_loss",
        "valid_loss",
        "valid_f1",
        "valid_span_f1",
        "valid_score",
    )
    _STATE_KEYS = SpanTagger._STATE_KEYS | {"classes_"}
    _TAGGER = "tagger."
    _EPOCH_ON = None  # (the epoch chosen on the tags it reads)
    _AUTO_DECODING = "joint_decoding"

    def __init__(
        self,
        *,
        encoder="lstm",
        characters=True,
        dropout="auto",
        lr="auto",
        batch_size="auto",
        max_epochs="auto",
        early_stopping=True,
        polarity_weight=1.0,
        augment="auto",
        validation_fraction=0.1,
        decoding="auto",
        aspect_names=None,
        language="auto",
        device="auto",
        quantize=None,
        random_state=None,
        verbose=0,
    ):
        self.encoder = encoder
        self.characters = characters
        self.dropout = dropout
        self.lr = lr
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.early_stopping = early_stopping
        self.polarity_weight = polarity_weight
        self.augment = augment
        self.validation_fraction = validation_fraction
        self.decoding = decoding
        self.aspect_names = aspect_names
        self.language = language
        self.device = device
        self.quantize = quantize
        self.random_state = random_state
        self.verbose = verbose

    # -- fit --------------------------------------------------------------------
    def fit(self, X, y, teaching=None):
        """Learn to find the terms of ``X`` and their polarities.

        Parameters
        ----------
        X : sequence of str
            Sentences (a review split into sentences trains best).
        y : sequence of sequences of (start, end, polarity)
            Each sentence's terms (an empty list for a sentence without any).
            Terms labelled ``"conflict"`` train the tags only. With a teacher,
            ``None`` (or ``-1``) marks a sentence nobody labelled.
        teaching : Teaching or None, default=None
            A teacher (a joint model, fitted, or fitted here on the labelled
            training sentences): the terms it finds in the unlabelled sentences
            are their tags, its tag probabilities of the training sentences'
            words and its polarities of their terms (the labelled ones' and
            those it finds) train the model beside the labels, ``(1 - weight) *
            CE + weight * T**2 * KL`` (what it alone says, the KL alone). The
            validation sentences are labelled ones, never taught.

        Returns
        -------
        self
        """
        self._validate_params()  # (sklearn's messages first)
        check_aspect_names(self.aspect_names)
        return self._fit(X, y, check_teaching(teaching))

    def _check_y(self, y, texts, teaching):
        """Each text's terms (none for an unlabelled one) and which are labelled;
        the classes."""
        y, marks = _unlabelled(y)
        if marks.any() and teaching is None:
            raise InputError(
                f"y marks {int(marks.sum())} sentences unlabelled (None or -1); "
                "they train only with a teacher: fit(X, y, teaching=Teaching("
                "teacher))."
            )
        if len(marks) and marks.all():
            raise InputError("y has no labelled sentence: a teacher needs some.")
        if len(marks) == len(texts):  # (else check_spans names the lengths)
            y = [[] if mark else terms for mark, terms in zip(marks, y, strict=True)]
        spans = check_spans(y, texts)
        if any(len(s) != 3 for terms in spans for s in terms):
            raise InputError(
                "y must give each term's polarity: (start, end, polarity) triples "
                "(AspectTermExtractor learns from spans alone)."
            )
        labels = [s[2] for terms in spans for s in terms if s[2] != CONFLICT]
        if not labels:
            raise InputError("y has no term with a polarity to learn.")
        self.classes_ = np.unique(np.asarray(labels))
        if len(self.classes_) < 2:
            raise InputError(
                f"y's terms have one polarity ({self.classes_[0]!r}): telling "
                "polarities apart needs at least two."
            )
        return spans, ~marks

    def _taught(self, texts, spans, labelled, held, teaching) -> tuple[list, list]:
        """The unlabelled sentences' terms as the teacher finds them (polarity
        None: they learn it from the teacher alone), and per training sentence
        what the teacher says of it (None for a validation sentence):
        ``{"polarity": (n_i, C) its softened polarities of the sentence's
        terms, "tags": (its tokens' character spans (n, 2), their softened tag
        probabilities (n, K))}``."""
        name = type(self).__name__
        train = np.flatnonzero(labelled & ~held)
        teacher = fitted_teacher(
            teaching.teacher,
            [texts[i] for i in train],
            [spans[i] for i in train],
            name,
        )
        for method in ("predict", "given_terms"):
            if not callable(getattr(teacher, method, None)):
                raise InputError(
                    f"The teacher of {name} must be a joint aspect-sentiment model "
                    f"(AspectSentimentExtractor or its ONNX export); a "
                    f"{type(teacher).__name__} has no {method}."
                )
        spans = list(spans)
        unlabelled = np.flatnonzero(~labelled)
        if len(unlabelled):
            read = [texts[i] for i in unlabelled]
            try:  # the teacher's spans, checked as y's are
                found = check_spans(
                    [[t["span"] for t in terms] for terms in teacher.predict(read)],
                    read,
                )
            except (InputError, KeyError, TypeError) as error:
                raise InputError(
                    f"The teacher of {name} gave terms that are not spans of the "
                    f"unlabelled sentences: {error}"
                ) from None
            for i, terms in zip(unlabelled, found, strict=True):
                spans[i] = [(*span[:2], None) for span in terms]
        taught = np.flatnonzero(~held)
        pairs = [
            (texts[i], texts[i][start:end], (start, end))
            for i in taught
            for start, end, _ in spans[i]
        ]
        soft: list = [None] * len(texts)
        proba = np.zeros((0, len(self.classes_)), dtype=np.float32)
        if pairs:
            proba = teacher_targets(  # (P, C), the student's classes' order
                teacher.given_terms(), pairs, self.classes_, teaching.temperature, name
            )
        tags = _teacher_tags(teacher, [texts[i] for i in taught], teaching, name)
        at = 0
        for k, i in enumerate(taught):
            soft[i] = {"polarity": proba[at : at + len(spans[i])], "tags": tags[k]}
            at += len(spans[i])
        return spans, soft

    def _recipe(self, encoder) -> dict:
        """The extractor's recipe, and the copies ``augment`` stands for."""
        resolved = super()._recipe(encoder)
        if hasattr(self, "classes_"):  # (a model file's: set with its classes)
            resolved["augment"] = self._resolved_augment()
        return resolved

    def _resolved_augment(self) -> str | None:
        has_labels = {"positive", "negative"} <= set(map(str, self.classes_.tolist()))
        if self.augment != "auto":
            if self.augment is not None and not has_labels:
                raise InputError(
                    f"augment={self.augment!r} makes terms labelled 'positive' and "
                    f"'negative'; y's labels are {self.classes_.tolist()!r}."
                )
            return self.augment
        if not (has_labels and self.language_ == "en"):
            return None
        return P.ENCODERS[encoder_component(self.encoder).kind].recipe.tagger_copies

    def _copies(self, texts, spans, train, seed: int) -> tuple[list, list]:
        """Flipped, negated and joined copies of the ``train`` sentences (see
        ``augment``), each with all its terms; none equal to a given sentence."""
        augment = self.resolved_params_["augment"]
        if augment is None:
            return [], []
        rows = [  # every term of the training sentences
            (texts[i], texts[i][start:end], (start, end), label)
            for i in np.flatnonzero(train)
            for start, end, label in spans[i]
        ]
        columns = (
            tuple(list(column) for column in zip(*rows, strict=True)) or ([],) * 4
        )  # texts, terms, spans, labels
        made = []
        if "flip" in augment:
            made += augment_module.flip_pairs(*columns, "positive", "negative")[:2]
        if "negate" in augment:
            made += augment_module.flip_pairs(
                *columns, "positive", "negative", negate=True
            )[:2]
        if "join" in augment:
            rng = np.random.default_rng([seed, AUGMENT_STREAM])
            X, y, _ = augment_module.join_pairs(
                *columns, "positive", "negative", random_state=rng
            )
            made += [X, y]
        sentences: dict[str, dict] = {}
        given = set(texts)
        for X, y in zip(made[::2], made[1::2], strict=True):
            for (text, _, (start, end)), label in zip(X, y, strict=True):
                if text not in given:
                    sentences.setdefault(text, {})[start, end] = label
        if not sentences and self.augment != "auto":
            warnings.warn(
                f"augment={augment!r} in {type(self).__name__} made no new sentence "
                "(no opinion word next to a term to flip or negate, no sentences "
                "of opposite polarity to join); training on the given ones only.",
                AspectAttnWarning,
                stacklevel=4,
            )
        return list(sentences), [
            sorted((a, b, label) for (a, b), label in terms.items())
            for terms in sentences.values()
        ]

    def _dataset(self, texts, encoded, spans, soft=None) -> JointDataset:
        """Each token's tag, and each term's first and last token and class
        (and, taught, the teacher's polarities and tags: NaN where it gave
        none)."""
        tags = token_tags(texts, encoded, spans)
        terms, teacher, teacher_tags = [], [], []
        width = len(self.classes_)
        for k, (offsets, found) in enumerate(zip(encoded.offsets, spans, strict=True)):
            given = None if soft is None else soft[k]
            if soft is not None:
                teacher_tags.append(
                    _aligned_tags(offsets, None if given is None else given["tags"])
                )
            rows, kept = [], []
            for j, (start, end, polarity) in enumerate(found):
                places = term_tokens(offsets, start, end)
                if places is not None:
                    label = IGNORE
                    if polarity is not None and polarity != CONFLICT:
                        label = int(np.searchsorted(self.classes_, polarity))
                    rows.append((*places, label))
                    kept.append(j)
            terms.append(np.asarray(rows, dtype=np.int64).reshape(-1, 3))
            rows = np.full((len(kept), width), np.nan, dtype=np.float32)
            if given is not None:
                rows[:] = given["polarity"][kept]
            teacher.append(rows)
        if soft is None:
            return JointDataset(encoded, EncodedTexts.from_lists(tags), terms)
        return JointDataset(
            encoded, EncodedTexts.from_lists(tags), terms, teacher, teacher_tags
        )

    def _module(self, build):
        """The joint model: the tagger ``build`` makes, with a polarity head."""
        dropout = self.resolved_params_["dropout"]
        return _JointBuild(build, len(self.classes_), dropout)

    def _loss_settings(self, teaching) -> dict:
        """The polarities' share of the loss (:class:`JointNet`); taught, the
        teacher's share and temperature."""
        settings = {"polarity_weight": self.polarity_weight}
        if teaching is not None:
            settings.update(
                distill_weight=teaching.weight, temperature=teaching.temperature
            )
        return settings

    # -- predict ----------------------------------------------------------------
    def predict(self, X) -> list[list[dict]]:
        """Each sentence's terms with their polarities.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        list of list of dict
            Per sentence, in text order: ``{"span": (start, end), "term": str,
            "polarity": label, "probability": float, "score": float}`` --
            ``probability`` the polarity's, ``score`` the span's (the mean over
            its tokens of their probability of being in a term), as
            :meth:`AspectSentimentPipeline.predict` gives them.
        """
        return with_polarities(self._read(X, polarity=True), self.classes_)

    def predict_spans(self, X) -> list[list[dict]]:
        """Each text's terms with their span scores, as
        :meth:`AspectTermExtractor.predict_spans` gives them (the polarity head
        is not run): the joint model as a pipeline's extractor."""
        return self._read(X, polarity=False)

    def _token_tag_proba(self, texts: list[str]) -> list[tuple]:
        """Per text, its tokens' character spans (n, 2) and tag probabilities
        (n, K), in the tags' order (:data:`~aspectattn.extraction.words.TAGS`):
        what a student learns its tags from (special tokens left out)."""
        check_is_fitted(self, "module_")
        encoded = self.inputs_.encode(texts)
        out = [(np.zeros((0, 2), np.int64), np.zeros((0, len(TAGS))))] * len(texts)
        reading = self._reading()
        with self._predicting(_JointProba) as run:
            for index, keep, proba in tag_batches(
                encoded, run, self.module_.batch_tokens
            ):
                proba = read_proba(proba, keep.sum(1), **reading)  # (n_tokens, K)
                per_text = np.split(proba, np.cumsum(keep.sum(1))[:-1])
                for i, text_proba in zip(index, per_text, strict=True):
                    offsets = encoded.offsets[i]
                    out[i] = (offsets[offsets[:, 1] > offsets[:, 0]], text_proba)
        return out

    def _read(self, X, polarity: bool) -> list[list[dict]]:
        check_is_fitted(self, "module_")
        texts = check_texts(X, "X")
        with self._predicting(_JointProba) as proba:
            return read_terms(
                texts,
                self.inputs_.encode(texts),
                proba,
                whole_words=isinstance(self.inputs_, SubwordInputs),
                language=self.language_,
                max_tokens=self.module_.batch_tokens,
                term_proba=proba.terms if polarity else None,
                **self._reading(),
            )

    def predict_polarity_proba(self, X) -> np.ndarray:
        """The polarities' probabilities of given terms, each sentence encoded
        once however many of its terms ``X`` holds.

        Parameters
        ----------
        X : sequence of (text, term) pairs or (text, term, (start, end)) triples
            As :class:`~aspectattn.AspectAttentionClassifier` reads terms: a
            term without its span is read where it first occurs in its text.

        Returns
        -------
        ndarray of shape (n_pairs, n_classes)
            Columns in the order of :attr:`classes_`.
        """
        check_is_fitted(self, "module_")
        with self._predicting(_JointProba) as proba:
            return given_terms_proba(
                X,
                self.inputs_,
                len(self.classes_),
                proba.given,
                self.module_.batch_tokens,
            )

    def predict_polarity(self, X) -> np.ndarray:
        """The polarity of given terms (see :meth:`predict_polarity_proba`)."""
        return self.classes_[self.predict_polarity_proba(X).argmax(axis=1)]

    def given_terms(self) -> GivenTerms:
        """The fitted model as a classifier of given terms (``predict`` and
        ``predict_proba`` of pairs, ``classes_``): what
        :func:`~aspectattn.evaluation.score_behaviour` and
        :func:`~aspectattn.evaluation.aspect_robustness_score` score."""
        check_is_fitted(self, "module_")
        return GivenTerms(self)

    def _aspect_names(self) -> AspectNames:
        check_aspect_names(self.aspect_names)
        check_is_fitted(self, "module_")
        return AspectNames(self.aspect_names, self.language_)

    # -- the model file ---------------------------------------------------------
    def _fitted_state(self) -> dict:
        check_aspect_names(self.aspect_names)  # (a file load would refuse)
        return {**super()._fitted_state(), "classes_": self.classes_.tolist()}

    def _saved_module(self, build, state: dict, tensors: dict):
        """The joint model around the tagger ``build``: its classes the
        state's, as many as the polarity head's rows."""
        check_aspect_names(self.aspect_names)
        classes = state["classes_"]
        if (
            not isinstance(classes, list)
            or len(classes) < 2
            or len({type(c) for c in classes}) != 1
            or not all(isinstance(c, (str, int)) and c is not True for c in classes)
            or len(set(classes)) != len(classes)
            or classes != sorted(classes)
        ):
            raise ValueError(
                "classes_ must be 2 or more sorted, distinct strings or ints"
            )
        weight = tensors.get("polarity.classes.weight")
        if not isinstance(weight, torch.Tensor) or weight.shape[:1] != (len(classes),):
            raise ValueError("the polarity head does not match classes_")
        self.classes_ = np.asarray(classes)
        self.resolved_params_["augment"] = self._resolved_augment()
        return _JointBuild(build, len(classes), self.resolved_params_["dropout"])


class _JointProba(_TagProba):
    """The joint model in torch as :func:`~aspectattn.extraction.reading.read_terms`
    calls it: a padded batch (numpy) to its tag probabilities (B, T, K), then
    (``terms``) the batch's found terms to their polarities' (n, C), from the
    states of that same pass; and (``given``) as
    :func:`~aspectattn.extraction.reading.given_terms_proba` runs it."""

    states = lengths = None

    def _read_states(self, inputs: dict) -> None:
        self.states = self._states(inputs)  # (B, T, D)
        self.lengths = inputs["lengths"]

    def _logits(self, inputs: dict) -> torch.Tensor:
        self._read_states(inputs)
        return self.module.tag_logits(self.states)  # (B, T, K)

    def terms(self, terms: np.ndarray) -> np.ndarray:
        """The polarities' probabilities (n, C) of ``terms`` (n, 3) in the batch
        read last."""
        with torch.inference_mode():
            logits = self.module.polarity_logits(
                self.states, self.lengths, torch.from_numpy(terms).to(self.device)
            )
            return logits.float().softmax(-1).cpu().numpy()  # (n, C)

    def given(self, encoded, index, terms) -> np.ndarray:
        """The texts ``index`` of ``encoded`` read once (no tags), then their
        given ``terms`` (P, 3)."""
        with torch.inference_mode():
            self._read_states(self._inputs(*padded_batch(encoded, index)))
        return self.terms(terms)


class _JointBuild:
    """The joint model's constructor: the tagger's, and the polarity head's size
    (a plain object: no closure)."""

    def __init__(self, tagger, n_classes: int, dropout: float):
        self.tagger, self.n_classes, self.dropout = tagger, n_classes, dropout

    def __call__(self) -> JointTagger:
        return JointTagger(
            tagger=self.tagger(), n_classes=self.n_classes, dropout=self.dropout
        )
