import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aspectattn.text.tokens import OOV_ID, PAD_ID, Tokenizer, Vocabulary


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The pasta was great!", ["the", "pasta", "was", "great", "!"]),
        ("I don't like it", ["i", "do", "n't", "like", "it"]),
        (
            "It's the chef's best; can't miss.",
            ["it", "'s", "the", "chef", "'s", "best", ";", "ca", "n't", "miss", "."],
        ),
        (
            "We'll be back, they're great",
            ["we", "'ll", "be", "back", ",", "they", "'re", "great"],
        ),
        ("Didn\u2019t love it", ["did", "n't", "love", "it"]),  # typographic apostrophe
        ("well-done steak for $10.50", ["well-done", "steak", "for", "$", "10.50"]),
        ("Caf\u00e9 na\u00efve cr\u00e8me", ["café", "naïve", "crème"]),
        ("\uff21\uff22\uff23 fullwidth", ["abc", "fullwidth"]),  # NFKC folds fullwidth
        ("zero\u200bwidth", ["zerowidth"]),
        ("Great food :) 10/10", ["great", "food", ":", ")", "10", "/", "10"]),
        ("寿司はおいしい", list("寿司はおいしい")),  # no spaces: characters
        ("", []),
    ],
)
def test_tokenizer(text, expected):
    assert Tokenizer()(text) == expected


def test_tokenizer_keeps_case_when_asked():
    assert Tokenizer(lowercase=False)("The Pasta") == ["The", "Pasta"]


def test_tokenize_many_tokenizes_each_distinct_text_once(monkeypatch):
    tok = Tokenizer()
    calls = []
    original = Tokenizer.__call__
    monkeypatch.setattr(
        Tokenizer, "__call__", lambda self, t: calls.append(t) or original(self, t)
    )
    out = tok.tokenize_many(["a b", "c", "a b", "a b"])
    assert out == [["a", "b"], ["c"], ["a", "b"], ["a", "b"]]
    assert calls == ["a b", "c"]


def test_vocabulary_order_min_count_and_oov():
    vocab = Vocabulary(min_count=2).fit([["b", "a", "b"], ["a", "c", "b"]])
    assert vocab.words_ == ["<pad>", "<unk>", "b", "a"]  # c is rare
    ids = vocab.lookup(["a", "b", "c", "zzz"])
    assert ids.tolist() == [3, 2, OOV_ID, OOV_ID]
    assert len(vocab) == 4


def test_vocabulary_lookup_matches_dict():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(300)]
    vocab = Vocabulary().fit([list(rng.choice(words, 50)) for _ in range(40)])
    tokens = list(rng.choice(words + ["unseen", "other"], 500))
    expected = [vocab.index_.get(t, OOV_ID) for t in tokens]
    assert vocab.lookup(tokens).tolist() == expected


def test_encode_pads_per_batch_not_globally():
    vocab = Vocabulary().fit([["a", "b", "c", "d", "e"]])
    enc = vocab.encode([["a"], ["a", "b"], ["a", "b", "c", "d", "e"]])
    assert enc.lengths.tolist() == [1, 2, 5]
    ids, lengths = enc.pad([0, 1])
    assert ids.shape == (2, 2)  # the longest of the batch, not of the data
    assert lengths.tolist() == [1, 2]
    assert ids[0, 1] == PAD_ID
    assert ids[1].tolist() == vocab.lookup(["a", "b"]).tolist()


def test_encode_truncates_to_max_len():
    vocab = Vocabulary().fit([list("abcdef")])
    enc = vocab.encode([list("abcdef")], max_len=3)
    assert enc.lengths.tolist() == [3]
    assert enc.pad([0])[0].tolist() == [vocab.lookup(list("abc")).tolist()]


def test_take_preserves_rows():
    vocab = Vocabulary().fit([list("abcdef")])
    enc = vocab.encode([list("ab"), list("cde"), list("f")])
    sub = enc.take([2, 0])
    assert sub.pad([0, 1])[0].tolist() == enc.pad([2, 0])[0].tolist()


def test_vocabulary_pickles_without_lookup_cache():
    vocab = Vocabulary().fit([["x", "y"]])
    vocab.lookup(["x"])  # builds the cache
    clone = pickle.loads(pickle.dumps(vocab))
    assert "_sorted" not in clone.__dict__
    assert (
        clone.lookup(["y", "x", "q"]).tolist() == vocab.lookup(["y", "x", "q"]).tolist()
    )


