"""Shared fixtures: a synthetic aspect-dependent data set and the shared data folder."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from aspectattn.encoders import LSTMEncoder, TransformerEncoder

SHARED_DATA = Path(
    os.environ.get(
        "ASPECTATTN_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"
    )
).resolve()  # absolute: subprocesses of the tests run in other folders
GLOVE = SHARED_DATA / "glove" / "glove.6B.50d.100k.txt.gz"

FOOD = ["pasta", "pizza", "sushi", "soup", "steak", "salad"]
SERVICE = ["waiter", "staff", "waitress", "host", "manager", "bartender"]
GOOD = ["great", "delicious", "lovely", "excellent", "superb", "wonderful"]
BAD = ["awful", "rude", "terrible", "bland", "horrible", "slow"]


def make_pairs(n_sentences: int, seed: int = 0, single_share: float = 0.0):
    """Sentences praising one aspect and criticising the other, in random order.

    ``"the pasta was great but the waiter was rude"`` is positive for ``food`` and
    negative for ``service``: the label depends on the aspect, so a model that
    ignores the aspect cannot score above about 50% on these.

    A share ``single_share`` of the sentences mention one aspect only (``"the pasta
    was great."``), as most real review sentences do.
    """
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n_sentences):
        food, staff = rng.choice(FOOD), rng.choice(SERVICE)
        food_good = bool(rng.integers(2))
        fa = rng.choice(GOOD if food_good else BAD)
        sa = rng.choice(BAD if food_good else GOOD)
        food_label, staff_label = (
            ("positive", "negative") if food_good else ("negative", "positive")
        )
        if rng.random() < single_share:
            if rng.integers(2):
                X.append((f"the {food} was {fa}.", "food"))
                y.append(food_label)
            else:
                X.append((f"the {staff} was {sa}.", "service"))
                y.append(staff_label)
            continue
        clauses = [f"the {food} was {fa}", f"the {staff} was {sa}"]
        if rng.integers(2):
            clauses.reverse()
        text = f"{clauses[0]} but {clauses[1]}."
        X += [(text, "food"), (text, "service")]
        y += [food_label, staff_label]
    return X, y


@pytest.fixture
def one_torch_thread():
    """This process computes with one torch thread during the test, as a worker
    or a fresh process with OMP_NUM_THREADS=1 does: the same floating-point
    operations in the same order (the thread count is restored after)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def pairs():
    return make_pairs(200, seed=0, single_share=0.4)


@pytest.fixture(scope="session")
def test_pairs():
    return make_pairs(60, seed=1)


def random_batch(lengths, seed=0, vocab_size=30):
    """Random word ids (B, T) right-padded with 0 to the longest of ``lengths``."""
    import torch

    g = torch.Generator().manual_seed(seed)
    lengths = torch.tensor(lengths)
    tokens = torch.randint(
        2, vocab_size, (len(lengths), int(lengths.max())), generator=g
    )
    tokens[torch.arange(tokens.shape[1])[None, :] >= lengths[:, None]] = 0
    return tokens, lengths


def spy_on_batches(monkeypatch, module) -> list:
    """Record ``(rows, longest, max_tokens)`` of every batch that ``module``'s
    ``length_sorted_batches`` cuts from now on (the list returned fills up)."""
    seen, cut = [], module.length_sorted_batches

    def spy(lengths, batch_size, groups=None, max_tokens=None):
        batches = cut(lengths, batch_size, groups, max_tokens)
        seen.extend((len(b), lengths[b].max(), max_tokens) for b in batches)
        return batches

    monkeypatch.setattr(module, "length_sorted_batches", spy)
    return seen


def spy_on_training_data(monkeypatch, cls) -> list:
    """Record the training data (copies included) of every fit of ``cls`` from
    now on (the list returned fills up)."""
    seen, build = [], cls._training_dataset

    def recording(self, pipeline, module_config, data):
        seen.append(data)
        return build(self, pipeline, module_config, data)

    monkeypatch.setattr(cls, "_training_dataset", recording)
    return seen


def requires_shared_data(*relative):
    missing = [r for r in relative if not (SHARED_DATA / r).exists()]
    return pytest.mark.skipif(bool(missing), reason=f"shared data missing: {missing}")


# Small, fast settings used by most estimator tests: a few epochs, enough for the
# contract, the plumbing and the round trips.
def lstm(**params) -> LSTMEncoder:
    """The tests' LSTM: 24 units over random 16-d word vectors (no gensim
    training where it is not what is tested), ``params`` changed."""
    return LSTMEncoder(
        **{"embeddings": None, "embedding_dim": 16, "hidden_size": 24, **params}
    )


def transformer(**params) -> TransformerEncoder:
    """The tests' transformer: one layer of width 24, two heads, over random 16-d
    word vectors, ``params`` changed."""
    return TransformerEncoder(
        **{
            "embeddings": None,
            "embedding_dim": 16,
            "d_model": 24,
            "n_heads": 2,
            "n_layers": 1,
            **params,
        }
    )


#: The checks of sklearn.utils.estimator_checks that apply to estimators of text
#: (the others fit numeric arrays, which these estimators refuse by design).
TEXT_INPUT_CHECKS = [
    "check_param_validation",
    "check_parameters_default_constructible",
    "check_no_attributes_set_in_init",
    "check_get_params_invariance",
    "check_set_params",
    "check_estimator_repr",
    "check_estimator_cloneable",
    "check_estimator_tags_renamed",
    "check_valid_tag_types",
    "check_mixin_order",
    "check_estimator_sparse_tag",
    "check_estimators_unfitted",
]


def settings(estimator) -> dict:
    """Every parameter of ``estimator``, a component's as ``name__param`` only
    (components, as scikit-learn's estimators, compare by identity)."""
    from sklearn.base import BaseEstimator

    return {
        k: v
        for k, v in estimator.get_params().items()
        if not isinstance(v, BaseEstimator)
    }


# Small and quick, and without training copies (``augment="auto"`` gives a
# detector flipped, joined and negated copies of the synthetic sentences, three
# times the training): the tests of the copies and of the defaults set their own.
FAST = dict(
    encoder=lstm(),
    augment=None,
    max_epochs=8,
    lr=0.01,
    batch_size=16,
    dropout=0.0,
    random_state=0,
)
# The same, trained long enough to learn the synthetic rules: for the tests whose
# claim is that a model learns something.
LEARN = {**FAST, "max_epochs": 30}


def make_tiny_checkpoint(path, family: str = "bert") -> Path:
    """A tiny checkpoint directory (random weights, a tokenizer over the words of
    :func:`make_pairs`), loadable offline like a real one. ``family``:
    ``"bert"`` (a word-level tokenizer, two token types), ``"distilbert"`` (the
    same tokenizer, no token types), ``"electra"`` (the same, embeddings smaller
    than the states), ``"roberta"`` (byte-level BPE trained here, one token
    type), ``"xlmr"`` (a SentencePiece unigram model trained here, one token
    type) or ``"deberta"`` (DeBERTa-v3: relative positions, no absolute ones, a
    SentencePiece model with [CLS]/[SEP]). Each reads 128 positions, more than
    the encoders' default max_len (100), as every real checkpoint does (512)."""
    import tokenizers
    import torch
    import transformers
    from tokenizers import decoders, models, pre_tokenizers, processors, trainers

    words = ["the", "was", "but", "."] + FOOD + SERVICE + GOOD + BAD
    words += ["food", "service"]
    shape = dict(
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
    )
    if family in ("bert", "distilbert", "electra"):
        vocab = {
            w: i
            for i, w in enumerate(
                ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
            )
        }
        tok = tokenizers.Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
        tok.normalizer = tokenizers.normalizers.Lowercase()
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.post_processor = processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
        special = dict(unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]",
                       cls_token="[CLS]", mask_token="[MASK]")  # fmt: skip
        if family == "distilbert":
            config = transformers.DistilBertConfig(
                vocab_size=len(vocab), max_position_embeddings=128, dim=16,
                n_layers=1, n_heads=2, hidden_dim=32,
            )  # fmt: skip
            model_class = transformers.DistilBertModel
        elif family == "electra":
            config = transformers.ElectraConfig(
                vocab_size=len(vocab), max_position_embeddings=128, embedding_size=8,
                **shape,
            )  # fmt: skip
            model_class = transformers.ElectraModel
        else:
            config = transformers.BertConfig(
                vocab_size=len(vocab), max_position_embeddings=128, **shape
            )
            model_class = transformers.BertModel
    elif family == "deberta":
        specials = ["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"]
        corpus = [" ".join(words[i : i + 6]) for i in range(len(words))] * 3
        tok = tokenizers.Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        tok.train_from_iterator(
            corpus,
            trainers.UnigramTrainer(
                vocab_size=120, special_tokens=specials, unk_token="[UNK]"
            ),
        )
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B [SEP]",
            special_tokens=[("[CLS]", 1), ("[SEP]", 2)],
        )
        special = dict(unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]",
                       cls_token="[CLS]", mask_token="[MASK]")  # fmt: skip
        config = transformers.DebertaV2Config(
            vocab_size=tok.get_vocab_size(), max_position_embeddings=64,
            type_vocab_size=0, relative_attention=True, position_buckets=16,
            pos_att_type=["p2c", "c2p"], position_biased_input=False, pad_token_id=0,
            **shape,
        )  # fmt: skip
        model_class = transformers.DebertaV2Model
    else:
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        corpus = [" ".join(words[i : i + 6]) for i in range(len(words))] * 3
        if family == "roberta":
            tok = tokenizers.Tokenizer(models.BPE())
            tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
            tok.decoder = decoders.ByteLevel()
            trainer = trainers.BpeTrainer(
                vocab_size=300,
                special_tokens=specials,
                initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            )
            tok.train_from_iterator(corpus, trainer)
            tok.post_processor = processors.RobertaProcessing(
                ("</s>", 2), ("<s>", 0), add_prefix_space=True
            )
            config_class, model_class = (
                transformers.RobertaConfig,
                transformers.RobertaModel,
            )
        else:
            tok = tokenizers.Tokenizer(models.Unigram())
            tok.pre_tokenizer = pre_tokenizers.Metaspace()
            tok.decoder = decoders.Metaspace()
            trainer = trainers.UnigramTrainer(
                vocab_size=120, special_tokens=specials, unk_token="<unk>"
            )
            tok.train_from_iterator(corpus, trainer)
            tok.post_processor = processors.TemplateProcessing(
                single="<s> $A </s>",
                pair="<s> $A </s> </s> $B </s>",
                special_tokens=[("<s>", 0), ("</s>", 2)],
            )
            config_class, model_class = (
                transformers.XLMRobertaConfig,
                transformers.XLMRobertaModel,
            )
        special = dict(bos_token="<s>", eos_token="</s>", sep_token="</s>",
                       cls_token="<s>", unk_token="<unk>", pad_token="<pad>",
                       mask_token="<mask>")  # fmt: skip
        config = config_class(
            vocab_size=tok.get_vocab_size(),
            max_position_embeddings=130,
            type_vocab_size=1,
            pad_token_id=1,
            bos_token_id=0,
            eos_token_id=2,
            **shape,
        )
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, **special)
    path = Path(path)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model_class(config).save_pretrained(path)
    fast.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory):
    pytest.importorskip("transformers")
    return make_tiny_checkpoint(tmp_path_factory.mktemp("tiny-bert"))


