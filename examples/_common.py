"""Shared by the examples: where the data and word vectors are."""

from aspectattn.datasets import get_data_home


def glove_or_download() -> str:
    """GloVe 6B 50-d from the data home if present, else gensim-data's copy."""
    local = get_data_home() / "glove" / "glove.6B.50d.100k.txt.gz"
    return str(local) if local.is_file() else "glove-wiki-gigaword-50"
