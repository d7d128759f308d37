"""A pretrained transformer (a local Hugging Face checkpoint) as the encoder.

``AspectAttentionClassifier(encoder=PretrainedEncoder(PATH))`` fine-tunes the
checkpoint end to end under the same aspect attention as the LSTM. Two ways to give
it the aspect (``PretrainedEncoder(input=...)``):

``"vector"``
    the sentence alone is encoded; the aspect is the attention query ``v_a`` (a
    learned vector per category, or the mean sub-word embedding of a term). One
    encoder pass serves every aspect of a sentence.
``"pair"``
    the aspect is also fed as a second segment, sentence-pair style
    (``[CLS] sentence [SEP] aspect [SEP]``, Sun et al. 2019), and still queries the
    attention.

The fitted model carries the checkpoint's configuration, its tokenizer files and the
fine-tuned weights, so it predicts (and pickles) without the checkpoint directory.
Needs the optional ``transformers`` package: ``pip install 'aspectattn[pretrained]'``.
"""

from __future__ import annotations

import json
from contextlib import contextmanager

from ..exceptions import MissingDependencyError
from .tokens import EncodedTexts

__all__ = ["SubwordTokenizer", "check_tokenizer_files", "TOKENIZER_FILES"]


def _transformers():
    try:
        import transformers
    except ImportError as exc:
        raise MissingDependencyError(
            "encoder='pretrained' needs Hugging Face transformers: "
            "pip install 'aspectattn[pretrained]'"
        ) from exc
    return transformers


@contextmanager
def _quiet(tf):
    """Silence transformers' progress bars and info messages, then restore them."""
    logging = tf.utils.logging
    bars, level = logging.is_progress_bar_enabled(), logging.get_verbosity()
    logging.disable_progress_bar()
    logging.set_verbosity_error()
    try:
        yield
    finally:
        logging.set_verbosity(level)
        if bars:
            logging.enable_progress_bar()


# The only tokenizer entries a fitted model (and a model file) may hold. They are
# kept as text and never written to disk: the tokenizer is built in memory.
TOKENIZER_FILES = frozenset(
    {"tokenizer.json", "special_tokens_map.json", "tokenizer_config.json", "vocab.txt"}
)
_SPECIAL = ("unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


def check_tokenizer_files(files) -> dict[str, str]:
    """Validate tokenizer files read from an untrusted source.

    Raises ``ValueError`` unless ``files`` maps names from :data:`TOKENIZER_FILES`
    (plain base names, no paths) to strings, including ``tokenizer.json``.
    """
    if not isinstance(files, dict):
        raise ValueError("the tokenizer files must be a mapping of names to text")
    unknown = sorted(map(repr, set(files) - TOKENIZER_FILES))
    if unknown:
        raise ValueError(
            f"unexpected tokenizer file name(s) {', '.join(unknown)[:200]}; "
            f"allowed: {sorted(TOKENIZER_FILES)}"
        )
    if not all(isinstance(v, str) for v in files.values()):
        raise ValueError("every tokenizer file must be text")
    if "tokenizer.json" not in files:
        raise ValueError("the tokenizer files lack tokenizer.json")
    return files


def _build_tokenizer(files: dict[str, str]):
    """A fast tokenizer from its files' text, in memory (nothing is written)."""
    tf = _transformers()
    import tokenizers

    files = check_tokenizer_files(files)
    special = {}
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        if name in files:
            entries = json.loads(files[name])
            if not isinstance(entries, dict):
                raise ValueError(f"{name} must hold a JSON object")
            special.update(
                {
                    k: v
                    for k, v in entries.items()
                    if k in _SPECIAL and isinstance(v, str)
                }
            )
    max_length = json.loads(files.get("tokenizer_config.json", "{}")).get(
        "model_max_length", 512
    )
    if not isinstance(max_length, int) or max_length < 1:
        max_length = 512
    return tf.PreTrainedTokenizerFast(
        tokenizer_object=tokenizers.Tokenizer.from_str(files["tokenizer.json"]),
        model_max_length=min(max_length, 1_000_000),
        **special,
    )


class SubwordTokenizer:
    """The checkpoint's own (fast) tokenizer, picklable: it is kept as its files'
    text (:data:`TOKENIZER_FILES` only) and rebuilt in memory on first use in each
    process; nothing is ever written to disk."""

    def __init__(self, files: dict[str, str]):
        self.files = files

    def _get(self):
        tokenizer = self.__dict__.get("_tokenizer")
        if tokenizer is None:
            tokenizer = self._tokenizer = _build_tokenizer(self.files)
        return tokenizer

    @property
    def sep_id(self) -> int:
        return int(self._get().sep_token_id)

    def encode(self, texts, max_len: int, aspects=None) -> EncodedTexts:
        """Sub-word ids with special tokens, one row per text (or text-aspect pair)."""
        tok = self._get()
        if aspects is None:
            out = tok(list(texts), truncation=True, max_length=max_len)
        else:
            out = tok(
                list(texts), list(aspects), truncation="only_first", max_length=max_len
            )
        return EncodedTexts.from_lists(out["input_ids"])

    def offsets(self, texts, max_len: int) -> list:
        """The character ``(start, end)`` of every token of each text, as
        :meth:`encode` cuts it (special tokens ``(0, 0)``)."""
        tok = self._get()
        out = tok(
            list(texts),
            truncation=True,
            max_length=max_len,
            return_offsets_mapping=True,
        )
        return out["offset_mapping"]

    def encode_terms(self, terms) -> EncodedTexts:
        """Sub-word ids of aspect terms, without special tokens."""
        tok = self._get()
        ids = tok(list(terms), add_special_tokens=False)["input_ids"]
        return EncodedTexts.from_lists([r or [tok.unk_token_id] for r in ids])

    def tokens(self, ids) -> list[str]:
        return self._get().convert_ids_to_tokens([int(i) for i in ids])

    def count(self, text: str) -> int:
        """How many sub-words ``text`` has, without special tokens."""
        return len(self._get()(text, add_special_tokens=False)["input_ids"])

    @property
    def leading_specials(self) -> int:
        """Special tokens before the text (1 for BERT's ``[CLS]``)."""
        tok = self._get()
        plain = tok("a", add_special_tokens=False)["input_ids"]
        return tok("a")["input_ids"].index(plain[0])

    def __getstate__(self):
        return {"files": self.files}
