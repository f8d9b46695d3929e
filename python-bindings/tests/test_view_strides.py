"""x.stride() and x.storage_offset() of views are PyTorch's (docs/inplace-and-views.md,
"Strides"): unsqueeze gives its new axis size(d) * stride(d) of the tensor it is applied to,
select, squeeze and integer indexing keep the strides of the axes they leave, x[key] applies its
items left to right, view/reshape give PyTorch's computeStride strides on size-1 axes, and an
empty slice keeps its start in the offset. The expected values are PyTorch's, for a contiguous
x of shape (2, 3, 4); writes through the views still reach x."""
import pytest

import glassgrad as gg

CASES = [  # (view, shape, strides, storage offset)
    ("x[:, None, 1]", lambda x: x[:, None, 1], (2, 1, 4), (12, 12, 1), 4),
    ("x[None, :, None, 1]", lambda x: x[None, :, None, 1], (1, 2, 1, 4), (24, 12, 12, 1), 4),
    ("x[0, None, 1]", lambda x: x[0, None, 1], (1, 4), (12, 1), 4),
    ("x[:, None, None, 1]", lambda x: x[:, None, None, 1], (2, 1, 1, 4), (12, 12, 12, 1), 4),
    ("x[None, ::2]", lambda x: x[None, ::2], (1, 1, 3, 4), (24, 24, 4, 1), 0),
    ("x[:, None, 1:2]", lambda x: x[:, None, 1:2], (2, 1, 1, 4), (12, 12, 4, 1), 4),
    ("x[..., 0:1].select(0, 1)", lambda x: x[..., 0:1].select(0, 1), (3, 1), (4, 1), 12),
    ("x[:, :, 0:1].transpose(0, 2)[0]", lambda x: x[:, :, 0:1].transpose(0, 2)[0], (3, 2), (4, 12), 0),
    ("x.permute(2, 0, 1)[:, :1].unsqueeze(0)", lambda x: x.permute(2, 0, 1)[:, :1].unsqueeze(0), (1, 4, 1, 3),
     (4, 1, 12, 4), 0),
    ("x.transpose(0, 2).unsqueeze(3)", lambda x: x.transpose(0, 2).unsqueeze(3), (4, 3, 2, 1), (1, 4, 12, 1), 0),
    ("x[:1].transpose(0, 1).unsqueeze(0)", lambda x: x[:1].transpose(0, 1).unsqueeze(0), (1, 3, 1, 4),
     (12, 4, 12, 1), 0),
    ("x[:, :1].squeeze(1)", lambda x: x[:, :1].squeeze(1), (2, 4), (12, 1), 0),
    ("x[:, :1, :1].squeeze(1)", lambda x: x[:, :1, :1].squeeze(1), (2, 1), (12, 1), 0),
    ("x[:1, :, :1].transpose(0, 1).squeeze()", lambda x: x[:1, :, :1].transpose(0, 1).squeeze(), (3,), (4,), 0),
    ("x[:, 1:1].unsqueeze(0)", lambda x: x[:, 1:1].unsqueeze(0), (1, 2, 0, 4), (24, 12, 4, 1), 4),
    ("x.narrow(2, 3, 0)", lambda x: x.narrow(2, 3, 0), (2, 3, 0), (12, 4, 1), 3),
    ("x.flatten()[5:5]", lambda x: x.flatten()[5:5], (0,), (1,), 5),
    ("x[:, 3:]", lambda x: x[:, 3:], (2, 0, 4), (12, 4, 1), 12),
    ("x[:, :1].view(2, 4)", lambda x: x[:, :1].view(2, 4), (2, 4), (12, 1), 0),
    ("x[:, :1].view(2, 1, 1, 4)", lambda x: x[:, :1].view(2, 1, 1, 4), (2, 1, 1, 4), (12, 4, 4, 1), 0),
    ("x.transpose(0, 1).reshape(3, 1, 2, 4)", lambda x: x.transpose(0, 1).reshape(3, 1, 2, 4), (3, 1, 2, 4),
     (4, 24, 12, 1), 0),
]


@pytest.mark.parametrize("name, view, shape, strides, offset", CASES, ids=[c[0] for c in CASES])
def test_view_strides_are_pytorchs(name, view, shape, strides, offset):
    x = gg.arange(24.0).reshape(2, 3, 4)
    y = view(x)
    assert (tuple(y.shape), y.stride(), y.storage_offset()) == (shape, strides, offset)
    if y.numel():
        y.fill_(-1.0)  # the view still writes through to x
        assert (x == -1).sum().item() == y.numel()


def test_element_selection_keeps_the_strides_of_size_1_axes():
    x = gg.arange(12.0).reshape(3, 1, 4).transpose(1, 2)  # (3, 4, 1), strides (4, 1, 4)
    assert x[2].stride() == (1, 4) and x[2, 1].stride() == (4,)
    assert x[2].tolist() == [[8.0], [9.0], [10.0], [11.0]]
