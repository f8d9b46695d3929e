"""einops on glassgrad tensors: `rearrange`, `repeat`, `reduce`, `einsum`, `pack` and `parse_shape`
from the einops package take glassgrad tensors as they take PyTorch's (docs/porting.md, "einops").

einops finds a tensor's framework among the subclasses of its AbstractBackend whose framework_name
is an imported module; the backend below is such a subclass, named "glassgrad". It is defined when
einops' backend module loads (a finder on sys.meta_path waits for it, so importing glassgrad does not
import einops), or at once when einops was imported first. Its operations are PyTorch backend's,
spelled with glassgrad's names, so results, dtypes and gradients are those the same call gives on
PyTorch tensors."""
from __future__ import annotations

import importlib.abc
import sys

BACKENDS = "einops._backends"  # the module that defines AbstractBackend


def define(backends) -> type:
    """The glassgrad backend class, made a subclass of `backends`.AbstractBackend (once)."""
    existing = getattr(backends, "GlassgradBackend", None)
    if existing is not None:
        return existing
    import glassgrad as gg

    class GlassgradBackend(backends.AbstractBackend):
        framework_name = "glassgrad"

        def is_appropriate_type(self, tensor):
            return isinstance(tensor, gg.Tensor)

        def from_numpy(self, x):
            variable = gg.from_numpy(x)
            if self.is_float_type(variable):
                variable.requires_grad = True  # as einops' PyTorch backend: only floating tensors
            return variable

        def to_numpy(self, x):
            return x.detach().cpu().numpy()

        def arange(self, start, stop):
            return gg.arange(start, stop, dtype=gg.int64)

        def reduce(self, x, operation, reduced_axes):
            if operation in ("min", "max"):
                return getattr(x, "a" + operation)(dim=reduced_axes)
            if operation in ("sum", "mean"):
                return getattr(x, operation)(dim=reduced_axes)
            if operation in ("any", "all", "prod"):  # one axis at a time, the last first
                for axis in sorted(reduced_axes)[::-1]:
                    x = getattr(x, operation)(dim=axis)
                return x
            raise NotImplementedError("Unknown reduction ", operation)

        def transpose(self, x, axes):
            return x.permute(axes)

        def stack_on_zeroth_dimension(self, tensors: list):
            return gg.stack(tensors)

        def add_axes(self, x, n_axes, pos2len):
            repeats = [-1] * n_axes
            for position, length in pos2len.items():
                x = self.add_axis(x, position)
                repeats[position] = length
            return x.expand(repeats)

        def tile(self, x, repeats):
            return x.repeat(repeats)

        def concat(self, tensors, axis: int):
            return gg.cat(tensors, dim=axis)

        def add_axis(self, x, new_position):
            return gg.unsqueeze(x, new_position)

        def is_float_type(self, x):
            return x.dtype in (gg.float16, gg.float32, gg.float64, gg.bfloat16)

        def einsum(self, pattern, *x):
            return gg.einsum(pattern, *x)

    backends.GlassgradBackend = GlassgradBackend
    return GlassgradBackend


class _Loader(importlib.abc.Loader):
    """Runs einops' own loader, then defines the backend in the module it filled."""

    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        define(module)


class EinopsFinder(importlib.abc.MetaPathFinder):
    """Finds einops' backend module with the finders after it and wraps its loader in _Loader."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != BACKENDS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


def install() -> None:
    """Defines the backend now when einops is loaded, else waits for it with EinopsFinder (once)."""
    if BACKENDS in sys.modules:
        define(sys.modules[BACKENDS])
    elif not any(isinstance(f, EinopsFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, EinopsFinder())