@pytest.mark.parametrize(
    "text", ["The `pasta` WAS great!", "plain text", "tab\tand  spaces", "a-b's c"]
)
def test_ascii_fast_path_matches_full_normalisation(text):
    import unicodedata

    from aspectattn.text.tokens import _FOLD, _INVISIBLE_RE, _TOKEN_RE

    full = _INVISIBLE_RE.sub(
        "", unicodedata.normalize("NFKC", text).translate(_FOLD)
    ).lower()
    assert Tokenizer()(text) == _TOKEN_RE.findall(full)


@pytest.mark.parametrize(
    "text, expected",
    [
        # combining marks belong to their word (they split it before)
        ("खाना अच्छा था", ["खाना", "अच्छा", "था"]),  # Devanagari vowel signs, virama
        ("الطَّعَامُ لَذِيذٌ", ["الطَّعَامُ", "لَذِيذٌ"]),  # Arabic harakat
        ("שָׁלוֹם עוֹלָם", ["שָׁלוֹם", "עוֹלָם"]),  # Hebrew niqqud
        # formatting characters are no tokens (an invisible U+202C took attention)
        ("\u202bהאוכל טעים\u202c", ["האוכל", "טעים"]),
        ("\u2067pasta\u2069 soft\u00adly", ["pasta", "softly"]),
        ("👍🏽 ❤️", ["👍", "❤"]),  # skin tone, variation selector
        # the dotted capital I lowers to i, not i + a combining dot
        ("İstanbul'da İyi", ["istanbul'da", "iyi"]),
        # scripts without spaces: one token per character (the documented fallback)
        ("菜很好吃。", ["菜", "很", "好", "吃", "。"]),
        ("ラーメン", ["ラ", "ー", "メ", "ン"]),
        ("Hello 世界", ["hello", "世", "界"]),
    ],
)
def test_tokens_of_any_script(text, expected):
    assert Tokenizer()(text) == expected


def test_a_term_inside_a_script_without_spaces_is_its_characters():
    from aspectattn.text.pipelines import WordPipeline

    text = "服务很好但是菜很差"
    (span,) = WordPipeline().term_spans([text], ["服务"], None)
    tokens = WordPipeline().tokenize([text])[0]
    assert tokens[span[0] : span[1]] == ["服", "务"]


@pytest.mark.parametrize(
    "language, expected",
    [
        ("en", ["we", "do", "n't", "like", "l'addition"]),  # English clitics
        ("fr", ["we", "don't", "like", "l'addition"]),  # a word keeps its apostrophe
        (None, ["we", "don't", "like", "l'addition"]),
    ],
)
def test_clitics_split_in_english_only(language, expected):
    assert Tokenizer(language=language)("We don't like l'addition") == expected


def test_turkish_lower_cases_the_dotless_and_dotted_i():
    assert Tokenizer(language="tr")("IRMAK İyi") == ["ırmak", "iyi"]
    assert Tokenizer(language="en")("IRMAK İyi") == ["irmak", "iyi"]


def test_a_pipeline_keeps_its_language_and_older_states_are_english():
    from aspectattn.text.pipelines import WordPipeline, pipeline_from_state

    pipeline = WordPipeline(language="fr").fit(["on n'aime pas l'addition"])
    state = pipeline.to_state()
    assert pipeline_from_state(state).tokenizer.language == "fr"
    older = {k: v for k, v in state.items() if k != "language"}
    assert pipeline_from_state(older).tokenizer.language == "en"
    with pytest.raises(ValueError, match="ISO 639"):
        pipeline_from_state({**state, "language": "../x"})


def test_auto_language_is_english_only_for_english_text():
    from aspectattn.text.languages import looks_english

    assert looks_english(["The pasta was great but the waiter was rude."])
    assert not looks_english(["Le plat était bon mais le service était lent."])
    assert not looks_english(["Еда была отличной, но официант был груб."])
    assert not looks_english([])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.text(
        st.characters(max_codepoint=0x58F, exclude_categories=("Mn", "Mc", "Me")),
        max_size=60,
    )
)
def test_the_plain_pattern_is_the_mark_aware_one_on_text_without_marks(text):
    # the fast path may only ever be taken where it gives the same tokens
    from aspectattn.text import tokens as tk

    for pattern, plain in ((tk._TOKEN_PATTERN, tk._TOKEN_RE),
                           (tk._UNIVERSAL_PATTERN, tk._UNIVERSAL_RE)):  # fmt: skip
        words, _ = tk._unicode_patterns(pattern)
        assert plain.findall(text) == words.findall(text)
