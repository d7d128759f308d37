"""A pretrained Hugging Face checkpoint as the encoder, fine-tuned end to end
(needs ``pip install 'aspectattn[pretrained]'``)."""

from __future__ import annotations

import inspect
import json
import os
import re
from numbers import Integral
from pathlib import Path

from torch import nn

from ...params._constraints import Interval, JSONObject
from ...text.subwords import _SPECIAL, _quiet, _transformers
from ..ops import length_mask

__all__ = [
    "PretrainedEncoder",
    "read_checkpoint_dir",
    "checkpoint_positions",
    "check_max_len",
]

#: A parameter of layer i of the checkpoint: ``...layer.<i>.`` in its name.
_LAYER_RE = re.compile(r"\blayers?\.(\d+)\.")


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
            f"PretrainedEncoder(path={str(path)!r}) is not a directory "
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


class PretrainedEncoder(nn.Module):
    """A Hugging Face encoder, fine-tuned end to end (the ``"pretrained"`` entry of
    :data:`aspectattn.params.ENCODERS`).

    The state of the first token ([CLS]) is the summary. With ``pair_input`` the
    aspect is a second segment of the input (``[CLS] sentence [SEP] aspect [SEP]``);
    segment ids are derived from the first ``sep_id`` where the checkpoint has two
    token types (BERT); RoBERTa and XLM-R, with one, read the pair by its
    separators alone.

    Parameters
    ----------
    pretrained_config : dict
        The checkpoint's configuration (``config.to_dict()``).
    pair_input : bool
    sep_id : int
    """

    accepts_aspect_input = False
    # Inference batches of at most 2,048 padded tokens: their (B, T, 4d) feed-forward
    # activations then stay in the cache. MiniLM-L6 on 2 cores, predict from text
    # (the model of benchmarks/pretrained.py --serving, 7 interleaved runs per
    # budget): float32 / int8 / bfloat16 +23 / +13 / +7% against 128 pairs whatever
    # their length; budgets of 1,024 and 4,096 were no better.
    batch_tokens: int | None = 2048
    config_schema = {
        "pretrained_config": [JSONObject()],
        "pair_input": ["boolean"],
        "sep_id": [Interval(Integral, 0, 10**8, closed="both")],
    }

    @staticmethod
    def check_config(config: dict) -> None:
        """The checkpoint's layers and heads in range (a file may come from an
        attacker: 10**8 layers would be built before anything else failed),
        under each family's own names (DistilBERT's ``n_layers``...)."""
        pretrained = _checkpoint_config(config["pretrained_config"])
        for key in ("num_hidden_layers", "num_attention_heads"):
            value = getattr(pretrained, key, 1)
            if not Interval(Integral, 1, 256, closed="both").is_satisfied_by(value):
                raise ValueError(
                    f"the checkpoint configuration's {key} is out of range"
                )

    @staticmethod
    def embedding_size(config: dict) -> int:
        """The size of the checkpoint's token embeddings (ELECTRA's are smaller
        than its states)."""
        pretrained = _checkpoint_config(config["pretrained_config"])
        return int(getattr(pretrained, "embedding_size", 0) or pretrained.hidden_size)

    def __init__(
        self, *, pretrained_config: dict, pair_input: bool = False, sep_id: int = 102
    ):
        super().__init__()
        tf = _transformers()
        config = _checkpoint_config(pretrained_config)
        # PyTorch's fused attention where the family has it; DeBERTa, whose
        # attention adds relative positions, runs its own
        self.attention_implementation = "sdpa"
        try:
            self.model = tf.AutoModel.from_config(config, attn_implementation="sdpa")
        except ValueError:
            self.attention_implementation = "eager"
            self.model = tf.AutoModel.from_config(config, attn_implementation="eager")
        self.output_size = config.hidden_size
        self.aspect_in_tokens = pair_input
        self.sep_id = sep_id
        # Segment ids only where the checkpoint has two token types (BERT,
        # ELECTRA): RoBERTa and XLM-R have one (their pairs are told apart by
        # the separators alone), DistilBERT none at all.
        self.segments = (
            getattr(config, "type_vocab_size", 0) >= 2
            and "token_type_ids" in inspect.signature(self.model.forward).parameters
        )

    @property
    def embedding(self) -> nn.Embedding:
        return self.model.get_input_embeddings()

    def parameter_depths(self) -> dict[str, int]:
        """Each parameter's depth below the top layer, for ``layer_lr_decay``: 0
        for the top layer (and the pooler), ``n - 1 - i`` for layer ``i`` of ``n``,
        ``n`` for the embeddings. Layers are told by their index in the name
        (``layer.3.``, as the BERT family names them)."""
        names = [name for name, _ in self.named_parameters()]
        index = {n: int(m.group(1)) for n in names if (m := _LAYER_RE.search(n))}
        n_layers = max(index.values(), default=-1) + 1
        return {
            n: n_layers - 1 - index[n]
            if n in index
            else (n_layers if "embeddings" in n else 0)
            for n in names
        }

    def _run(self, tokens, lengths, output_attentions=False):
        mask = length_mask(lengths, tokens.shape[1])  # (B, T)
        kwargs = {}
        if self.aspect_in_tokens and self.segments:
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
            self.model.set_attn_implementation(self.attention_implementation)
        return list(maps)


#: Families whose position ids start after the padding id (``padding_idx + 1``):
#: their ``max_position_embeddings`` counts positions no token takes.
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer")


def checkpoint_positions(pretrained_config: dict) -> int | None:
    """The most tokens (special tokens included) the checkpoint reads in one
    sequence: its ``max_position_embeddings`` (less the ids RoBERTa's family
    skips); None where it embeds no absolute position (DeBERTa's relative
    attention without ``position_biased_input``)."""
    config = _checkpoint_config(pretrained_config)
    if getattr(config, "position_biased_input", True) is False:
        return None
    positions = getattr(config, "max_position_embeddings", None)
    if not isinstance(positions, int) or isinstance(positions, bool):
        return None
    if getattr(config, "model_type", "") in _OFFSET_POSITIONS:
        positions -= (getattr(config, "pad_token_id", None) or 0) + 1
    return max(positions, 1)


def check_max_len(max_len: int, pretrained_config: dict) -> None:
    """Refuse a ``max_len`` longer than the checkpoint reads: a longer text
    would fail at prediction, not at fit (positions past the table's end)."""
    positions = checkpoint_positions(pretrained_config)
    if positions is not None and max_len > positions:
        raise ValueError(
            f"max_len={max_len} is more tokens than the checkpoint reads "
            f"({positions} positions); set max_len <= {positions}."
        )


def _checkpoint_config(pretrained_config: dict):
    """The transformers configuration object of a checkpoint's ``config.json``
    (its attribute map gives every family the same names)."""
    return _transformers().AutoConfig.for_model(**pretrained_config)