def make_table(n, seed):
    """Sentences built from aspect phrases: each of food and service is mentioned
    with probability 0.6, praised or criticised independently, so the truth of
    every cell is known (and a sentence mentioning both often disagrees)."""
    rng = np.random.default_rng(seed)
    texts, rows = [], []
    for _ in range(n):
        parts, row = [], {"food": "none", "service": "none"}
        for category, nouns in (("food", FOOD), ("service", SERVICE)):
            if rng.random() < 0.6:
                good = rng.random() < 0.5
                adjective = rng.choice(GOOD if good else BAD)
                parts.append(f"the {rng.choice(nouns)} was {adjective}")
                row[category] = "positive" if good else "negative"
        if not parts:
            parts = [rng.choice(["we went there on friday", "it was a long day"])]
        rng.shuffle(parts)
        texts.append(" but ".join(parts) + ".")
        rows.append(row)
    import pandas as pd

    return texts, pd.DataFrame(rows)


@pytest.fixture(scope="session")
def detector():
    """A category detector trained on :func:`make_table` data, shared by the review,
    report and browser tests."""
    from aspectattn import AspectCategoryClassifier

    X, Y = make_table(300, 0)
    return AspectCategoryClassifier(**LEARN).fit(X, Y)


def reviews_frame():
    """Four reviews with ids, dates and shops (one empty)."""
    import pandas as pd

    return pd.DataFrame(
        {
            "id": ["r1", "r2", "r3", "r4"],
            "text": [
                "The pasta was great. The waiter was rude!",
                "We went there on Friday. The soup was bland.",
                "Dr. Smith said the staff was lovely.",
                "",
            ],
            "date": ["2024-01-05", "2024-01-20", "2024-02-02", "2024-02-03"],
            "shop": ["a", "b", "a", "b"],
        }
    )


