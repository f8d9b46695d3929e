"""nn.Buffer against PyTorch: assigned as a module attribute it becomes a buffer (persistent= decides
whether state_dict holds it), replacing whatever the name held."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import glassgrad as gg  # noqa: E402
import glassgrad.nn as nn  # noqa: E402


def _model(lib, data):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(2, 2)
            self.scale = lib.nn.Buffer(data(np.full(2, 3.0, np.float32)))
            self.mask = lib.nn.Buffer(data(np.ones(2, np.float32)), persistent=False)

        def forward(self, x):
            return self.lin(x) * self.scale * self.mask
    return M()


def test_buffers_state_dict_and_outputs_match_torch():
    ours, theirs = _model(gg, gg.tensor), _model(torch, torch.from_numpy)
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()] == ["scale", "mask"]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "mask" not in ours.state_dict()
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert type(ours.scale) is gg.Tensor and not ours.scale.requires_grad
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    np.testing.assert_allclose(ours(gg.tensor(x)).detach().numpy(), theirs(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)


def test_buffer_replaces_and_flips_persistence():
    m, t = nn.Module(), torch.nn.Module()
    m.w, t.w = nn.Parameter(np.ones(2, np.float32)), torch.nn.Parameter(torch.ones(2))
    with pytest.raises(TypeError, match="as parameter 'w'"):
        t.w = torch.nn.Buffer(torch.zeros(3))
    with pytest.raises(TypeError, match="as parameter 'w'"):
        m.w = nn.Buffer(np.zeros(3, np.float32))
    del m.w, t.w
    m.w, t.w = nn.Buffer(np.zeros(3, np.float32), persistent=False), torch.nn.Buffer(torch.zeros(3), persistent=False)
    assert list(m.parameters()) == [] and list(t.parameters()) == []
    assert list(m.state_dict()) == list(t.state_dict()) == []
    m.w, t.w = nn.Buffer(np.zeros(4, np.float32)), torch.nn.Buffer(torch.zeros(4))
    assert list(m.state_dict()) == list(t.state_dict()) == ["w"]
    assert tuple(m.w.shape) == (4,)
    m.register_buffer("none", None)
    m.none = nn.Buffer([1.0, 2.0])
    np.testing.assert_array_equal(m.none.numpy(), np.array([1.0, 2.0], np.float32))


def test_buffer_default_and_persistent_attribute():
    assert nn.Buffer().numel() == 0 and nn.Buffer().persistent
    assert not nn.Buffer([1.0], persistent=False).persistent


@pytest.mark.parametrize("given", ["all", "weight only", "extra"])
def test_load_state_dict_result_prints_as_torchs(given):
    # Course scripts print what load_state_dict returns (`<All keys matched successfully>`).
    def load(lib, to):
        m = lib.nn.Linear(2, 2)
        sd = {k: to(np.ones(tuple(v.shape), np.float32)) for k, v in m.state_dict().items()}
        if given == "weight only":
            del sd["bias"]
        if given == "extra":
            sd["extra"] = to(np.zeros(1, np.float32))
        return m.load_state_dict(sd, strict=False)
    ours, theirs = load(gg, gg.tensor), load(torch, torch.tensor)
    assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))
    assert tuple(ours) == tuple(theirs) and ours.missing_keys == theirs.missing_keys
