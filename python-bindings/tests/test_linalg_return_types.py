"""The named tuples of the linalg functions are PyTorch's torch.return_types: linalg.eigh returns a
glassgrad.return_types.linalg_eigh, torch.slogdet a slogdet and linalg.slogdet a linalg_slogdet,
torch.lu_unpack a lu_unpack and linalg.lu a linalg_lu, with PyTorch's fields and printing; they
pickle by name, and out= gives the same type. The names and fields are PyTorch's."""
import pickle

import numpy as np
import pytest

import glassgrad as gg


def _spd():
    return gg.tensor([[4.0, 1.0], [1.0, 3.0]])


CASES = [
    ("linalg_eigh", lambda: gg.linalg.eigh(_spd()), ("eigenvalues", "eigenvectors")),
    ("linalg_svd", lambda: gg.linalg.svd(_spd()), ("U", "S", "Vh")),
    ("linalg_qr", lambda: gg.linalg.qr(_spd()), ("Q", "R")),
    ("linalg_lstsq", lambda: gg.linalg.lstsq(_spd(), gg.ones(2, 1)), ("solution", "residuals", "rank",
                                                                        "singular_values")),
    ("linalg_slogdet", lambda: gg.linalg.slogdet(_spd()), ("sign", "logabsdet")),
    ("linalg_inv_ex", lambda: gg.linalg.inv_ex(_spd()), ("inverse", "info")),
    ("linalg_cholesky_ex", lambda: gg.linalg.cholesky_ex(_spd()), ("L", "info")),
    ("linalg_lu_factor", lambda: gg.linalg.lu_factor(_spd()), ("LU", "pivots")),
    ("linalg_lu_factor_ex", lambda: gg.linalg.lu_factor_ex(_spd()), ("LU", "pivots", "info")),
    ("linalg_lu", lambda: gg.linalg.lu(_spd()), ("P", "L", "U")),
    ("linalg_ldl_factor", lambda: gg.linalg.ldl_factor(_spd()), ("LD", "pivots")),
    ("linalg_ldl_factor_ex", lambda: gg.linalg.ldl_factor_ex(_spd()), ("LD", "pivots", "info")),
    ("linalg_solve_ex", lambda: gg.linalg.solve_ex(_spd(), gg.ones(2, 1)), ("result", "info")),
    ("linalg_polar", lambda: gg.linalg.polar(_spd()), ("U", "H")),
    ("slogdet", lambda: gg.slogdet(_spd()), ("sign", "logabsdet")),
    ("slogdet", lambda: _spd().slogdet(), ("sign", "logabsdet")),
    ("svd", lambda: gg.svd(_spd()), ("U", "S", "V")),
    ("lu_unpack", lambda: gg.lu_unpack(*gg.linalg.lu_factor(_spd())), ("P", "L", "U")),
]


@pytest.mark.parametrize("name,call,fields", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_the_result_is_torch_s_return_type(name, call, fields):
    kind = getattr(gg.return_types, name)
    assert kind.__name__ == name and kind._fields == fields
    assert name in gg.return_types.__all__
    result = call()
    assert type(result) is kind and isinstance(result, tuple) and len(result) == len(fields)
    assert repr(result).startswith(f"glassgrad.return_types.{name}(\n{fields[0]}=tensor(")
    again = pickle.loads(pickle.dumps(result))
    assert type(again) is kind
    np.testing.assert_array_equal(again[0].numpy(), result[0].numpy())


def test_out_gives_the_same_type():
    out = (gg.empty(2), gg.empty(2, 2))
    result = gg.linalg.eigh(_spd(), out=out)
    assert type(result) is gg.return_types.linalg_eigh and result.eigenvalues is out[0]
    lu = gg.linalg.lu(_spd(), out=(gg.empty(2, 2), gg.empty(2, 2), gg.empty(2, 2)))
    assert type(lu) is gg.return_types.linalg_lu


def test_the_values_are_unchanged():
    P, L, U = gg.linalg.lu(_spd())
    np.testing.assert_allclose((P @ L @ U).numpy(), _spd().numpy(), rtol=1e-6)
    sign, logabsdet = gg.slogdet(_spd())
    assert sign.item() == 1.0 and logabsdet.item() == pytest.approx(np.log(11.0), rel=1e-6)


def test_the_names_and_fields_are_torch_s():
    torch = pytest.importorskip("torch")
    A = [[4.0, 1.0], [1.0, 3.0]]
    for name, fn, fields in [("linalg_eigh", "linalg.eigh", ("eigenvalues", "eigenvectors")),
                             ("linalg_lu", "linalg.lu", ("P", "L", "U")), ("slogdet", "slogdet", ("sign", "logabsdet")),
                             ("linalg_slogdet", "linalg.slogdet", ("sign", "logabsdet")),
                             ("linalg_polar", "linalg.polar", ("U", "H"))]:
        results = []
        for mod in (torch, gg):
            f = mod
            for part in fn.split("."):
                f = getattr(f, part)
            results.append(f(mod.tensor(A)))
        assert type(results[0]).__name__ == type(results[1]).__name__ == name
        for field in fields:
            np.testing.assert_allclose(getattr(results[1], field).numpy(), getattr(results[0], field).numpy(),
                                       rtol=1e-5, atol=1e-6)
