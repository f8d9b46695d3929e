"""nn.SyncBatchNorm on one process against PyTorch's (BatchNorm's statistics for any (N, C, *)
input, running statistics, errors, repr) and SyncBatchNorm.convert_sync_batchnorm (the same
Parameter objects and buffers, state_dicts loading both ways); a NumPy reference and finite
differences. The several-rank path is test_distributed.py's. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from torch_compare import compare

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 3, 2), (2, 3, 2, 1, 2, 2)])
@pytest.mark.parametrize("kw", [{}, dict(affine=False), dict(momentum=None), dict(track_running_stats=False),
                                dict(bias=False)])
def test_sync_batchnorm_on_one_process_matches_torch(shape, kw):
    rng = np.random.default_rng(len(shape))
    ours, theirs = nn.SyncBatchNorm(3, dtype=gg.float64, **kw), torch.nn.SyncBatchNorm(3, dtype=torch.float64, **kw)
    assert repr(ours) == repr(theirs)
    for step in range(3):
        compare(ours, theirs, [rng.standard_normal(shape)], (0,))
    for name, buf in theirs.named_buffers():
        np.testing.assert_allclose(getattr(ours, name).numpy(), buf.numpy(), rtol=1e-12, err_msg=name)
    ours.eval()
    theirs.eval()
    compare(ours, theirs, [rng.standard_normal(shape)], (0,))


def test_sync_batchnorm_refuses_what_torch_refuses_with_its_message():
    layer = nn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        layer(gg.zeros(3))
    with pytest.raises(ValueError, match="SyncBatchNorm number of input channels should be non-zero"):
        layer(gg.zeros(2, 0, 4))
    assert gg.nn.SyncBatchNorm is gg.distributed.SyncBatchNorm


def test_convert_sync_batchnorm_keeps_parameters_buffers_and_state_dicts_both_ways():
    def build(lib):
        return lib.nn.Sequential(lib.nn.Conv2d(2, 3, 1), lib.nn.BatchNorm2d(3),
                                 lib.nn.Sequential(lib.nn.BatchNorm1d(4, affine=False), lib.nn.InstanceNorm1d(3)),
                                 lib.nn.BatchNorm3d(2, bias=False))
    model = build(gg)
    bn = model[1]
    model[1](gg.tensor(np.random.default_rng(0).standard_normal((2, 3, 2, 2)).astype(np.float32)))
    model[3].eval()
    out = nn.SyncBatchNorm.convert_sync_batchnorm(model, process_group=None)
    ref = torch.nn.SyncBatchNorm.convert_sync_batchnorm(build(torch))
    assert out is model and repr(out) == repr(ref)
    assert out[1].weight is bn.weight and out[1].bias is bn.bias  # an optimizer built before still updates them
    np.testing.assert_array_equal(out[1].running_mean.numpy(), bn.running_mean.numpy())
    assert int(out[1].num_batches_tracked.item()) == 1 and out[3].training is False and out[3].bias is None
    assert list(out.state_dict()) == list(ref.state_dict())
    ref.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in out.state_dict().items()})
    out.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(5))
    assert type(single) is nn.SyncBatchNorm and single.num_features == 5
    assert type(gg.distributed.convert_sync_batchnorm(nn.BatchNorm2d(2))) is nn.SyncBatchNorm


def test_sync_batchnorm_matches_numpy_and_finite_differences():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 2, 4, 2, 2, 1))
    layer = nn.SyncBatchNorm(2, dtype=gg.float64)
    mean = x.mean(axis=(0, 2, 3, 4, 5), keepdims=True)
    var = x.var(axis=(0, 2, 3, 4, 5), keepdims=True)
    np.testing.assert_allclose(layer(gg.tensor(x)).detach().numpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-10, atol=1e-12)
    w = rng.standard_normal(x.shape)
    assert gg.debug.gradcheck(lambda t: (layer(t) * gg.tensor(w)).sum(), [x])
