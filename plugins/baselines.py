"""Plugin `baselines`: the answer baselines of Goyal et al. 2017 (docs/models.md).

`prior` and `qtype-prior` (counting), `qonly` (language-only) and `cnn-lstm` (d-LSTM+nI
style image + question model), the latter two on the shared torch trainer.
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .models.cnnlstm import CNNLSTMModel
from .models.coattention import HieCoAttModel
from .models.counterexample import CounterExampleExplainer
from .models.mcb import MCBModel
from .models.priors import PriorModel, QTypePriorModel
from .models.qonly import QOnlyModel


@hookimpl
def register_models(register) -> None:
    """Register `prior`, `qtype-prior`, `qonly`, `cnn-lstm` and the grid-feature models of
    Goyal et al.'s tables (`hiecoatt`, `mcb`, `counterexample-explainer`)."""
    for cls in (PriorModel, QTypePriorModel, QOnlyModel, CNNLSTMModel, HieCoAttModel, MCBModel,
                CounterExampleExplainer):
        register(cls)
