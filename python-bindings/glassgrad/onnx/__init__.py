"""glassgrad.onnx: export a model to ONNX (torch.onnx.export's interface) and read an ONNX file's
weights back into a model.

    glassgrad.onnx.export(model, x, "model.onnx", input_names=["images"], output_names=["logits"],
                          dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}})
    glassgrad.onnx.load_weights(model, "model.onnx")

The export traces the model's forward pass in evaluation mode into glassgrad's static graph, maps
each op to ONNX ops (glassgrad/onnx/ops/), names the initializers by module path
("layer1.0.conv1.weight") and checks the file with onnx.checker. docs/export.md describes it; the
`onnx` package is needed (pip install onnx), and onnxruntime to run the file.
"""
from __future__ import annotations

import enum
import os
from typing import Any, Collection, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import errors
from ._capture import is_exporting
from .errors import CheckerError, OnnxExporterError, UnsupportedOperatorError

__all__ = ["export", "load_weights", "is_in_onnx_export", "select_model_mode_for_export", "TrainingMode",
           "OperatorExportTypes", "OnnxExporterError", "UnsupportedOperatorError", "CheckerError", "coverage", "errors",
           "DEFAULT_OPSET", "MIN_OPSET"]

DEFAULT_OPSET = 18   # torch.onnx.export's default
MIN_OPSET = 13       # the first opset with Softmax over one axis and the axes of ReduceSum/Squeeze as inputs


class TrainingMode(enum.IntEnum):
    """torch.onnx.TrainingMode: the mode the model is exported in."""
    EVAL = 0       # evaluation mode (BatchNorm with its running statistics, no dropout)
    PRESERVE = 1   # the mode the model is in
    TRAINING = 2   # training mode (batch statistics, dropout as ONNX Dropout in training mode)


class OperatorExportTypes(enum.IntEnum):
    """torch.onnx.OperatorExportTypes: ONNX (every op as standard ONNX ops) or ONNX_FALLTHROUGH (an
    op without an ONNX form becomes a node of the custom domain 'org.glassgrad'). The ATen types
    name PyTorch's own library and are refused."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


def is_in_onnx_export() -> bool:
    """Whether a glassgrad.onnx.export is tracing a model right now (on this thread)."""
    return is_exporting()


class select_model_mode_for_export:
    """Context manager setting model.training for an export (TrainingMode) and restoring every
    layer's own flag on exit."""

    def __init__(self, model, mode: TrainingMode):
        self.model, self.mode = model, TrainingMode(mode)

    def __enter__(self):
        modules = list(self.model.modules()) if hasattr(self.model, "modules") else []
        self.saved = [(m, m.training) for m in modules]
        if self.mode == TrainingMode.EVAL and modules:
            self.model.train(False)
        elif self.mode == TrainingMode.TRAINING and modules:
            self.model.train(True)
        return self.model

    def __exit__(self, *exc):
        for m, flag in self.saved:
            object.__setattr__(m, "training", flag)


def coverage() -> List[Tuple[str, str, str]]:
    """(op, status, detail) for every op of the engine: 'exports' with the ONNX ops it becomes, or
    'cannot' with the reason (docs/export.md has the list)."""
    from ._registry import coverage as rows
    return rows()


def export(model, args, f=None, export_params: bool = True, verbose: bool = False,
           training: TrainingMode = TrainingMode.EVAL, input_names: Optional[Sequence[str]] = None,
           output_names: Optional[Sequence[str]] = None,
           operator_export_type: OperatorExportTypes = OperatorExportTypes.ONNX, opset_version: Optional[int] = None,
           do_constant_folding: bool = True,
           dynamic_axes: Optional[Union[Mapping[str, Mapping[int, str]], Mapping[str, Sequence[int]]]] = None,
           keep_initializers_as_inputs: Optional[bool] = None, custom_opsets: Optional[Mapping[str, int]] = None,
           export_modules_as_functions: Union[bool, Collection[type]] = False, autograd_inlining: bool = True, *,
           kwargs: Optional[Dict[str, Any]] = None, dynamo: bool = False, external_data: bool = True,
           dynamic_shapes=None, report: bool = False, optimize: bool = True, verify: bool = False,
           profile: bool = False, dump_exported_program: bool = False, artifacts_dir: Union[str, os.PathLike] = ".",
           fallback: bool = False, custom_translation_table=None):
    """torch.onnx.export: traces model(*args) and writes the ONNX model to f.

    model: a glassgrad.nn.Module (or any callable taking and returning glassgrad tensors).
    args: the example inputs: a tensor, a tuple of arguments (non-tensor ones are fixed in the
        file), or a tuple ending with a dict of keyword arguments (or pass kwargs=).
    f: a path or a binary file object; None returns the onnx.ModelProto instead of writing it.
    export_params: parameters and buffers as initializers named by module path (False: as graph
        inputs of those names, after the model's inputs).
    training: TrainingMode.EVAL (default), PRESERVE or TRAINING.
    input_names / output_names: names of the flattened inputs and outputs, in order.
    opset_version: the ai.onnx opset, MIN_OPSET to onnx's newest (default DEFAULT_OPSET).
    dynamic_axes: {input or output name: {axis: name} or [axes]}: those axes are dynamic in the file.
    keep_initializers_as_inputs: also list the initializers as graph inputs.
    custom_opsets: {domain: version} opset imports to add.
    verify: run the file in onnxruntime on the example inputs and compare with glassgrad's outputs.

    The other arguments are accepted for PyTorch's signature: do_constant_folding (onnxruntime
    folds constants itself), autograd_inlining, dynamo, external_data (files over 2 GB written to a
    path keep their weights beside it), report, optimize, profile, dump_exported_program,
    artifacts_dir, fallback. Returns None (the ModelProto when f is None).
    """
    from . import _export
    return _export.export(model, args, f, export_params=export_params, verbose=verbose, training=training,
                          input_names=input_names, output_names=output_names,
                          operator_export_type=operator_export_type, opset_version=opset_version,
                          dynamic_axes=dynamic_axes, keep_initializers_as_inputs=keep_initializers_as_inputs,
                          custom_opsets=custom_opsets, export_modules_as_functions=export_modules_as_functions,
                          kwargs=kwargs, external_data=external_data, dynamic_shapes=dynamic_shapes,
                          verify=verify, custom_translation_table=custom_translation_table)


def load_weights(model, path, strict: bool = True):
    """Reads the initializers of an ONNX file (a path, a binary file object or an onnx.ModelProto)
    into the parameters and buffers of `model` with the same names (module paths, as
    glassgrad.onnx.export and torch.onnx.export write them). Shapes must match; dtypes are
    converted to the model's. Returns (missing_keys, unexpected_keys) as load_state_dict does:
    the model's entries the file does not hold (a file holds only what the forward pass reads),
    and initializers that name nothing in the model; strict=True raises on the latter."""
    from ._weights import load_weights as load
    return load(model, path, strict)
