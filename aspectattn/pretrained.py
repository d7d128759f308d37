"""A pretrained transformer (a local Hugging Face checkpoint) as the encoder.

``AspectAttentionClassifier(encoder="pretrained", pretrained_model=PATH)`` fine-tunes
the checkpoint end to end under the same aspect attention as the LSTM. Two ways to
give it the aspect (``pretrained_input``):

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
import os
from contextlib import contextmanager
from pathlib import Path

from torch import nn

from .encoders import length_mask
from .exceptions import MissingDependencyError
from .text import EncodedTexts

__all__ = ["SubwordTokenizer", "PretrainedEncoder", "read_checkpoint_dir"]


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


def read_checkpoint_dir(path) -> tuple[dict, dict[str, str], dict]:
    """(config dict, tokenizer files, state dict) of a local checkpoint directory.

    The tokenizer files are the checkpoint's fast-tokenizer definition
    (``tokenizer.json``) and, where present, its configuration files
    (:data:`TOKENIZER_FILES`), as text.
    """
    tf = _transformers()
    path = Path(os.fspath(path)).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(
            f"pretrained_model={str(path)!r} is not a directory "
            "holding a Hugging Face checkpoint (config.json, "
            "weights, tokenizer files)."
        )
    with _quiet(tf):  # no loading bar: aspectattn prints only with verbose
        model = tf.AutoModel.from_pretrained(str(path))
        tokenizer = tf.AutoTokenizer.from_pretrained(str(path))
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(
            f"The checkpoint {str(path)!r} has no fast tokenizer (tokenizer.json); "
            "aspectattn needs one (convert it with transformers and save it again)."
        )
    files = {"tokenizer.json": tokenizer.backend_tokenizer.to_str()}
    files["special_tokens_map.json"] = json.dumps(
        {k: str(v) for k, v in tokenizer.special_tokens_map.items() if k in _SPECIAL}
    )
    files["tokenizer_config.json"] = json.dumps(
        {"model_max_length": int(min(tokenizer.model_max_length, 1_000_000))}
    )
    return model.config.to_dict(), files, model.state_dict()


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


class PretrainedEncoder(nn.Module):
    """A Hugging Face encoder, fine-tuned end to end (the ``"pretrained"`` entry of
    :data:`aspectattn.encoders.ENCODERS`).

    The state of the first token ([CLS]) is the summary. With ``pair_input`` the
    aspect is a second segment of the input (``[CLS] sentence [SEP] aspect [SEP]``);
    segment ids are derived from the first ``sep_id``.

    Parameters
    ----------
    pretrained_config : dict
        The checkpoint's configuration (``config.to_dict()``).
    pair_input : bool
    sep_id : int
    """

    accepts_aspect_input = False

    @staticmethod
    def embedding_size(config: dict) -> int:
        pretrained = config["pretrained_config"]
        return int(pretrained.get("embedding_size") or pretrained["hidden_size"])

    def __init__(
        self, *, pretrained_config: dict, pair_input: bool = False, sep_id: int = 102
    ):
        super().__init__()
        tf = _transformers()
        config = tf.AutoConfig.for_model(**pretrained_config)
        self.model = tf.AutoModel.from_config(config, attn_implementation="sdpa")
        self.output_size = config.hidden_size
        self.aspect_in_tokens = pair_input
        self.sep_id = sep_id

    @property
    def embedding(self) -> nn.Embedding:
        return self.model.get_input_embeddings()

    def _run(self, tokens, lengths, output_attentions=False):
        mask = length_mask(lengths, tokens.shape[1])  # (B, T)
        kwargs = {}
        if self.aspect_in_tokens:
            # Segment 1 starts after the first [SEP]: (B, T) 0/1
            is_sep = (tokens == self.sep_id).long()
            kwargs["token_type_ids"] = ((is_sep.cumsum(1) - is_sep) > 0).long()
        return self.model(
            input_ids=tokens,
            attention_mask=mask.long(),
            output_attentions=output_attentions,
            **kwargs,
        )

    def forward(self, tokens, lengths, aspect_input=None):
        """tokens (B, T), lengths (B,) -> states (B, T, d), [CLS] state (B, d)."""
        states = self._run(tokens, lengths).last_hidden_state  # (B, T, d)
        return states, states[:, 0]

    def self_attention_maps(self, tokens, lengths, aspect_input=None):
        """Per-layer (B, heads, T, T) self-attention of the pretrained encoder."""
        self.model.set_attn_implementation("eager")
        try:
            maps = self._run(tokens, lengths, output_attentions=True).attentions
        finally:
            self.model.set_attn_implementation("sdpa")
        return list(maps)
