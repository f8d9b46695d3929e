"""glassgrad.onnx.export's steps: the arguments checked, the model traced at the example sizes
(and at more sizes for dynamic axes), the graph converted, checked and written."""
from __future__ import annotations

import inspect
import os
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .. import _C
from .._dtypes import plain
from .._tensor import Tensor
from . import _capture
from ._capture import flatten
from ._symbolic import Corners, Sym
from .errors import CheckerError, OnnxExporterError, UnsupportedOperatorError

_TWO_GB = 2 ** 31


def _onnx():
    try:
        import onnx
    except ImportError:
        raise _C.UnsupportedError("glassgrad.onnx needs the onnx package, which is not installed\n"
                                  "  fix: pip install onnx   (and onnxruntime to run the exported file)") from None
    return onnx


def _split_args(args, kwargs) -> Tuple[tuple, dict]:
    """PyTorch's forms: a tensor, a tuple of arguments, or a tuple ending with a dict of keyword
    arguments (an empty dict last passes a dict positionally)."""
    if isinstance(args, Tensor):
        args = (args,)
    elif isinstance(args, list):
        args = tuple(args)
    elif not isinstance(args, tuple):
        args = (args,)
    named = dict(kwargs or {})
    if args and isinstance(args[-1], dict):
        if args[-1]:
            named = {**args[-1], **named}
        args = args[:-1]
    return args, named


def _forward_parameter_names(model) -> List[str]:
    fn = getattr(model, "forward", model)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _default_input_names(model, args: tuple, kwargs: dict) -> List[str]:
    params = _forward_parameter_names(model)
    names: List[str] = []
    for i, a in enumerate(args):
        base = params[i] if i < len(params) else f"input_{i}"
        n = len(flatten(a, "input")[0])
        names += [base] if n == 1 and isinstance(a, Tensor) else [f"{base}_{k}" for k in range(n)]
    for key, v in kwargs.items():
        n = len(flatten(v, "input")[0])
        names += [key] if n == 1 and isinstance(v, Tensor) else [f"{key}_{k}" for k in range(n)]
    return names


def _names(given: Optional[Sequence[str]], defaults: List[str], what: str) -> List[str]:
    given = list(given or [])
    if len(given) > len(defaults):
        raise OnnxExporterError(f"ONNX export: number of {what} names provided ({len(given)}) exceeded number of "
                                f"{what}s ({len(defaults)})\n  fix: {what}_names={given[:len(defaults)]}")
    names = given + defaults[len(given):]
    taken = set(given)
    for i in range(len(given), len(names)):  # a default that clashes with a given name gets a suffix
        base, k = names[i], 1
        while names[i] in taken:
            names[i] = f"{base}_{k}"
            k += 1
        taken.add(names[i])
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise OnnxExporterError(f"ONNX export: {what} names must be distinct, got {dup} more than once\n"
                                f"  fix: name each {what} once")
    return names


def _axis_names(dynamic_axes, input_names, output_names, ranks_in, ranks_out):
    """{name: {axis: axis name}} from PyTorch's dynamic_axes forms (a list of axes gets the names
    '<name>_dynamic_axes_<k>')."""
    out: Dict[str, Dict[int, str]] = {}
    known = dict(zip(input_names, ranks_in))
    known.update(zip(output_names, ranks_out))
    for key, value in (dynamic_axes or {}).items():
        if key not in known:
            warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output name")
            continue
        if isinstance(value, Mapping):
            axes = {int(a): str(n) for a, n in value.items()}
        elif isinstance(value, (list, tuple)):
            axes = {int(a): f"{key}_dynamic_axes_{i + 1}" for i, a in enumerate(value)}
        else:
            raise OnnxExporterError(f"ONNX export: dynamic_axes['{key}'] must be a dict {{axis: name}} or a list of "
                                    f"axes, got {type(value).__name__}\n"
                                    f"  fix: dynamic_axes={{'{key}': {{0: 'batch'}}}}")
        rank = known[key]
        for a in list(axes):
            if not -rank <= a < rank:
                raise OnnxExporterError(f"ONNX export: dynamic_axes['{key}'] names axis {a}, but '{key}' has {rank} "
                                        f"axes\n  fix: use an axis in [0, {rank - 1}]")
            if a < 0:
                axes[a % rank] = axes.pop(a)
        out[key] = axes
    return out


