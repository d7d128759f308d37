"""The skorch side: batches of whole sentences (:mod:`.batching`), building an
initialised model from a config (:mod:`.building`), training through skorch
(:mod:`.training`, :mod:`.callbacks`; from a teacher: :mod:`.distillation`),
prediction (:mod:`.inference`) and int8 prediction (:mod:`.quantization`).
"""
