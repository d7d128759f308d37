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

import os
import tempfile
from pathlib import Path

import torch
from torch import nn

from .exceptions import MissingDependencyError
from .modules import AspectAttention, aspect_head, length_mask, masked_mean_embedding
from .text import EncodedTexts

__all__ = ["SubwordTokenizer", "PretrainedAspectModel", "read_checkpoint_dir"]


def _transformers():
    try:
        import transformers
    except ImportError as exc:
        raise MissingDependencyError(
            "encoder='pretrained' needs Hugging Face transformers: "
            "pip install 'aspectattn[pretrained]'"
        ) from exc
    return transformers


def read_checkpoint_dir(path) -> tuple[dict, dict[str, str], dict]:
    """(config dict, tokenizer files, state dict) of a local checkpoint directory."""
    tf = _transformers()
    path = Path(os.fspath(path)).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(
            f"pretrained_model={str(path)!r} is not a directory "
            "holding a Hugging Face checkpoint (config.json, "
            "weights, tokenizer files)."
        )
    model = tf.AutoModel.from_pretrained(str(path))
    tokenizer = tf.AutoTokenizer.from_pretrained(str(path))
    with tempfile.TemporaryDirectory() as tmp:
        tokenizer.save_pretrained(tmp)
        files = {
            name: Path(tmp, name).read_text(encoding="utf-8")
            for name in os.listdir(tmp)
        }
    return model.config.to_dict(), files, model.state_dict()


class SubwordTokenizer:
    """The checkpoint's own tokenizer, picklable: it is kept as its files' text and
    rebuilt on first use in each process."""

    def __init__(self, files: dict[str, str]):
        self.files = files

    def _get(self):
        tokenizer = self.__dict__.get("_tokenizer")
        if tokenizer is None:
            tf = _transformers()
            with tempfile.TemporaryDirectory() as tmp:
                for name, text in self.files.items():
                    Path(tmp, name).write_text(text, encoding="utf-8")
                tokenizer = tf.AutoTokenizer.from_pretrained(tmp)
            self._tokenizer = tokenizer
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

    def __getstate__(self):
        return {"files": self.files}


class PretrainedAspectModel(nn.Module):
    """A Hugging Face encoder under the aspect attention of Wang et al. (2016).

    Same interface as :class:`~aspectattn.modules.AspectAttentionModel` (AT variant):
    ``forward``, ``forward_many``, ``aspect_vectors``, ``self_attention_maps``. The
    state of the [CLS] token plays the role of ``h_N``.

    Parameters
    ----------
    pretrained_config : dict
        The checkpoint's configuration (``config.to_dict()``).
    n_classes, aspect_type, n_aspects, attention_score, dropout
        As for the LSTM model; ``v_a`` has the encoder's hidden size.
    pair_input : bool
        The aspect is also in the input as a second segment; ``sep_id`` marks where
        it starts.
    """

    encoder_kind = "pretrained"
    uses_attention = True

    def __init__(
        self,
        *,
        pretrained_config: dict,
        n_classes: int,
        aspect_type: str = "category",
        n_aspects: int = 1,
        attention_score: str = "additive",
        dropout: float = 0.1,
        pair_input: bool = False,
        sep_id: int = 102,
    ):
        super().__init__()
        tf = _transformers()
        config = tf.AutoConfig.for_model(**pretrained_config)
        self.encoder = tf.AutoModel.from_config(config, attn_implementation="sdpa")
        d = config.hidden_size
        self.aspect_type = aspect_type
        self.aspect_in_input = pair_input
        self.sep_id = sep_id
        if aspect_type == "category":
            self.aspect_embedding = nn.Embedding(n_aspects, d)
        self.attention = AspectAttention(d, d, attention_score)
        self.W_p = nn.Linear(d, d, bias=False)
        self.W_x = nn.Linear(d, d, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(d, n_classes)

    @property
    def embedding(self) -> nn.Embedding:
        return self.encoder.get_input_embeddings()

    def aspect_vectors(self, aspect: torch.Tensor) -> torch.Tensor:
        """Category ids (N,) or term sub-word ids (N, L) -> (N, d)."""
        if self.aspect_type == "category":
            return self.aspect_embedding(aspect)
        return masked_mean_embedding(self.embedding, aspect)

    def _encode(self, tokens, lengths, output_attentions=False):
        mask = length_mask(lengths, tokens.shape[1])  # (B, T)
        kwargs = {}
        if self.aspect_in_input:
            # Segment 1 starts after the first [SEP]: (B, T) 0/1
            is_sep = (tokens == self.sep_id).long()
            kwargs["token_type_ids"] = ((is_sep.cumsum(1) - is_sep) > 0).long()
        out = self.encoder(
            input_ids=tokens,
            attention_mask=mask.long(),
            output_attentions=output_attentions,
            **kwargs,
        )
        states = out.last_hidden_state  # (B, T, d)
        return states, states[:, 0], mask, out.attentions

    def forward(self, tokens, lengths, aspect, return_attention=False):
        states, cls, mask, _ = self._encode(tokens, lengths)
        v_a = self.aspect_vectors(aspect)[:, None, :]  # (B, 1, d)
        logits, alpha = aspect_head(self, states, cls, mask, v_a)
        return (logits[:, 0], alpha[:, 0]) if return_attention else logits[:, 0]

    def forward_many(self, tokens, lengths, aspects):
        if self.aspect_in_input:
            raise ValueError(
                "with the aspect in the input, each pair is encoded "
                "separately; score pairs instead"
            )
        states, cls, mask, _ = self._encode(tokens, lengths)  # once per sentence
        v = self.aspect_vectors(aspects)  # (K, d)
        return aspect_head(self, states, cls, mask, v[None])  # (1, K, A) broadcast

    def self_attention_maps(self, tokens, lengths, aspect):
        """Per-layer (B, heads, T, T) self-attention of the pretrained encoder."""
        self.encoder.set_attn_implementation("eager")
        try:
            *_, maps = self._encode(tokens, lengths, output_attentions=True)
        finally:
            self.encoder.set_attn_implementation("sdpa")
        return list(maps)
