"""einops' functions on glassgrad tensors (glassgrad/_einops_backend.py, docs/porting.md "einops").

The first tests need no einops: a stand-in einops package with its backend module's one protocol
(AbstractBackend and its subclasses, found when their framework_name is an imported module)
shows the backend is defined whichever of the two is imported first. The others run einops
itself, when installed, against NumPy."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _einops_backend

BINDINGS = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))

# the lookup einops' get_backend makes: subclasses of AbstractBackend whose framework is imported
STAND_IN = textwrap.dedent("""
    import sys
    class AbstractBackend:
        framework_name = None
    def get_backend(tensor):
        for cls in AbstractBackend.__subclasses__():
            if cls.framework_name in sys.modules and cls().is_appropriate_type(tensor):
                return cls()
        raise RuntimeError(f"Tensor type unknown to einops {type(tensor)}")
""")


def _stand_in_package(folder):
    os.makedirs(folder / "einops")
    (folder / "einops" / "__init__.py").write_text("from ._backends import get_backend\n")
    (folder / "einops" / "_backends.py").write_text(STAND_IN)


def _run(folder, code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), BINDINGS]))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split()


@pytest.mark.parametrize("order", ["import glassgrad, einops", "import einops, glassgrad"])
def test_backend_is_found_whichever_is_imported_first(tmp_path, order):
    _stand_in_package(tmp_path)
    out = _run(tmp_path, f"{order}\nb = einops.get_backend(glassgrad.ones(2))\n"
                         "print(b.framework_name, type(b).__module__)")
    assert out == ["glassgrad", "glassgrad._einops_backend"]


def test_importing_glassgrad_does_not_import_einops(tmp_path):
    _stand_in_package(tmp_path)
    assert _run(tmp_path, "import sys, glassgrad\nprint('einops' in sys.modules)") == ["False"]


class _Backends:
    """A backend module with einops' AbstractBackend defaults (shape and reshape)."""

    class AbstractBackend:
        framework_name = None

        def shape(self, x):
            return x.shape

        def reshape(self, x, shape):
            return x.reshape(shape)


def test_backend_operations_match_numpy():
    backend = _einops_backend.define(_Backends)()
    assert _einops_backend.define(_Backends) is type(backend)  # defined once
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = gg.tensor(a)
    assert backend.is_appropriate_type(x) and not backend.is_appropriate_type(a)
    np.testing.assert_array_equal(backend.transpose(x, (2, 0, 1)).numpy(), a.transpose(2, 0, 1))
    for op, ref in [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod)]:
        np.testing.assert_allclose(backend.reduce(x, op, (0, 2)).numpy(), ref(a, axis=(0, 2)), rtol=1e-6)
    b = x > 10
    np.testing.assert_array_equal(backend.reduce(b, "any", (1, 2)).numpy(), (a > 10).any(axis=(1, 2)))
    np.testing.assert_array_equal(backend.reduce(b, "all", (1, 2)).numpy(), (a > 10).all(axis=(1, 2)))
    np.testing.assert_array_equal(backend.add_axes(gg.tensor(a[0]), 3, {0: 5}).numpy(),
                                  np.broadcast_to(a[0], (5, 3, 4)))
    np.testing.assert_array_equal(backend.tile(x, (1, 2, 1)).numpy(), np.tile(a, (1, 2, 1)))
    np.testing.assert_array_equal(backend.concat([x, x], 1).numpy(), np.concatenate([a, a], 1))
    np.testing.assert_array_equal(backend.stack_on_zeroth_dimension([x, x]).numpy(), np.stack([a, a]))
    ar = backend.arange(2, 5)
    assert ar.dtype == gg.int64 and ar.tolist() == [2, 3, 4]
    assert backend.is_float_type(x) and not backend.is_float_type(ar)
    np.testing.assert_allclose(backend.einsum("abc,adc->bd", x, x).numpy(), np.einsum("abc,adc->bd", a, a),
                               rtol=1e-5)
    y = backend.from_numpy(a)
    assert y.requires_grad and not backend.from_numpy(np.arange(3)).requires_grad  # floating tensors only
    np.testing.assert_array_equal(backend.to_numpy(y), a)


def test_einops_functions_on_glassgrad_tensors():
    einops = pytest.importorskip("einops")
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = gg.tensor(a, requires_grad=True)
    y = einops.rearrange(x, "b c (h w) -> b (c h) w", h=2)
    np.testing.assert_array_equal(y.detach().numpy(), a.reshape(2, 3, 2, 2).reshape(2, 6, 2))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones_like(a))  # gradients flow through
    r = einops.repeat(gg.arange(1, 4), "n -> d n", d=2)
    assert r.dtype == gg.int64 and r.tolist() == [[1, 2, 3], [1, 2, 3]]
    np.testing.assert_array_equal(einops.reduce(x.detach(), "b c w -> b", "max").numpy(), a.max(axis=(1, 2)))
    e = einops.einsum(x.detach(), x.detach(), "b c w, b d w -> b c d")
    np.testing.assert_allclose(e.numpy(), np.einsum("bcw,bdw->bcd", a, a), rtol=1e-5)
    assert einops.parse_shape(x, "b c w") == {"b": 2, "c": 3, "w": 4}
    packed, shapes = einops.pack([x.detach(), x.detach()[..., :1]], "b c *")
    assert tuple(packed.shape) == (2, 3, 5)
    assert [tuple(t.shape) for t in einops.unpack(packed, shapes, "b c *")] == [(2, 3, 4), (2, 3, 1)]
