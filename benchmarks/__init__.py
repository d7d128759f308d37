"""The benchmarks, run from the repository root as ``python -m benchmarks NAME``
(see ``benchmarks/README.md``). What they share -- the word vectors, the base
settings, the disagreeing-pair measures -- is in :mod:`benchmarks.common`; the data
sets come from the registry :data:`aspectattn.datasets.DATASETS`; results go through
:mod:`benchmarks.runner` (an experiment as data, its run log and its table)."""
