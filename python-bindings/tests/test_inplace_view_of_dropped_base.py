"""An in-place write through a view whose base tensor has no Python handle left, after another
tensor the base was computed from was itself written in place and read (docs/inplace-and-views.md).
PyTorch computed the base before that write, so the view holds the old values and takes the new
write: bentrevett/pytorch-image-classification's AlexNet plot_filter does this
(`images = images.permute(...)` drops the handles, then normalize_image clamp_s each image in
place). glassgrad computes such a base with every realize while a view of it is alive
(docs/inplace-and-views.md, "Views of a dropped base"); it used to refuse the write ("cannot use a
tensor [2, 3]: it was overwritten in place by add_"). The expected values are PyTorch's
(2 * [[1, 2, 3], [4, 5, 6]] transposed, plus 1)."""
import pytest

import glassgrad as gg

X = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
DOUBLED_T_PLUS_1 = [[3.0, 9.0], [5.0, 11.0], [7.0, 13.0]]


def test_write_through_view_of_a_kept_base_after_its_input_was_written():
    x = gg.tensor(X)
    base = x * 2
    y = base.t()
    x.add_(1)
    assert x.min().item() == 2.0
    y.add_(1)
    assert y.tolist() == DOUBLED_T_PLUS_1
    assert base.tolist() == [[3.0, 5.0, 7.0], [9.0, 11.0, 13.0]]


def test_write_through_view_of_a_dropped_base_with_nothing_read_between():
    x = gg.tensor(X)
    y = (x * 2).t()
    x.add_(1)
    y.add_(1)
    assert y.tolist() == DOUBLED_T_PLUS_1
    assert x.tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]


def test_read_of_a_view_of_a_dropped_base_after_its_input_was_written_and_read():
    x = gg.tensor(X)
    y = (x * 2).t()
    x.add_(1)
    assert x.min().item() == 2.0
    assert y.tolist() == [[2.0, 8.0], [4.0, 10.0], [6.0, 12.0]]


@pytest.mark.parametrize("view", ["t", "row"])
def test_write_through_view_of_a_dropped_base_after_its_input_was_written_and_read(view):
    x = gg.tensor(X)
    y = (x * 2).t() if view == "t" else (x * 2)[0]
    x.add_(1)
    assert x.min().item() == 2.0
    y.add_(1)
    assert y.tolist() == (DOUBLED_T_PLUS_1 if view == "t" else [3.0, 5.0, 7.0])


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    x = torch.tensor(X)
    y = (x * 2).t()
    x.add_(1)
    assert x.min().item() == 2.0
    y.add_(1)
    assert y.tolist() == DOUBLED_T_PLUS_1
