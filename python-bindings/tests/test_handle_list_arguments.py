"""Runtime calls taking a list of handles (optimizer.step's lazy_have_grads, lazy_unrealized and
lazy_views, zero_grad's clear_grads) read each exact _C.Lazy item directly
(python-bindings/src/handle_list_caster.h); any other sequence or item goes through pybind11's
casters as before: tuples and generators are accepted, a wrong item is the call's TypeError, and
the results are the same for every form."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad import _C


def _params():
    lin = nn.Linear(3, 2)
    lin(gg.ones(1, 3)).sum().backward()
    return list(lin.parameters()), gg.ones(2, requires_grad=True)


def test_lists_tuples_and_generators_give_the_same_answers():
    (w, b), other = _params()
    handles = [w._h, other._h, b._h]
    assert _C.lazy_have_grads(handles) == [True, False, True]
    assert _C.lazy_have_grads(tuple(handles)) == [True, False, True]
    assert _C.lazy_have_grads(h for h in handles) == [True, False, True]
    assert _C.lazy_have_grads([]) == []
    assert _C.lazy_views([w.t()._h, w._h]) == [0]


def test_a_wrong_item_is_the_calls_type_error():
    (w, _), _other = _params()
    for bad in ([w._h, w], [w._h, 3], ["x"], "ab"):
        with pytest.raises(TypeError, match="incompatible function arguments"):
            _C.lazy_have_grads(bad)


def test_clear_grads_of_a_list_clears_each_gradient():
    (w, b), _other = _params()
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 1.0])
    _C.clear_grads([w._h, b._h])
    assert w.grad is None and b.grad is None


def test_none_in_a_handle_list_is_a_type_error_not_a_crash():
    # pybind11's caster turns None into a null handle, which the runtime dereferenced (the
    # interpreter died); a child process keeps a regression from taking the test run with it.
    import subprocess
    import sys
    code = (
        "import glassgrad as gg\n"
        "from glassgrad import _C\n"
        "x = gg.ones(2, requires_grad=True)\n"
        "for bad in ([None], [x._h, None], (None,), (x._h, None)):\n"
        "    for fn in (_C.lazy_have_grads, _C.lazy_unrealized, _C.lazy_views, _C.clear_grads):\n"
        "        try:\n"
        "            fn(bad)\n"
        "        except TypeError as e:\n"
        "            assert 'incompatible function arguments' in str(e), e\n"
        "        else:\n"
        "            raise SystemExit(f'{fn.__name__}({bad!r}) accepted None')\n"
        "print('ok')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", (run.returncode, run.stdout, run.stderr[-2000:])
