"""x[advanced key] = value drops the value's leading 1-sized dims before the index put, as
PyTorch's setitem does: a (1, 1, d) token written at a mask's positions (x[mask] is (k, d)),
as masked-patch models write their mask token. glassgrad refused such a value."""
import numpy as np
import pytest

import glassgrad as gg


def _mask():
    m = np.zeros((4, 5), bool)
    m[0, 1] = m[2, 3] = m[3, 0] = True
    return m


def test_a_token_with_leading_unit_dims_is_written_at_a_mask():
    m = _mask()
    token = gg.tensor(np.arange(6, dtype=np.float32).reshape(1, 1, 6), requires_grad=True)
    x = gg.zeros(4, 5, 6)
    x[gg.tensor(m)] = token
    want = np.zeros((4, 5, 6), np.float32)
    want[m] = np.arange(6)
    np.testing.assert_array_equal(x.detach().numpy(), want)
    (x * 2).sum().backward()
    assert tuple(token.grad.shape) == (1, 1, 6)
    np.testing.assert_array_equal(token.grad.numpy(), np.full((1, 1, 6), 6.0))  # 3 positions, times 2


@pytest.mark.parametrize("key", [(0, [1, 2]), ([0, 2], [1, 3]), (slice(None), [4])])
def test_integer_array_keys_take_such_values_too(key):
    a = np.zeros((4, 5, 6), np.float32)
    x = gg.tensor(a)
    x[key] = gg.ones(1, 1, 1, 6)
    a[key] = 1.0
    np.testing.assert_array_equal(x.numpy(), a)


def test_a_value_that_does_not_broadcast_is_still_refused():
    x = gg.zeros(4, 5, 6)
    with pytest.raises(gg.ShapeError, match=r"values of shape \[2, 1, 6\] cannot be broadcast"):
        x[gg.tensor(_mask())] = gg.ones(2, 1, 6)
    assert float(x.sum()) == 0.0


def test_against_torch():
    torch = pytest.importorskip("torch")
    m = _mask()
    for value in [np.full((1, 1, 6), 3.0, np.float32), np.full((1, 6), 2.0, np.float32)]:
        x, tx = gg.zeros(4, 5, 6), torch.zeros(4, 5, 6)
        x[gg.tensor(m)] = gg.tensor(value)
        tx[torch.tensor(m)] = torch.tensor(value)
        np.testing.assert_array_equal(x.numpy(), tx.numpy())
