"""From parameters and training text to an initialised model.

``prepare_model(config, ...)`` returns the fitted text pipeline, the configuration of
:class:`~aspectattn.nn.model.AspectAttentionModel`, a function that initialises a
freshly built module (word vectors of the vocabulary, category queries started from
the word or sub-word vectors of the category names), and the share of words that had
a pretrained vector. ``config`` is the fit's :class:`~aspectattn.params.ModelConfig`.
"""

from __future__ import annotations

import json

import numpy as np
import torch

from .. import params
from ..nn.encoders import get_encoder
from ..nn.ops import masked_mean_embedding
from ..params import ENCODERS, ModelConfig
from ..text.pipelines import SubwordPipeline, WordPipeline, distinct_index
from ..text.tokens import OOV_ID, PAD_ID
from ..text.vectors import phrase_vector

__all__ = ["prepare_model", "ModuleBuilder"]


def prepare_model(config: ModelConfig, data, seed, rng):
    """The text pipeline, the module's configuration, how to initialise its
    weights (word vectors, category names), and the word-vector coverage.

    ``data``: what the fit trains on (the estimators' ``TrainingData``): its
    ``texts``, ``aspects``, ``aspect_type``, ``categories`` and ``labels``."""
    texts, aspects, aspect_type = data.texts, data.aspects, data.aspect_type
    categories, n_classes = data.categories, len(data.labels)
    settings = config.encoder  # the encoder component, resolved
    encoder = get_encoder(settings.kind)  # an unknown name is an error
    # an encoder of words (not a checkpoint's sub-words): the settings that need
    # "words" apply to it (params.unused, one source with the warnings)
    reads_words = "words" in ENCODERS[settings.kind].groups
    if reads_words:
        pipeline, built, init, coverage = _word_pipeline(
            config,
            encoder,
            texts,
            vector_texts(data),
            aspects,
            aspect_type,
            categories,
            seed,
            rng,
        )
    else:
        pipeline, built, init, coverage = _pretrained_pipeline(
            config, aspect_type, categories
        )
    attention = config.attention  # the attention component, resolved
    module_config = dict(
        built,
        n_classes=n_classes,
        aspect_type=aspect_type,
        n_aspects=max(len(categories), 1),
        variant=config.variant,
        attention_score=attention.score,
        attention_heads=attention.heads,
        dropout=config.dropout,
        final_state=attention.final_state,
    )
    if aspect_type == "term":  # the term-position options (unused for categories)
        pools = config.variant != "ae"  # what the unused-parameter warnings say
        module_config.update(
            final_state=attention.final_state if pools else True,
            position_weighting=attention.position_weighting if pools else "none",
            position_dropout=attention.position_dropout if reads_words else 0.0,
            term_marker=config.term_marker and reads_words,
            term_query=attention.term_query if pools else "vectors",
        )
    return pipeline, module_config, init, coverage


def vector_texts(data) -> list[str]:
    """The texts the encoder's own word vectors (``embeddings="word2vec"`` or
    ``"fasttext"``) are trained on, :data:`~aspectattn.params.VECTOR_PASSES`
    times: every row the fit trains on, the copies that ``augment`` makes
    included. The sentences as written alone (a flipped copy puts an opinion
    word's antonym in its context) lost on validation: at this size of text
    more of it, the copies' too, starts the vectors better
    (``benchmarks/own_vectors.py``)."""
    return data.texts


