"""Text processing, without torch: tokens and vocabularies (:mod:`.tokens`), the
text pipelines that turn sentences into model input (:mod:`.pipelines`), word
vectors through gensim (:mod:`.vectors`), words training never saw read through
their character n-grams (:mod:`.ngrams`), a pretrained checkpoint's sub-word
tokenizer (:mod:`.subwords`), aspect-term spans (:mod:`.spans`) and POS tags
(:mod:`.pos`).
"""

from .tokens import *  # noqa: F403
from .tokens import __all__  # noqa: F401