#: Module -> the outcomes of its fuzz tests (see :func:`tally`).
FUZZ_TALLIES: dict = {}


@pytest.fixture(scope="module")
def tally(request):
    """A Counter of the outcomes of a module's fuzz tests, written in the terminal
    summary of the run ("fuzz tally, test_x: refused 12, analysed 48")."""
    from collections import Counter

    return FUZZ_TALLIES.setdefault(request.module.__name__, Counter())


def pytest_terminal_summary(terminalreporter):
    for module, counts in sorted(FUZZ_TALLIES.items()):
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        terminalreporter.write_line(f"fuzz tally, {module}: {outcomes}")


def json_values():
    """A hypothesis strategy of any JSON value (nested lists and objects, big
    integers, NaN): what a crafted file may put in a metadata field."""
    from hypothesis import strategies as st

    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-(2**70), 2**70)
        | st.floats(allow_nan=True)
        | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=8), children, max_size=4)
        ),
        max_leaves=8,
    )


#: Reviews in several scripts and how many sentences each has (the sentence ends
#: of each script; tests of reviews.split_sentences and of `aspectattn analyze`).
MIXED_SCRIPTS = [
    ("Ուտելիքը համեղ էր։ Մատուցողը կոպիտ էր։", 2),  # Armenian full stop
    ("菜很好吃。服务员很粗鲁！价格还可以？", 3),  # no space after 。！？
    ("खाना अच्छा था। वेटर बदतमीज़ था।", 2),  # Devanagari danda
    ("هل كان الطعام جيدا؟ نعم، كان ممتازا.", 2),  # Arabic question mark
    ("האוכל היה מצוין. המלצר היה גס.", 2),  # Hebrew: Latin punctuation
    ("Great pasta\nRude waiter\r\nNice view", 3),  # line breaks end sentences
    ("Dr. Smith was nice. The soup was bland.", 2),  # abbreviations still hold
]
