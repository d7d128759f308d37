"""From parameters and training text to an initialised model.

``prepare_model(est, ...)`` returns the fitted text pipeline, the configuration of
:class:`~aspectattn.modules.AspectAttentionModel`, a function that initialises a
freshly built module (word vectors of the vocabulary, category queries started from
the word or sub-word vectors of the category names), and the share of words that had
a pretrained vector. ``est`` is the estimator, read for its parameters only.
"""

from __future__ import annotations

import json

import numpy as np
import torch

from .embeddings import phrase_vector
from .encoders import masked_mean_embedding
from .pipelines import SubwordPipeline, WordPipeline

__all__ = ["prepare_model"]


def prepare_model(est, texts, aspects, aspect_type, categories, n_classes, seed, rng):
    """The text pipeline, the module's configuration, how to initialise its
    weights (word vectors, category names), and the word-vector coverage."""
    if est.encoder == "pretrained":
        pipeline, config, init, coverage = _pretrained_pipeline(
            est, aspect_type, categories
        )
    else:
        pipeline, config, init, coverage = _word_pipeline(
            est, texts, aspects, aspect_type, categories, seed, rng
        )
    module_config = dict(
        config,
        n_classes=n_classes,
        aspect_type=aspect_type,
        n_aspects=max(len(categories), 1),
        variant=est.variant,
        attention_score=est.attention_score,
        attention_heads=est.attention_heads,
        dropout=est.dropout,
        final_state=est.final_state,
    )
    if est.final_state == "term" and aspect_type != "term":
        raise ValueError(
            f"final_state='term' needs aspect terms (the term's encoder states); "
            f"{type(est).__name__} was given aspect categories. Use "
            "final_state=True or False."
        )
    if aspect_type == "term":  # the term-position options (unused for categories)
        attention = est.variant != "ae"  # what the unused-parameter warnings say
        module_config.update(
            final_state=est.final_state if attention else True,
            position_weighting=est.position_weighting if attention else "none",
            term_marker=est.term_marker and est.encoder != "pretrained",
            term_query=est.term_query if attention else "vectors",
        )
    return pipeline, module_config, init, coverage


def _word_pipeline(est, texts, aspects, aspect_type, categories, seed, rng):
    """Words: tokenizer, vocabulary and gensim vectors; the encoder's settings;
    how to initialise the module; the share of words with a vector."""
    terms = aspects if aspect_type == "term" else []
    pipeline = WordPipeline(est.lowercase, est.min_count, est.max_len)
    pipeline.fit(texts, terms)
    n_text_words = len(pipeline.vocabulary)
    matrix, found, vectors, dim = pipeline.word_vectors(
        est.embeddings, est.embedding_dim, texts, seed, rng, est.extra_vocabulary
    )
    encoder_config = dict(vocab_size=len(pipeline.vocabulary), embedding_dim=dim)
    if est.encoder == "lstm":
        encoder_config.update(
            hidden_size=est.hidden_size, bidirectional=est.bidirectional
        )
    else:
        encoder_config.update(
            d_model=est.d_model,
            n_layers=est.n_layers,
            n_heads=est.n_heads,
            ff_size=est.ff_size or 4 * est.d_model,
            dropout=est.transformer_dropout,
            norm_first=est.norm_first,
            positional=est.positional,
            position_merge=est.position_merge,
            max_len=est.max_len,
        )
    encoder_config["embedding_dropout"] = est.embedding_dropout
    config = dict(
        encoder=est.encoder,
        encoder_config=encoder_config,
        aspect_size=est.aspect_size or _default_aspect_size(est, encoder_config),
    )
    names = (
        [phrase_vector(vectors, name) for name in categories]
        if vectors is not None
        else []
    )

    def init(module):
        with torch.no_grad():
            module.embedding.weight.copy_(torch.from_numpy(matrix))
            table = getattr(module, "aspect_embedding", None)
            for i, vec in enumerate(names):  # start from the names' vectors
                if vec is not None and table.weight.shape[1] == len(vec):
                    table.weight[i] = torch.from_numpy(vec)

    return (
        pipeline,
        config,
        init,
        # coverage of the training text's words (not of the extra words)
        float(found[2:n_text_words].mean()) if n_text_words > 2 else 0.0,
    )


def _default_aspect_size(est, encoder_config) -> int:
    """``A`` when ``aspect_size=None``: the word-vector size, except for the
    single-head dot form, where ``v_a`` has the states' size ``D`` so that it is
    itself the query (with a projection, ``<W v_a, h_i>`` *is* the general form)."""
    if est.attention_score == "dot" and est.attention_heads == 1:
        if est.encoder == "lstm":
            return est.hidden_size * (2 if est.bidirectional else 1)
        return est.d_model
    return encoder_config["embedding_dim"]


def _pretrained_pipeline(est, aspect_type, categories):
    """Sub-words of a pretrained checkpoint (see :mod:`aspectattn.pretrained`)."""
    pipeline, pretrained_config, weights = SubwordPipeline.from_checkpoint(
        est.pretrained_model, est.max_len, est.pretrained_input == "pair"
    )
    config = dict(
        encoder="pretrained",
        encoder_config=dict(
            # JSON-clean (integer keys of label maps become strings), so the
            # fitted state is the same before and after a save/load.
            pretrained_config=json.loads(json.dumps(pretrained_config)),
            pair_input=pipeline.aspect_in_tokens,
            sep_id=pipeline.tokenizer.sep_id,
        ),
        aspect_size=None,
    )

    def init(module):
        module.encoder.model.load_state_dict(weights)
        if aspect_type == "category":  # start from the names' sub-word vectors
            names = pipeline.encode_terms(list(categories))
            ids, _ = names.pad(np.arange(len(categories)))
            with torch.no_grad():
                module.aspect_embedding.weight.copy_(
                    masked_mean_embedding(module.embedding, torch.from_numpy(ids))
                )

    return pipeline, config, init, 1.0
