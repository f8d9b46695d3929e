"""Tensor._base and Tensor._is_view() compared with PyTorch's on the same ops (test_view_base.py's
tables: each maker reads only Tensor methods, so it runs on either library's tensors)."""
import pytest

import glassgrad
from test_view_base import NOT_VIEWS, VIEWS

torch = pytest.importorskip("torch")

MAKERS = {**VIEWS, **NOT_VIEWS}


def _facts(lib, make):
    y = lib.arange(24.0).reshape(4, 6).clone()
    out = make(y)
    d = y.detach()
    return (out._is_view(), out._base is y, out._base is None, y._base is None, d._base is None,
            d[1:]._base is d)


@pytest.mark.parametrize("make", list(MAKERS.values()), ids=list(MAKERS))
def test_base_matches_torch(make):
    assert _facts(glassgrad, make) == _facts(torch, make)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_views_in_blocks_match_torch(mode):
    def facts(lib):
        y = lib.randn(4, 6, requires_grad=True)
        with getattr(lib, mode)():
            v = y[1:].t()
            a = lib.randn(3, 3)
            va = a[1:]
        v2 = v.add(1)
        return v._base is y, v._is_view(), va._base is None, va._is_view(), v2._base is None
    assert facts(glassgrad) == facts(torch)


def test_in_place_ops_keep_base_as_torch():
    def facts(lib):
        y = lib.randn(4, 6)
        v = y[1:]
        same = v.add_(1) is v
        y.mul_(2)
        tv = y[:2]
        tv.t_()
        z = lib.randn(3, 4)
        z.t_()
        return same, v._base is y, tv._base is y, z._base is None
    assert facts(glassgrad) == facts(torch)
