"""The fitted state of the attention estimators, as data: what ``fit`` sets, what a
model file and a pickle hold, and how they are rebuilt, every field checked
(:class:`FittedState`, a base of
:class:`~aspectattn.estimators._base.AspectAttentionBase`)."""

from __future__ import annotations

import functools

import numpy as np
import torch

from .. import params as P
from .. import persistence
from .._fields import labels_state
from ..nn.model import AspectAttentionModel
from ..nn.schema import check_module_config
from ..params._constraints import validate_params
from ..params.components import component_from_data
from ..text.pipelines import SubwordPipeline, pipeline_from_state

__all__ = ["FittedState", "FITTED_ATTRIBUTES", "build_module"]

#: The fitted state: set by ``fit``, kept by pickling and by the safe model file.
FITTED_ATTRIBUTES = (
    "classes_",
    "aspect_type_",
    "resolved_params_",
    "aspects_",
    "text_pipeline_",
    "embedding_coverage_",
    "module_config_",
    "module_",
    "device_",
    "history_",
    "best_epoch_",
    "interrupted_",
    "fit_time_",
    "n_features_in_",
    "feature_names_in_",  # only when fitted on a DataFrame
)


class FittedState:
    """The fitted state's attributes, pickling and the safe model file."""

    @property
    def vocabulary_(self):
        """The word vocabulary (:class:`aspectattn.text.Vocabulary`), or None for a
        pretrained encoder."""
        return getattr(self.text_pipeline_, "vocabulary", None)

    @property
    def tokenizer_(self):
        """The tokenizer of the text pipeline."""
        return self.text_pipeline_.tokenizer

    def _set_fitted(self, **state) -> None:
        """Set the fitted state: every name in :data:`FITTED_ATTRIBUTES`."""
        if set(state) != set(FITTED_ATTRIBUTES):
            raise AssertionError(f"fitted state mismatch: {sorted(state)}")
        for name in FITTED_ATTRIBUTES:
            value = state[name]
            if value is None and name == "feature_names_in_":
                self.__dict__.pop(name, None)
            else:
                setattr(self, name, value)
        self.__dict__.pop("_quantized", None)  # the int8 copy of an older module_

    def _saved_classes(self):
        """``classes_`` as stored (the detector stores its one label set once)."""
        return self.classes_

    def _fitted_state(self) -> dict:
        """The fitted state as data: JSON-able values, the module as CPU tensors."""
        state = {
            name: getattr(self, name, None)
            for name in FITTED_ATTRIBUTES
            if name != "module_"
        }
        state["text_pipeline_"] = self.text_pipeline_.to_state()
        state["classes_"] = labels_state(self._saved_classes())
        state["aspects_"] = [str(a) for a in self.aspects_]
        if state["feature_names_in_"] is not None:
            state["feature_names_in_"] = [str(c) for c in self.feature_names_in_]
        return state

    def _module_tensors(self) -> dict[str, torch.Tensor]:
        return persistence.module_tensors(self.module_)

    @classmethod
    def _saved_params(cls, params: dict) -> dict:
        """A model file's parameters, each component rebuilt from its own
        parameters, every field checked (``ValueError`` otherwise)."""
        from .._slots import SLOTS

        unknown = set(params) - set(cls._get_param_names())
        if unknown:
            raise ValueError(f"unknown parameters {sorted(unknown)[:5]}")
        classes = {slot.name: slot.classes for slot in SLOTS}
        return {
            name: component_from_data(value, classes[name], f"the parameter {name}")
            if name in classes
            else value
            for name, value in params.items()
        }

    @classmethod
    def _from_saved(cls, params: dict, state: dict, tensors: dict):
        """Rebuild a fitted estimator from :meth:`_fitted_state` data and tensors
        read from a file. Validates every field; raises ``ValueError`` or
        ``TypeError`` on anything unexpected."""
        estimator = cls(**cls._saved_params(params))
        validate_params(estimator, cls._parameter_constraints)
        components = estimator._components_by_slot()
        estimator._check_components(components)  # their own cross-checks
        expected = set(FITTED_ATTRIBUTES) - {"module_"}
        if not isinstance(state, dict) or set(state) != expected:
            raise ValueError(f"the fitted state must have the keys {sorted(expected)}")
        fitted = persistence.check_fitted_state(state)
        fitted["resolved_params_"] = P.check_resolved(
            fitted["resolved_params_"], components
        )
        fitted["text_pipeline_"] = pipeline_from_state(state["text_pipeline_"])
        config = fitted["module_config_"] = check_module_config(state["module_config_"])
        if (
            config["n_classes"] != len(fitted["classes_"])
            or config["aspect_type"] != fitted["aspect_type_"]
            or config["n_aspects"] != max(len(fitted["aspects_"]), 1)
            or (config["encoder"] == "pretrained")
            != isinstance(fitted["text_pipeline_"], SubwordPipeline)
        ):
            raise ValueError(
                "the module configuration does not match the classes, aspects or "
                "text pipeline"
            )
        device = fitted["device_"]
        fitted["device_"] = (
            device
            if not device.startswith("cuda") or torch.cuda.is_available()
            else "cpu"
        )
        fitted["module_"] = build_module(
            fitted["module_config_"], tensors, fitted["device_"]
        )
        fitted["classes_"] = cls._loaded_classes(fitted["classes_"], fitted["aspects_"])
        estimator._set_fitted(**fitted)
        if isinstance(estimator.text_pipeline_, SubwordPipeline):
            from ..nn.encoders.pretrained import check_max_len

            n_ids = len(estimator.text_pipeline_.tokenizer._get())
            if n_ids > estimator.module_.embedding.num_embeddings:
                raise ValueError("the tokenizer has more ids than the model embeds")
            check_max_len(
                estimator.text_pipeline_.max_len,
                config["encoder_config"]["pretrained_config"],
            )
        return estimator

    @classmethod
    def _loaded_classes(cls, classes, aspects):
        """``classes_`` from what :meth:`_saved_classes` stored."""
        return classes

    def __getstate__(self):
        if getattr(self, "module_", None) is None:
            return self.__dict__.copy()  # parameters only
        # The model file's content (JSON text and numpy arrays): no torch or gensim
        # objects, loads on any device, and __setstate__ checks every field, so a
        # skops file of a Pipeline holding the model is as safe as a .aam file.
        payload = persistence.to_payload(self)
        payload["tensors"] = {k: v.numpy() for k, v in payload["tensors"].items()}
        # A RandomState is not JSON data (the file stores None): kept beside it.
        return {"_aspectattn_model": payload, "random_state": self.random_state}

    def __setstate__(self, state):
        if "_aspectattn_model" in state:
            model = persistence.from_payload(state["_aspectattn_model"], "the pickle")
            if type(model) is not type(self):
                raise persistence.ModelFileError(
                    f"the state holds a {type(model).__name__}, not a "
                    f"{type(self).__name__}"
                )
            self.__dict__.update(model.__dict__)
            random_state = state.get("random_state")
            if isinstance(random_state, np.random.RandomState):
                self.random_state = random_state
            return
        if "_module_state" in state or "module_kwargs_" in state:
            raise persistence.ModelFileError(
                f"the pickle holds a {type(self).__name__} of an aspectattn before "
                "0.1.0's model state; load its .aam model file, or fit it again"
            )
        self.__dict__.update(state)  # an unfitted estimator: its parameters

    def save(self, path) -> None:
        """Write the fitted model to ``path`` in a format that runs no code on load.

        See :func:`aspectattn.persistence.save`.
        """
        persistence.save(self, path)

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save` (see :mod:`aspectattn.persistence`)."""
        model = persistence.load(path)
        if not isinstance(model, cls):
            raise TypeError(
                f"{path} holds a {type(model).__name__}, not a {cls.__name__}"
            )
        return model


def build_module(config: dict, tensors: dict, device: str) -> AspectAttentionModel:
    """The module of ``config`` with weights ``tensors`` (CPU), on ``device``."""
    from ..persistence import module_from_tensors

    module = module_from_tensors(
        functools.partial(AspectAttentionModel, **config), tensors
    )
    return module.to(device).eval()
