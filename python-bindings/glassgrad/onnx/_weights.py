"""glassgrad.onnx.load_weights: an ONNX file's initializers into a model's parameters and buffers of
the same names (module paths)."""
from __future__ import annotations

import io
import os
from collections import OrderedDict

from .. import _C
from .errors import OnnxExporterError


def _read(path):
    from ._export import _onnx
    onnx = _onnx()
    if isinstance(path, onnx.ModelProto):
        return path
    if isinstance(path, (str, os.PathLike)):
        try:
            return onnx.load_model(os.fspath(path))
        except FileNotFoundError:
            raise
        except Exception as e:  # protobuf's DecodeError and friends
            raise OnnxExporterError(f"load_weights: {os.fspath(path)} is not an ONNX model ({type(e).__name__}: "
                                    f"{e})\n  fix: pass the .onnx file written by glassgrad.onnx.export or "
                                    f"torch.onnx.export") from e
    if hasattr(path, "read"):
        return onnx.load_model(io.BytesIO(path.read()))
    raise OnnxExporterError(f"load_weights: expected a path, a binary file object or an onnx.ModelProto, got "
                            f"{type(path).__name__}\n  fix: glassgrad.onnx.load_weights(model, 'model.onnx')")


def load_weights(model, path, strict: bool = True):
    from onnx import numpy_helper
    proto = _read(path)
    arrays = OrderedDict((init.name, numpy_helper.to_array(init, base_dir=_base_dir(path)))
                         for init in proto.graph.initializer)
    persistent = OrderedDict(model._named_state())
    transient = {name for name, _ in model.named_buffers() if name not in persistent}
    state = OrderedDict((k, v) for k, v in arrays.items() if k in persistent)
    unexpected = [k for k in arrays if k not in persistent and k not in transient]
    if strict and unexpected:
        raise _C.InvalidArgumentError(
            f"load_weights: initializers of the ONNX file name nothing in {type(model).__name__}\n"
            f"  unexpected: {unexpected}\n"
            f"  cause: the file comes from another model, or an exporter renamed or folded them (torch.onnx.export "
            f"folds BatchNorm into Conv weights with do_constant_folding=True)\n"
            f"  fix: export the same model class, or pass strict=False to load the names that match")
    result = model.load_state_dict(state, strict=False)
    return type(result)(result.missing_keys, unexpected)


def _base_dir(path) -> str:
    return os.path.dirname(os.path.abspath(os.fspath(path))) if isinstance(path, (str, os.PathLike)) else ""
