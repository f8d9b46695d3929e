"""PyTorch submodules glassgrad leaves out, named when a script imports one: `import torch.fx`
ported becomes `import glassgrad.fx`, and a bare "No module named 'glassgrad.fx'" reads like a
broken install. The finder answers these names (and their submodules) with a ModuleNotFoundError
that says what the module is, that glassgrad has none, and what to do instead (docs/porting.md,
"Modules glassgrad leaves out"). It is a ModuleNotFoundError, so `try: import torch.fx except
ImportError:` still takes its fallback. Other names go on to the usual finders."""
from __future__ import annotations

import sys
from typing import Dict, Optional, Tuple

_DIST = "one process per GPU with glassgrad.distributed's process groups and DistributedDataParallel " \
        "(docs/distributed.md)"

# module -> (what PyTorch's module does, the fix)
LEFT_OUT: Dict[str, Tuple[str, str]] = {
    "glassgrad.fx": (
        "torch.fx (symbolic tracing of a module into a Graph of Nodes, GraphModule, Proxy, replace_pattern): "
        "glassgrad runs models as written and records its own graphs",
        "run the module itself; to capture it, glassgrad.jit.trace(model, x) or "
        "glassgrad.onnx.export(model, x, 'model.onnx') (docs/export.md)"),
    "glassgrad.fft": (
        "torch.fft (discrete Fourier transforms: fft, rfft, ifft, fftn, fftfreq, ...): its results are complex "
        "tensors, and glassgrad has no complex dtypes",
        "transform on the host with NumPy, numpy.fft.rfft(x.numpy()), and keep what you need as real tensors "
        "(x.real / x.imag / abs(x) of the NumPy result; docs/porting.md); torch.stft is left out with it"),
    "glassgrad.masked": (
        "torch.masked (MaskedTensor and masked reductions, a prototype in PyTorch)",
        "reduce with the mask as a tensor: (x * mask).sum(dim) / mask.sum(dim), or x.masked_fill(~mask, value) "
        "(docs/porting.md)"),
    "glassgrad.nested": (
        "torch.nested (nested tensors of rows of different lengths)",
        "pad the rows to one length with glassgrad.nn.utils.rnn.pad_sequence (or pack_padded_sequence for the "
        "recurrent layers) and carry a mask (docs/recurrent.md)"),
    "glassgrad.export": (
        "torch.export (ahead-of-time graph capture into an ExportedProgram)",
        "capture with glassgrad.jit.trace(model, x) or export with glassgrad.onnx.export(model, x, 'model.onnx') "
        "(docs/export.md)"),
    "glassgrad.distributed.rpc": (
        "torch.distributed.rpc (remote calls, RRef, init_rpc)", "train with " + _DIST),
    "glassgrad.distributed.autograd": (
        "torch.distributed.autograd (gradients across RPC calls)", "train with " + _DIST),
    "glassgrad.distributed.fsdp": (
        "torch.distributed.fsdp (FullyShardedDataParallel, fully_shard: parameters sharded across ranks)",
        "keep a whole copy of the model on each rank with DistributedDataParallel (docs/distributed.md)"),
    "glassgrad.distributed.tensor": (
        "torch.distributed.tensor (DTensor, tensor parallelism)", "train with " + _DIST),
    "glassgrad.distributed._tensor": (
        "torch.distributed._tensor (DTensor)", "train with " + _DIST),
    "glassgrad.distributed.device_mesh": (
        "torch.distributed.device_mesh (init_device_mesh)", "train with " + _DIST),
    "glassgrad.distributed.checkpoint": (
        "torch.distributed.checkpoint (sharded checkpoints)",
        "save the model's state_dict from rank 0 with glassgrad.save (docs/save-and-resume.md)"),
}


def left_out(fullname: str) -> Optional[str]:
    """The LEFT_OUT entry that fullname is or lies under, or None."""
    for name in LEFT_OUT:
        if fullname == name or fullname.startswith(name + "."):
            return name
    return None


def message(name: str) -> str:
    """Why LEFT_OUT's module `name` is missing, and the fix."""
    what, fix = LEFT_OUT[name]
    return f"No module named {name!r}: glassgrad leaves out {what}\n  fix: {fix}"


class LeftOutFinder:
    """A meta path finder that refuses LEFT_OUT's modules with their reason and fix."""

    def find_spec(self, fullname: str, path=None, target=None):
        name = left_out(fullname)
        if name is None:
            return None
        raise ModuleNotFoundError(message(name), name=fullname)


def install() -> None:
    """Puts the finder first on sys.meta_path, once."""
    if not any(isinstance(f, LeftOutFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, LeftOutFinder())