def _word_pipeline(
    config, encoder, texts, vector_texts, aspects, aspect_type, categories, seed, rng
):
    """Words: tokenizer, vocabulary (of ``texts``) and gensim vectors (trained
    on ``vector_texts`` where they are trained); the encoder's settings; how to
    initialise the module; the share of words with a vector."""
    terms = aspects if aspect_type == "term" else []
    settings = config.encoder
    pipeline = WordPipeline(
        settings.lowercase, settings.min_count, settings.max_len, config.language
    )
    pipeline.fit(texts, terms)
    n_text_words = len(pipeline.vocabulary)
    matrix, found, vectors, dim = pipeline.word_vectors(
        settings.embeddings,
        settings.embedding_dim,
        vector_texts,
        seed,
        rng,
        settings.extra_vocabulary,
        settings.unseen_words,
        passes=params.VECTOR_PASSES,
    )
    encoder_config = dict(vocab_size=len(pipeline.vocabulary), embedding_dim=dim)
    encoder_config.update(encoder.config_from(settings))
    encoder_config["embedding_dropout"] = settings.embedding_dropout
    built = dict(
        encoder=settings.kind,
        encoder_config=encoder_config,
        aspect_size=settings.aspect_size or _default_aspect_size(config, encoder, dim),
    )
    names = (
        [phrase_vector(vectors, name) for name in categories]
        if vectors is not None
        else []
    )
    rates = word_dropout_rates(pipeline, texts, settings.word_dropout)

    def init(module):
        module.encoder.set_word_dropout(rates)
        with torch.no_grad():
            module.embedding.weight.copy_(torch.from_numpy(matrix))
            table = getattr(module, "aspect_embedding", None)
            for i, vec in enumerate(names):  # start from the names' vectors
                if vec is not None and table.weight.shape[1] == len(vec):
                    table.weight[i] = torch.from_numpy(vec)

    return (
        pipeline,
        built,
        init,
        # coverage of the training text's words (not of the extra words)
        float(found[2:n_text_words].mean()) if n_text_words > 2 else 0.0,
    )


def word_dropout_rates(pipeline, texts, alpha: float) -> torch.Tensor | None:
    """Each word's probability of being read as the unknown token in training,
    ``alpha / (alpha + count)`` with ``count`` its occurrences in the distinct
    ``texts`` (Kiperwasser and Goldberg, 2016: the rarer a word, the likelier
    a new text's words are unknown like it): (V,), 0 for padding and the unknown
    token; None where ``alpha`` is 0."""
    if not alpha:
        return None
    distinct, _ = distinct_index(list(texts))
    size = len(pipeline.vocabulary)
    # the vocabulary's own ids: a word under min_count is the unknown token,
    # not read as its spelling's neighbour (pipeline.encode would)
    ids = pipeline.vocabulary.encode(pipeline.tokenize(distinct)).ids
    counts = np.bincount(ids, minlength=size)  # (V,)
    rates = alpha / (alpha + counts.astype(np.float64))
    rates[[PAD_ID, OOV_ID]] = 0.0
    return torch.from_numpy(rates.astype(np.float32))


def _default_aspect_size(config, encoder, embedding_dim: int) -> int:
    """``A`` when ``aspect_size=None``: the word-vector size, except for the
    single-head dot form, where ``v_a`` has the states' size ``D`` so that it is
    itself the query (with a projection, ``<W v_a, h_i>`` *is* the general form)."""
    if config.attention.score == "dot" and config.attention.heads == 1:
        return encoder.states_size(config.encoder)
    return embedding_dim


def _pretrained_pipeline(config, aspect_type, categories):
    """Sub-words of a pretrained checkpoint (see :mod:`aspectattn.text.subwords`)."""
    from ..nn.encoders.pretrained import check_max_len, read_checkpoint_dir

    settings = config.encoder
    pretrained_config, files, weights = read_checkpoint_dir(settings.path)
    check_max_len(settings.max_len, pretrained_config)
    pipeline = SubwordPipeline.from_tokenizer_files(
        files, settings.max_len, settings.input == "pair"
    )
    built = dict(
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

    return pipeline, built, init, 1.0


class ModuleBuilder:
    """``build()`` for :func:`~aspectattn.engine.training.train_module`: the module
    class called with its configuration (a plain callable object, no closure)."""

    def __init__(self, module_class, config: dict):
        self.module_class, self.config = module_class, config

    def __call__(self):
        return self.module_class(**self.config)
