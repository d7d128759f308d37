"""The torch modules, and nothing else: tensor helpers (:mod:`.ops`), sentence
encoders in a registry (:mod:`.encoders`), the forms of aspect attention
(:mod:`.attention`), the model that joins them (:mod:`.model`), the detector's
category head and loss (:mod:`.categories`), and the schema a saved model
configuration is checked against (:mod:`.schema`).
"""