def _check_options(training, operator_export_type, opset_version, export_modules_as_functions, dynamic_shapes,
                   custom_translation_table, onnx) -> Tuple[int, Any]:
    from . import MIN_OPSET, DEFAULT_OPSET, OperatorExportTypes, TrainingMode
    newest = onnx.defs.onnx_opset_version()
    opset = DEFAULT_OPSET if opset_version is None else opset_version
    if not isinstance(opset, bool) and isinstance(opset, (int, np.integer)) and 1 <= int(opset) < MIN_OPSET:
        # PyTorch's exporter takes an opset older than its ops too: it exports at the oldest it has
        # and warns (it keeps that opset when onnx cannot convert the model down, which onnx's
        # converter cannot for most ops). So does glassgrad, at MIN_OPSET (docs/onnx.md).
        warnings.warn(f"Setting ONNX exporter to use operator set version {MIN_OPSET} because the requested "
                      f"opset_version {int(opset)} is a lower version than we have implementations for: the "
                      f"exported model imports opset {MIN_OPSET}, which runtimes of the last years run. Consider "
                      f"setting opset_version >= {MIN_OPSET} (the default is {DEFAULT_OPSET})", UserWarning,
                      stacklevel=4)
        opset = MIN_OPSET
    if isinstance(opset, bool) or not isinstance(opset, (int, np.integer)) or not MIN_OPSET <= int(opset) <= newest:
        raise OnnxExporterError(f"ONNX export: opset_version={opset_version!r} is not supported: glassgrad exports "
                                f"opsets {MIN_OPSET} to {newest} (the newest the installed onnx knows)\n"
                                f"  fix: opset_version={DEFAULT_OPSET}")
    try:
        mode = OperatorExportTypes(operator_export_type)
    except ValueError:
        raise OnnxExporterError(f"ONNX export: unknown operator_export_type {operator_export_type!r}\n"
                                f"  fix: operator_export_type=OperatorExportTypes.ONNX") from None
    if mode in (OperatorExportTypes.ONNX_ATEN, OperatorExportTypes.ONNX_ATEN_FALLBACK):
        raise UnsupportedOperatorError(f"ONNX export: operator_export_type={mode.name} exports ops as PyTorch's ATen "
                                       f"library calls, which a glassgrad model does not make\n"
                                       f"  fix: OperatorExportTypes.ONNX, or ONNX_FALLTHROUGH to keep ops without an "
                                       f"ONNX form as nodes of the domain 'org.glassgrad'")
    TrainingMode(training)
    if export_modules_as_functions:
        raise UnsupportedOperatorError("ONNX export: export_modules_as_functions is not supported: glassgrad writes "
                                       "one flat graph (each node named by its layer's path)\n"
                                       "  fix: export_modules_as_functions=False")
    if dynamic_shapes is not None:
        raise UnsupportedOperatorError("ONNX export: dynamic_shapes (torch.export's form) is not supported\n"
                                       "  fix: name the dynamic axes with dynamic_axes={'input': {0: 'batch'}}")
    if custom_translation_table:
        raise UnsupportedOperatorError("ONNX export: custom_translation_table maps PyTorch ops; glassgrad's ops "
                                       "export through glassgrad/onnx/ops/\n  fix: custom_translation_table=None")
    return int(opset), mode


def _resized(array: np.ndarray, axes: Mapping[int, str], sizes: Mapping[str, int]) -> np.ndarray:
    """The example input with each dynamic axis repeated or cut to the trace's size."""
    for axis, name in axes.items():
        n = sizes[name]
        array = np.take(array, np.arange(n) % max(array.shape[axis], 1), axis=axis)
    return array


