"""The aspect term tagger: word vectors and character features into a
bidirectional LSTM, one tag per word (Lample et al., 2016; Ma and Hovy, 2016),
with their CRF's learned tag transitions as an option
(:class:`~aspectattn.nn.crf.TagTransitions`; without them
:mod:`aspectattn.extraction.words` decodes any tag sequence into valid spans).
Exact on right-padded batches without packing, as the classifier's LSTM encoder
(which is also what exports to ONNX exactly).

Shapes: ``B`` batch, ``T`` words (the batch's longest sentence), ``U`` the
batch's distinct written words, ``W`` characters (its longest word, cut), ``E``
word-vector size, ``F``
character filters, ``H`` LSTM units per direction, ``K`` tags (3: O, B, I).
"""

from __future__ import annotations

import torch
from torch import nn

from .crf import TagTransitions
from .encoders.lstm import _run, backward_states


class TermTagger(nn.Module):
    """Tag every word of a batch of sentences.

    A word is its vector and the max-pooled filters of a convolution over its
    characters (as written: case, digits and suffixes tell names and
    unseen words apart); a bidirectional LSTM reads the words; a linear layer
    gives each word's tag scores.

    Parameters
    ----------
    vocab_size, embedding_dim : int
    n_characters : int
        Character ids (0 pads); 0: no character features.
    hidden_size : int
    dropout : float
        On the word inputs and on the LSTM's states.
    char_dim, char_filters : int
        Character-vector size and convolution filters.
    n_tags : int
    transitions : bool
        Learn tag-transition scores (a CRF's) beside the tags' scores.
    """

    #: Padded tokens per prediction batch, at most: None, whole batches of
    #: texts (an LSTM steps through the time axis; fewer, wider steps pay).
    batch_tokens = None

    def __init__(
        self,
        *,
        vocab_size: int,
        embedding_dim: int,
        n_characters: int,
        hidden_size: int,
        dropout: float,
        char_dim: int = 30,
        char_filters: int = 50,
        n_tags: int = 3,
        transitions: bool = False,
    ):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.char_filters = char_filters if n_characters else 0
        if n_characters:
            self.char_embedding = nn.Embedding(n_characters, char_dim, padding_idx=0)
            self.char_conv = nn.Conv1d(char_dim, char_filters, 3, padding=1)
        self.dropout = nn.Dropout(dropout)
        size = embedding_dim + self.char_filters
        self.forward_lstm = nn.LSTM(size, hidden_size, batch_first=True)
        self.backward_lstm = nn.LSTM(size, hidden_size, batch_first=True)
        self.output_size = 2 * hidden_size
        self.tags = nn.Linear(2 * hidden_size, n_tags)
        self.transitions = TagTransitions() if transitions else None

    def _characters(self, chars: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        """chars (U, W) of the batch's distinct written forms, index (B, T) each
        word's form -> (B, T, F): each form's filters, max over its characters
        (0 for a form without any: padding), computed once per form."""
        x = self.char_embedding(chars).transpose(1, 2)  # (U, C, W)
        x = self.char_conv(x)  # (U, F, W)
        lowest = torch.finfo(x.dtype).min
        x = x.masked_fill((chars == 0)[:, None, :], lowest).amax(-1)  # (U, F)
        x = x * (chars[:, :1] > 0)  # a padding word (no characters): 0
        return x[index]  # (B, T, F)

    def states(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        chars: torch.Tensor,
        char_index: torch.Tensor,
    ) -> torch.Tensor:
        """tokens (B, T), lengths (B,), chars (U, W), char_index (B, T) -> the
        words' states (B, T, 2H) (what the tags, and a joint model's polarities,
        read)."""
        x = self.embedding(tokens)  # (B, T, E)
        if self.char_filters:
            x = torch.cat([x, self._characters(chars, char_index)], dim=-1)
        x = self.dropout(x)
        forward = _run(self.forward_lstm, x)  # (B, T, H)
        backward, _ = backward_states(self.backward_lstm, x, lengths)  # (B, T, H)
        return torch.cat([forward, backward], dim=-1)  # (B, T, 2H)

    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        chars: torch.Tensor,
        char_index: torch.Tensor,
    ) -> torch.Tensor:
        """tokens (B, T), lengths (B,), chars (U, W), char_index (B, T) -> tag
        logits (B, T, K)."""
        states = self.states(tokens, lengths, chars, char_index)  # (B, T, 2H)
        return self.tag_logits(states)  # (B, T, K)

    def tag_logits(self, states: torch.Tensor) -> torch.Tensor:
        """states (B, T, 2H) -> tag logits (B, T, K)."""
        return self.tags(self.dropout(states))


class PretrainedTagger(nn.Module):
    """A pretrained encoder's sub-word states, and a linear layer that tags
    each sub-word (the checkpoint fine-tuned end to end).

    Parameters
    ----------
    pretrained_config : dict
        The checkpoint's configuration (its weights are loaded by the caller).
    dropout : float
        On the states.
    n_tags : int
    transitions : bool
        Learn tag-transition scores (a CRF's) beside the tags' scores.
    """

    def __init__(
        self,
        *,
        pretrained_config: dict,
        dropout: float,
        n_tags: int = 3,
        transitions: bool = False,
    ):
        super().__init__()
        from .encoders.pretrained import PretrainedEncoder

        self.encoder = PretrainedEncoder(pretrained_config=pretrained_config)
        self.dropout = nn.Dropout(dropout)
        self.output_size = self.encoder.output_size
        self.tags = nn.Linear(self.encoder.output_size, n_tags)
        self.transitions = TagTransitions() if transitions else None

    @property
    def embedding(self) -> nn.Embedding:
        return self.encoder.embedding

    @property
    def batch_tokens(self) -> int | None:
        """Padded tokens per prediction batch, at most: the encoder's."""
        return self.encoder.batch_tokens

    def states(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        chars: torch.Tensor | None = None,
        char_index: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """tokens (B, T), lengths (B,) -> the sub-words' states (B, T, D); the
        characters unused."""
        states, _ = self.encoder(tokens, lengths)  # (B, T, D)
        return states

    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        chars: torch.Tensor | None = None,
        char_index: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """tokens (B, T), lengths (B,) -> tag logits (B, T, K); the characters
        unused."""
        states = self.states(tokens, lengths)  # (B, T, D)
        return self.tag_logits(states)  # (B, T, K)

    def tag_logits(self, states: torch.Tensor) -> torch.Tensor:
        """states (B, T, D) -> tag logits (B, T, K)."""
        return self.tags(self.dropout(states))
