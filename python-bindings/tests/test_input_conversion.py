"""Data entering glassgrad from NumPy or Python keeps its values and its shape, whatever its byte
order, strides or rank: big-endian arrays are converted (not copied as raw bytes), 0-d inputs
stay 0-d, views with any strides are copied element by element. A script's glassgrad.tensor of
an array with a negative stride or another byte order is refused as PyTorch's torch.tensor
refuses it (test_numpy_array_refusals.py); glassgrad's own paths (Parameter, load_state_dict,
an operand of arithmetic) convert such arrays."""
import numpy as np
import pytest

import glassgrad as gg

DTYPES = ["float32", "float64", "int64", "uint8", "bool"]


def _values(dtype):
    return (np.arange(24) % 7 > 2) if dtype == "bool" else np.arange(24).astype(dtype) * (3 if dtype != "uint8" else 1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["<", ">", "="])
def test_every_byte_order_round_trips_values(dtype, order):
    ref = _values(dtype).reshape(2, 3, 4)
    arr = ref.astype(np.dtype(dtype).newbyteorder(order))
    if not arr.dtype.isnative:
        with pytest.raises(ValueError, match="^given numpy array has byte order different"):
            gg.tensor(arr)
    out = (gg.tensor(arr) if arr.dtype.isnative else gg.Parameter(arr, requires_grad=False)).numpy()
    assert out.dtype == np.dtype(dtype) and out.dtype.isnative
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("view", [
    lambda a: a[:, ::2],
    lambda a: a[::-1],
    lambda a: a.T,
    lambda a: np.asfortranarray(a),
    lambda a: a.astype(">f4")[:, 1::3],
], ids=["step", "reversed", "transposed", "fortran", "big-endian-view"])
def test_strided_and_reversed_views_are_copied_element_by_element(view):
    a = np.arange(30, dtype=np.float32).reshape(5, 6)
    v = view(a)
    refused = min(v.strides) < 0 or not v.dtype.isnative
    if refused:
        with pytest.raises(ValueError):
            gg.tensor(v)
    made = gg.Parameter(v, requires_grad=False) if refused else gg.tensor(v)
    np.testing.assert_array_equal(made.numpy(), np.asarray(v, dtype=np.float32))


@pytest.mark.parametrize("value,dtype", [
    (3.0, "float32"), (3, "int64"), (True, "bool"),
    (np.float32(3.5), "float32"), (np.float64(2.5), "float64"), (np.int64(7), "int64"),
    (np.array(4.0, dtype=">f8"), "float64"),
])
def test_zero_dimensional_inputs_stay_zero_dimensional(value, dtype):
    native = not isinstance(value, np.ndarray) or value.dtype.isnative
    t = gg.tensor(value) if native else gg.Parameter(value, requires_grad=False)
    assert t.shape == () and t.ndim == 0 and t.dtype == dtype
    assert t.numpy().shape == ()
    assert t.item() == np.asarray(value).item()
    assert (t.astype("float64") * 2).shape == ()


def test_zero_dimensional_parameter_and_buffer_stay_zero_dimensional():
    p = gg.Parameter(np.float32(1.5))
    assert p.shape == ()
    m = gg.Module()
    m.register_buffer("scale", np.float32(2.0))
    assert m.scale.shape == ()


def test_big_endian_parameters_and_state_dicts_load_their_values():
    lin = gg.Linear(3, 2)
    state = {k: v.numpy().astype(v.numpy().dtype.newbyteorder(">")) + 1 for k, v in lin.state_dict().items()}
    lin.load_state_dict(state)
    for k, v in lin.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), state[k].astype(np.float32))
    p = gg.Parameter(np.array([1.0, -2.0], dtype=">f4"))
    np.testing.assert_array_equal(p.detach().numpy(), [1.0, -2.0])


def test_big_endian_operands_of_arithmetic_are_converted():
    x = gg.tensor(np.ones(3, np.float32))
    np.testing.assert_array_equal((x + np.array([1, 2, 3], dtype=">f4")).numpy(), [2, 3, 4])


def test_object_arrays_are_refused_whatever_dtype_is_asked_as_pytorch():
    # a pandas frame of mixed columns gives .values of dtype object: PyTorch raises TypeError
    # even with dtype=torch.float, rather than converting each Python object
    import glassgrad.torch as gtorch
    mixed = np.array([[1, 2.5, True], [np.nan, 0.0, False]], dtype=object)
    for make in (lambda a: gtorch.tensor(a, dtype=gtorch.float), gtorch.tensor, gtorch.as_tensor, gtorch.from_numpy,
                 gtorch.Tensor, gtorch.FloatTensor):
        with pytest.raises(TypeError, match="dtype object"):
            make(mixed)
    torch = pytest.importorskip("torch")
    for make in (lambda a: torch.tensor(a, dtype=torch.float), torch.tensor, torch.Tensor):
        with pytest.raises(TypeError):
            make(mixed)
    np.testing.assert_array_equal(gtorch.tensor(mixed.astype(np.float32)).numpy()[0], [1, 2.5, 1])