def trace(model, args, kwargs, training, in_axes: List[Dict[int, str]]):
    """The captured forward pass: one trace, or the corner traces of the dynamic axes (_symbolic)."""
    from . import TrainingMode, select_model_mode_for_export
    flat, rebuild_all = flatten((args, kwargs), "input")
    arrays = [t.numpy(force=True) for t in flat]
    devices = [str(t.device) for t in flat]

    def rebuild(inputs):
        a, k = rebuild_all(inputs)
        return a, k

    base: Dict[str, int] = {}
    for axes, arr in zip(in_axes, arrays):
        for axis, name in axes.items():
            if name in base and base[name] != arr.shape[axis]:
                raise OnnxExporterError(
                    f"ONNX export: dynamic axis '{name}' names axes of sizes {base[name]} and {arr.shape[axis]} in "
                    f"the example inputs\n  fix: give those axes different names, or equal sizes")
            base[name] = arr.shape[axis]
    module = model if hasattr(model, "named_parameters") else None
    mode = TrainingMode(training)
    if mode == TrainingMode.PRESERVE:
        mode = TrainingMode.TRAINING if getattr(model, "training", False) else TrainingMode.EVAL
    with select_model_mode_for_export(model, mode) if module is not None else _nothing():
        call = model
        if not base:
            return _capture.merge([_capture.trace_once(call, module, arrays, devices, rebuild)], None), arrays
        corners = Corners(base, {n: v + 2 for n, v in base.items()}, {n: v + 5 for n, v in base.items()})
        traces = []
        for sizes in corners.traces():
            moved = [_resized(a, axes, sizes) for a, axes in zip(arrays, in_axes)]
            try:
                traces.append(_capture.trace_once(call, module, moved, devices, rebuild))
            except OnnxExporterError:
                raise
            except Exception as e:  # the model's own error at another size
                raise OnnxExporterError(
                    f"ONNX export: the model fails when the dynamic axes {sorted(base)} take the sizes {sizes} "
                    f"(the export traces it at several sizes to learn which sizes follow them): "
                    f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}\n"
                    f"  fix: leave axes the model needs fixed out of dynamic_axes") from e
        return _capture.merge(traces, corners), arrays


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def export(model, args, f, *, export_params, verbose, training, input_names, output_names, operator_export_type,
           opset_version, dynamic_axes, keep_initializers_as_inputs, custom_opsets, export_modules_as_functions,
           kwargs, external_data, dynamic_shapes, verify, custom_translation_table):
    onnx = _onnx()
    from ._convert import InputSpec, OutputSpec, build_model
    opset, mode = _check_options(training, operator_export_type, opset_version, export_modules_as_functions,
                                 dynamic_shapes, custom_translation_table, onnx)
    if not callable(model):
        raise OnnxExporterError(f"ONNX export: model must be a glassgrad.nn.Module (or a function of tensors), got "
                                f"{type(model).__name__}\n  fix: glassgrad.onnx.export(model, x, 'model.onnx')")
    args, kwargs = _split_args(args, kwargs)
    flat, _ = flatten((args, kwargs), "input")
    in_names = _names(input_names, _default_input_names(model, args, kwargs), "input")
    if len(in_names) != len(flat):
        in_names = _names(input_names, [f"input_{i}" for i in range(len(flat))], "input")
    ranks_in = [t.ndim for t in flat]
    in_keys = {k: v for k, v in (dynamic_axes or {}).items() if k in in_names}
    in_axes_by_name = _axis_names(in_keys, in_names, [], ranks_in, [])
    in_axes = [in_axes_by_name.get(n, {}) for n in in_names]
    captured, arrays = trace(model, args, kwargs, training, in_axes)
    n_out = len(captured.trace.outputs)
    out_names = _names(output_names, ["output"] if n_out == 1 else [f"output_{i}" for i in range(n_out)], "output")
    ranks_out = [len(captured.shapes[o]) for o in captured.trace.outputs]
    out_keys = {k: v for k, v in (dynamic_axes or {}).items() if k not in in_names}
    axes = _axis_names(out_keys, [], out_names, [], ranks_out)
    inputs = []
    for name, arr, t, ax in zip(in_names, arrays, flat, in_axes):
        shape = tuple(Sym.of(ax[a]) if a in ax else int(s) for a, s in enumerate(arr.shape))
        inputs.append(InputSpec(name, shape, plain(t.dtype), ax))
    outputs = [OutputSpec(n, axes.get(n, {})) for n in out_names]
    graph_name = type(model).__name__ if hasattr(model, "named_parameters") else getattr(model, "__name__", "graph")
    from . import OperatorExportTypes
    proto = build_model(captured, inputs, outputs, opset, export_params, bool(keep_initializers_as_inputs),
                        dict(custom_opsets or {}), graph_name,
                        fallthrough=mode == OperatorExportTypes.ONNX_FALLTHROUGH)
    big = sum(len(t.raw_data) for t in proto.graph.initializer) > _TWO_GB - (64 << 20)
    data = None if big else proto.SerializeToString()   # serialized once: checked, then written
    if verbose:
        print(onnx.helper.printable_graph(proto.graph))
    if big:
        if not isinstance(f, (str, os.PathLike)) or not external_data:
            raise OnnxExporterError("ONNX export: the model is over 2 GB, which one protobuf file cannot hold\n"
                                    "  fix: pass a path as f with external_data=True: the weights go to a file "
                                    "beside it")
        path = os.fspath(f)
        onnx.save_model(proto, path, save_as_external_data=True, location=os.path.basename(path) + ".data")
        _check(onnx, path)
    else:
        _check(onnx, data)
    if verify:
        from ._verify import verify as run_check
        run_check(proto, model, args, kwargs, in_names)
    if f is None:
        return proto
    if not big:
        _write(data, f)
    return None


def _check(onnx, model) -> None:
    try:
        onnx.checker.check_model(model, full_check=True)
    except onnx.checker.ValidationError as e:
        raise CheckerError(f"ONNX export: onnx.checker rejects the exported model: {e}\n"
                           f"  fix: this is a bug of glassgrad's exporter; please report it with the model") from e


def _write(data: bytes, f) -> None:
    if isinstance(f, (str, os.PathLike)):
        with open(os.fspath(f), "wb") as out:
            out.write(data)
        return
    if not hasattr(f, "write"):
        raise OnnxExporterError(f"ONNX export: f must be a path or a binary file object, got {type(f).__name__}\n"
                                f"  fix: glassgrad.onnx.export(model, x, 'model.onnx')")
    f.write(data)
