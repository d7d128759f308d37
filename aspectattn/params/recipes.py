"""The encoder registry: each encoder's torch class, the groups of settings it
reads and its recipe (what the estimators' ``"auto"`` settings stand for with it,
:func:`aspectattn.params.resolve_auto` reads it). Its parameters are its
component's (:mod:`aspectattn.encoders`)."""

from __future__ import annotations

from ._core import SCRATCH_RECIPE, EncoderEntry, Recipe

#: Name -> encoder. Adding an encoder: its module in :mod:`aspectattn.nn.encoders`,
#: its entry here (with its recipe), and its component in
#: :mod:`aspectattn.encoders`.
ENCODERS = {
    "lstm": EncoderEntry(
        "aspectattn.nn.encoders.lstm:LSTMEncoder",
        ("words", "lstm"),
        "LSTM",
        # flipped, joined and negated copies of English terms and a position
        # prior learned per distance from the term: chosen on validation by
        # accuracy, then robustness, with its own word vectors; for English
        # categories flipped and joined copies (the pair classifier) and
        # flipped, joined and negated ones with the mentioned cells weighted 2
        # (the detector), by the same rule (benchmarks/behaviour.py
        # --category-pairs, --detector); the detector's English copies
        # counted twice in the loss by the same rule (benchmarks/copy_weight.py
        # --detector; the term copies' weight stays 1 by it)
        Recipe(
            SCRATCH_RECIPE.training,
            term_copies="flip+join+negate",
            category_copies="flip+join",
            detector_copies="flip+join+negate",
            mention_weight=2.0,
            detector_copy_weight=2.0,
            term_position="learned",
            # 30 epochs for aspect terms and the detector (the last kept; their
            # copies' reading is learned late), by the same rule against the
            # constant rate's 20, a decayed rate, label smoothing and (terms)
            # the epoch chosen on held-out sentences (benchmarks/
            # lstm_training.py, --detector); the pair classifier's categories
            # keep 20 by it (--category-pairs)
            term_max_epochs=30,
            detector_max_epochs=30,
            # no word dropout: 0.25 lost on the laptop terms' validation
            # accuracy, and the categories', chosen on seeds 0-2, were not
            # confirmed on new seeds (benchmarks/word_dropout.py)
            term_word_dropout=0.0,
            category_word_dropout=0.0,
            # the span taggers: Adam at 1e-3, at most 50 epochs with patience 5;
            # the extractor a CRF, the joint model read with Viterbi, each
            # chosen on validation (benchmarks/decoding.py: Viterbi in the
            # first round, then a CRF beside each one's default)
            tagger=dict(
                dropout=0.5,
                lr=1e-3,
                batch_size=32,
                max_epochs=50,
                patience=5,
                optimizer="adam",
                weight_decay=0.0,
                lr_schedule="constant",
            ),
            extractor_decoding="crf",
            joint_decoding="viterbi",
            tagger_copies="flip+join",
        ),
    ),
    "transformer": EncoderEntry(
        "aspectattn.nn.encoders.transformer:TransformerEncoder",
        ("words", "transformer"),
        "transformer",
        SCRATCH_RECIPE,  # its copies, mention weight and prior were not measured
    ),
    "pretrained": EncoderEntry(
        "aspectattn.nn.encoders.pretrained:PretrainedEncoder",
        ("pretrained",),
        "pretrained",
        # A checkpoint fine-tuned end to end, BERT's recipe: a small rate with
        # warm-up and linear decay, batches of 24, a few epochs (the rate, epochs
        # and schedule chosen on validation, benchmarks/pretrained.py); the
        # aspect vectors, attention and classifier at 1e-3 (MiniLM, MAMS-ACSA
        # validation: 67.1 -> 74.0 at seed 0); for English terms the copies as
        # the LSTM's, the term also as a second segment (chosen on validation by
        # accuracy, then robustness, benchmarks/behaviour.py); bfloat16 where
        # the device computes it; the detector's mention weight not measured (1).
        Recipe(
            dict(
                freeze_embeddings=True,
                lr=5e-5,
                batch_size=24,
                max_epochs=4,
                patience=2,
                dropout=0.1,
                lr_schedule="linear",
            ),
            head_lr=1e-3,
            term_copies="flip+join+negate",
            term_input="pair",
            bfloat16=True,
            # the span taggers: AdamW at 5e-5 with warm-up and linear decay, at
            # most 8 epochs with patience 3; greedy decoding (Viterbi not
            # measured with it)
            tagger=dict(
                dropout=0.1,
                lr=5e-5,
                batch_size=16,
                max_epochs=8,
                patience=3,
                optimizer="adamw",
                weight_decay=0.01,
                lr_schedule="linear",
            ),
            tagger_copies="flip+join",
        ),
    ),
}

#: ``hidden_size="auto"`` in the attention estimators: Wang et al.'s LSTM size.
LSTM_SIZE = 300
#: Passes over the fitting texts when a word encoder trains its own word vectors
#: (``embeddings="word2vec"`` or ``"fasttext"``): every row the fit trains on,
#: the copies included, 30 times, chosen on validation against gensim's 10 for
#: the term classifier, the detector and the pair classifier of categories
#: (``benchmarks/own_vectors.py``) and for the span taggers, the extractor and
#: the joint model (``benchmarks/decoding.py``, its third round), and for the
#: baselines' pooled vectors (``benchmarks/baselines.py --own-vectors``, on
#: cross-validation) alike: a few thousand sentences and their copies are
#: little text.
VECTOR_PASSES = 30
#: ``hidden_size="auto"`` in the span taggers (the extractor, the joint model):
#: on validation as accurate as the classifiers' 300 (exact-span F1 68.8 against
#: 69.1, laptops and restaurants, 3 seeds) and 2.7 times faster to predict
#: (``benchmarks/extraction.py``).
TAGGER_LSTM_SIZE = 100
