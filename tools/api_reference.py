"""Writes docs/api.md, the API reference: every public name of glassgrad (the top-level functions,
the Tensor methods and attributes, glassgrad.nn, glassgrad.nn.functional, glassgrad.optim and
its schedulers), with its signature, the first paragraph of its docstring and its PyTorch
counterpart (the same path in torch, where torch has it; "glassgrad's own" otherwise).

    PYTHONPATH=python-bindings python3 tools/api_reference.py            # rewrite docs/api.md
    PYTHONPATH=python-bindings python3 tools/api_reference.py --check    # exit 1 if it is stale

Needs torch, to name the counterparts (test_api_reference.py skips without it).
"""
from __future__ import annotations

import inspect
import os
import sys
import types

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PAGE = os.path.join(ROOT, "docs", "api.md")


def _summary(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    para = doc.split("\n\n")[0].replace("\n", " ").strip()
    return para.replace("|", "\\|")


class _Named:
    """A default that is a function or class, shown by its name (its repr holds an address)."""

    def __init__(self, obj):
        self.name = f"{obj.__module__}.{obj.__qualname__}" if hasattr(obj, "__qualname__") else repr(obj)

    def __repr__(self) -> str:
        return self.name


def _is_code(default) -> bool:
    return default is not inspect.Parameter.empty and (
        inspect.isfunction(default) or inspect.isclass(default) or inspect.isbuiltin(default))


def _signature(obj, method: bool = False) -> str:
    """The parameters as a call shows them: names, defaults and the bare * of keyword-only ones,
    without annotations (and without the tensor itself for a method)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    params = [p.replace(annotation=inspect.Parameter.empty, default=_Named(p.default))
              if _is_code(p.default) else p.replace(annotation=inspect.Parameter.empty)
              for p in list(sig.parameters.values())[1 if method else 0:]]
    sig = sig.replace(parameters=params,
                      return_annotation=inspect.Signature.empty)
    return str(sig).replace("|", "\\|")


def _resolve(root, path: str):
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _entry(gg_obj, shown: str, torch_root, torch_path: str) -> str:
    counterpart = f"`torch.{torch_path}`" if _resolve(torch_root, torch_path) is not None else "glassgrad's own"
    kind = "class " if inspect.isclass(gg_obj) else ""
    if isinstance(gg_obj, property) or not callable(gg_obj):
        sig = ""
    else:
        sig = _signature(gg_obj, method=shown.startswith("Tensor.") and not inspect.isclass(gg_obj))
    return f"| `{kind}{shown}{sig}` | {counterpart} | {_summary(gg_obj)} |"


def _public(names):
    return sorted(n for n in names if not n.startswith("_"))


def sections(gg, torch):
    """[(title, intro, rows)]."""
    import glassgrad.nn.functional as GF
    import glassgrad.optim.lr_scheduler as GS
    import glassgrad.optim.swa_utils as GW
    from glassgrad import _einsum, _factories, _math, _reductions, _scans, _shapes

    out = []
    seen = set()

    def top(title, intro, names):
        rows = []
        for n in _public(names):
            obj = getattr(gg, n, None)
            if obj is None or n in seen:
                continue
            seen.add(n)
            rows.append(_entry(obj, f"glassgrad.{n}", torch, n))
        out.append((title, intro, rows))

    top("Creating tensors", "Factories, with PyTorch's dtype inference (`full((2,), 1)` is int64).",
        list(_factories.__all__) + ["tensor", "Tensor", "as_tensor"])
    top("Elementwise math, comparisons and logic",
        "Each is also the Tensor method of the same name; operands are promoted as PyTorch promotes them.",
        _math.__all__ + ["where", "relu"])
    top("Reductions", "Each is also the Tensor method of the same name.", _reductions.__all__)
    top("Scans and sorts", "Each is also the Tensor method of the same name.", _scans.__all__)
    top("Shapes and products", "Also Tensor methods, where PyTorch has them.",
        _shapes.__all__ + _einsum.__all__ + ["cat", "concat", "concatenate", "flatten", "reshape"])
    top("dtypes and devices", "", ["dtype", "promote_types", "result_type", "can_cast", "device", "Size",
                                   "set_default_device", "default_device"])
    other = [n for n in dir(gg) if not n.startswith("_") and not isinstance(getattr(gg, n), types.ModuleType)
             and callable(getattr(gg, n)) and not isinstance(getattr(gg, n), gg.dtype)]
    top("Everything else at the top level", "Training, memory, compiling, saving, and the layers' seed spellings.",
        other)

    rows = []
    for n in _public(dir(gg.Tensor)):
        obj = inspect.getattr_static(gg.Tensor, n)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        rows.append(_entry(obj if not isinstance(obj, property) else obj, f"Tensor.{n}", torch, f"Tensor.{n}"))
    out.append(("Tensor methods and attributes", "Methods that are also functions (`x.sin()`, `x.sum(1)`) are the "
                "functions above with the tensor as the first argument.", rows))

    rows = [_entry(getattr(gg.nn, n), f"nn.{n}", torch, f"nn.{n}") for n in _public(gg.nn.__all__)
            if inspect.isclass(getattr(gg.nn, n))]
    out.append(("glassgrad.nn", "Layers and containers, with PyTorch's arguments; each prints as PyTorch's.", rows))
    rows = [_entry(getattr(GF, n), f"nn.functional.{n}", torch, f"nn.functional.{n}") for n in _public(dir(GF))
            if inspect.isfunction(getattr(GF, n))]
    out.append(("glassgrad.nn.functional", "", rows))
    rows = [_entry(getattr(gg.optim, n), f"optim.{n}", torch, f"optim.{n}") for n in _public(dir(gg.optim))
            if inspect.isclass(getattr(gg.optim, n))]
    rows += [_entry(getattr(GS, n), f"optim.lr_scheduler.{n}", torch, f"optim.lr_scheduler.{n}")
             for n in _public(dir(GS)) if inspect.isclass(getattr(GS, n)) and getattr(GS, n).__module__.startswith(
                 "glassgrad")]
    rows += [_entry(getattr(GW, n), f"optim.swa_utils.{n}", torch, f"optim.swa_utils.{n}") for n in GW.__all__]
    out.append(("glassgrad.optim", "Optimizers, learning-rate schedulers and weight averaging (swa_utils).", rows))
    return out


def page(gg, torch) -> str:
    lines = ["# API reference", "",
             "Every public name of glassgrad with its signature, what it does (the first paragraph of its "
             "docstring) and its PyTorch counterpart. Written by `tools/api_reference.py` from the docstrings; "
             "a test checks that it is current. [Name coverage](coverage.md) says which of the names real "
             "PyTorch scripts use glassgrad has."]
    for title, intro, rows in sections(gg, torch):
        lines += ["", f"## {title}", ""]
        if intro:
            lines += [intro, ""]
        lines += ["| glassgrad | PyTorch | what it does |", "|---|---|---|"] + rows
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from generated_page import write_or_check  # tools/ is the script's directory

    def text() -> str:
        import glassgrad as gg
        import torch
        return page(gg, torch)
    return write_or_check(__doc__.split("\n")[0], PAGE, text, argv)


if __name__ == "__main__":
    sys.exit(main())
