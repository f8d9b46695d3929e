"""export(..., verify=True): the file run in onnxruntime on the example inputs, next to glassgrad's
outputs for them."""
from __future__ import annotations

import numpy as np

from ._capture import flatten
from .errors import OnnxExporterError


def run_onnxruntime(proto, feeds):
    try:
        import onnxruntime
    except ImportError:
        raise OnnxExporterError("ONNX export: verify=True runs the file in onnxruntime, which is not installed\n"
                                "  fix: pip install onnxruntime") from None
    session = onnxruntime.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def verify(proto, model, args, kwargs, input_names, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    from . import TrainingMode, select_model_mode_for_export
    from .._runtime import no_grad
    flat, _ = flatten((args, kwargs), "input")
    feeds = {n: t.numpy(force=True) for n, t in zip(input_names, flat)}
    got = run_onnxruntime(proto, {i.name: feeds[i.name] for i in proto.graph.input if i.name in feeds})
    with select_model_mode_for_export(model, TrainingMode.EVAL), no_grad():
        want = [t.numpy(force=True) for t in flatten(model(*args, **kwargs), "output")[0]]
    for k, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
            err = float(np.max(np.abs(g.astype(np.float64) - w))) if g.shape == w.shape else float("nan")
            raise OnnxExporterError(
                f"ONNX export: verify=True: output {k} ({proto.graph.output[k].name}) differs between onnxruntime "
                f"and glassgrad: shapes {list(g.shape)} and {list(w.shape)}, largest difference {err:g}\n"
                f"  fix: please report this with the model (the exporter or a converter is wrong)")
