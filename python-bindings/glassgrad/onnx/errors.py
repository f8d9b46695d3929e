"""The errors of glassgrad.onnx, with torch.onnx.errors' names: OnnxExporterError for anything the
export cannot do, UnsupportedOperatorError for an op that has no ONNX form at the opset asked for.
Both are glassgrad errors; OnnxExporterError is a RuntimeError (as PyTorch's) and
UnsupportedOperatorError also a NotImplementedError (glassgrad's UnsupportedError)."""
from __future__ import annotations

from .. import _C


class OnnxExporterError(_C.GlassgradError, RuntimeError):
    """The model cannot be exported as asked: the message names the op, the layer, the cause and
    a fix."""


class UnsupportedOperatorError(OnnxExporterError, _C.UnsupportedError):
    """An op of the traced graph has no ONNX form (at this opset): the message names the op, the
    layer that recorded it, the opset and what to do instead."""


class CheckerError(OnnxExporterError):
    """onnx.checker rejected the exported model (a bug of the exporter: please report it with the
    model)."""


for _cls in (OnnxExporterError, UnsupportedOperatorError, CheckerError):
    _cls.__module__ = "glassgrad.onnx.errors"
