"""The storage types in glassgrad's own terms (docs/dtypes.md): gradients through float16 and
bfloat16 tensors against float64 central finite differences, ops on storage types recorded as
casts around the op, refusals with their fixes, and (on the GPU machine) the CUDA Cast kernel
against the CPU one bit for bit between every pair of dtypes."""
import pathlib
import runpy

import numpy as np
import pytest

import glassgrad as gg

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
HALF_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _values(t):
    return (t.float() if t.dtype == "bfloat16" else t).detach().numpy()


def _f(x, lib):
    """A smooth function of a vector: sum(sin(x) * x^2) + mean(exp(x / 4))."""
    return (lib.sin(x) * x * x).sum() + lib.exp(x / 4).mean()


def _central_differences(x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (_f(x + e, np) - _f(x - e, np)) / (2 * h)
    return g


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gradients_through_16_bit_storage_match_float64_finite_differences(dtype):
    rng = np.random.default_rng(0)
    leaf = gg.tensor(rng.uniform(-2, 2, 7), dtype=getattr(gg, dtype), requires_grad=True)
    x = _values(leaf).astype(np.float64)  # the stored values, exactly
    y = _f(leaf, gg)
    assert y.dtype == dtype  # computed in float32, stored back as the leaf's type (PyTorch's result type)
    y.backward()
    assert leaf.grad.dtype == dtype  # a gradient has its tensor's dtype
    want = _central_differences(x)
    # each op rounds its result to the storage type once: a few units of its precision
    np.testing.assert_allclose(_values(leaf.grad), want, rtol=16 * HALF_EPS[dtype], atol=16 * HALF_EPS[dtype])


def test_a_float16_leaf_used_twice_accumulates_its_gradient_in_float16():
    x = gg.tensor([0.5, -1.0, 2.0], dtype=gg.float16, requires_grad=True)
    ((x * 3).sum() + (x * x).sum()).backward()
    assert x.grad.dtype == "float16"
    np.testing.assert_array_equal(x.grad.numpy(), np.array([4.0, 1.0, 7.0], np.float16))


def test_int32_arithmetic_stays_int32_and_wraps_around_as_twos_complement():
    x = gg.tensor(np.array([2 ** 31 - 1, -5, 7], dtype=np.int32))
    y = x + 1
    assert y.dtype == "int32"
    assert y.tolist() == [-(2 ** 31), -4, 8]  # computed in int64, stored back in int32
    assert (x.sum()).dtype == "int64" and x.sum().item() == 2 ** 31 - 1 + 2
    assert (x / 2).dtype == "float32" and (x * 2.5).dtype == "float32"


def test_an_argmax_of_int32_data_is_int64_and_its_max_int32():
    x = gg.tensor(np.array([[1, 9, 3], [4, 2, 8]], dtype=np.int32))
    values, indices = x.max(1)
    assert values.dtype == "int32" and indices.dtype == "int64"
    assert values.tolist() == [9, 8] and indices.tolist() == [1, 2]
    assert x.argmax().dtype == "int64" and x.argmax().item() == 1


def test_views_of_a_storage_type_tensor_share_its_memory():
    x = gg.tensor(np.arange(6, dtype=np.int16).reshape(2, 3))
    row = x[1]
    row.add_(10)
    assert x.dtype == "int16" and x.tolist() == [[0, 1, 2], [13, 14, 15]]


@pytest.mark.parametrize("recorded", [False, True], ids=["done at once", "recorded"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_a_write_into_elements_of_a_storage_type_tensor_moves_bytes_without_casting_the_tensor(dtype, recorded):
    """x[i, j] += 1 and x[i] = row (makemore's counting loop): SliceScatter takes every dtype as it is,
    so only the element read and the value written are cast, never the whole tensor. Done at once
    (docs/inplace-and-views.md, "Writes done at once") the elements are copied as they are; with
    views recorded as nodes (as an export records them) the writes are SliceScatters."""
    from glassgrad import _C
    was = _C.eager_views()
    _C.set_eager_views(not recorded)
    try:
        _write_elements_of_a_storage_type_tensor(dtype, recorded)
    finally:
        _C.set_eager_views(was)


def _write_elements_of_a_storage_type_tensor(dtype, recorded):
    from glassgrad import debug
    rng = np.random.default_rng(3)
    start = rng.integers(0, 5, (5, 7))
    row = rng.integers(0, 5, 7)
    x = gg.tensor(start).to(getattr(gg, dtype))
    x.tolist()  # realized: the plan below holds the writes only
    if dtype == "bool":  # bool += int is refused, as PyTorch refuses it
        x[1, 2] = True
    else:
        x[1, 2] += 1
    x[3] = gg.tensor(row).to(getattr(gg, dtype))
    x[4, 1:6:2] = 2
    want = start.copy()
    want[1, 2] = 1 if dtype == "bool" else want[1, 2] + 1
    want[3] = row
    want[4, 1:6:2] = 2
    if dtype == "bool":
        want = want.astype(bool)
    x._raw()  # realizes the writes, in x's own dtype
    plan = debug.last_plan()
    got = _values(x)
    np.testing.assert_array_equal(got, want.astype(got.dtype))
    assert x.dtype == dtype
    # Writes are done at once only into a CPU buffer (docs/inplace-and-views.md, "Writes done at
    # once"): on a GPU (the default device of the CUDA test run) they stay recorded.
    done_at_once = not recorded and x.device.type == "cpu"
    assert any(s["op"] == "SliceScatter" for s in plan.steps) == (not done_at_once), plan
    whole = [s for s in plan.steps if s["op"] == "Cast" and tuple(plan.buffers[s["outputs"][0]]["shape"]) == (5, 7)]
    assert not whole, plan


def test_an_optimizer_on_float16_parameters_is_refused_with_the_fix():
    layer = gg.nn.Linear(3, 2).half()
    assert layer.weight.dtype == "float16"
    out = layer(gg.ones(4, 3, dtype=gg.float16))
    assert out.dtype == "float16"
    out.sum().backward()
    assert layer.weight.grad.dtype == "float16"
    opt = gg.optim.SGD(layer.parameters(), lr=0.1)
    with pytest.raises(gg.DTypeError, match=r"(?s)float16 is a storage type.*fix: .*float\(\)"):
        opt.step()
        layer.weight.detach().numpy()


def test_unsupported_numpy_types_are_refused_naming_the_types_glassgrad_holds():
    with pytest.raises(gg.DTypeError, match=r"(?s)uint16 is not supported.*int8, int16, int32"):
        gg.tensor(np.zeros(3, np.uint16))


@pytest.mark.cuda
@pytest.mark.parametrize("source", DTYPES)
def test_cuda_cast_matches_the_cpu_bit_for_bit(source):
    rng = np.random.default_rng(11)
    if source == "bool":
        data = rng.random((5, 67)) < 0.5
    elif source in ("float16", "bfloat16", "float32", "float64"):
        data = np.concatenate([rng.uniform(-300, 300, (4, 67)), rng.standard_normal((1, 67)) * 1e-6])
    else:
        info = np.iinfo(source)
        data = rng.integers(info.min, info.max, (5, 67), endpoint=True, dtype=np.int64)
    cpu = gg.tensor(data).to(getattr(gg, source))
    gpu = cpu.to("cuda")
    for target in DTYPES:
        # strided sources too: every other column
        for a, b in ((cpu, gpu), (cpu[:, ::2], gpu[:, ::2])):
            want, got = a.to(getattr(gg, target)), b.to(getattr(gg, target)).cpu()
            assert got.dtype == target
            if target == "bfloat16":
                want, got = want.float(), got.float()
            np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy(), err_msg=f"{source} -> {target}")


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "float16", "bfloat16"])
def test_cuda_ops_on_storage_types_match_the_cpu(dtype):
    rng = np.random.default_rng(5)
    cpu = gg.tensor(rng.uniform(-50, 50, (8, 33))).to(getattr(gg, dtype))
    gpu = cpu.to("cuda")
    def slice_write(x):
        y = x.clone()
        y[2, 3:9] = y[1, 3:9]
        y[5, 4] += 1
        return y

    for name, fn in {"mul-add": lambda x: x * 3 + x, "sum": lambda x: x.sum(1), "max": lambda x: x.max(0)[0],
                     "fill": lambda x: gg.full((4,), 7, dtype=x.dtype, device=x.device),
                     "slice write": slice_write}.items():
        want, got = fn(cpu), fn(gpu).cpu()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(_values(got), _values(want), err_msg=name)


def test_the_dtypes_page_snippet_prints_what_the_page_shows(capsys):
    root = pathlib.Path(gg.__file__).resolve().parents[2]
    snippet = root / "docs" / "snippets" / "dtypes_promotion.py"
    if not snippet.exists():
        pytest.skip("the docs are not next to this glassgrad (an installed package)")
    runpy.run_path(str(snippet), run_name="__main__")
    assert capsys.readouterr().out == snippet.with_suffix(".out").read_text()


def test_maximum_and_minimum_of_bool_tensors_are_or_and_and():
    a, b = gg.tensor([True, False, True]), gg.tensor([False, False, True])
    assert gg.maximum(a, b).tolist() == [True, False, True] and gg.maximum(a, b).dtype == gg.bool_
    assert gg.minimum(a, b).tolist() == [False, False, True] and gg.minimum(a, b).dtype == gg.bool_
