"""torchvision.models.detection.anchor_utils.AnchorGenerator with image_list.ImageList: the cell
anchors and their shifts written out, the argument forms, the error; with torchvision installed,
the same anchors as its generator for the same maps."""
import math

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision.models.detection.anchor_utils import AnchorGenerator
from glassgrad.vision.models.detection.image_list import ImageList


def test_cell_anchors_and_their_shifts():
    gen = AnchorGenerator(sizes=((32, 64),), aspect_ratios=((0.5, 2.0),))
    # ratios major, sizes minor; h = sqrt(r) * s, w = s / sqrt(r), rounded half to even
    expected = []
    for r in (0.5, 2.0):
        for s in (32, 64):
            h, w = math.sqrt(r) * s, s / math.sqrt(r)
            expected.append(np.round(np.array([-w, -h, w, h], np.float32) / 2))
    np.testing.assert_array_equal(gen.cell_anchors[0].numpy(), np.array(expected))
    images = ImageList(gg.zeros(2, 3, 40, 60), [(40, 60), (35, 50)])
    anchors = gen(images, [gg.zeros(2, 8, 4, 5)])  # strides 40 // 4 = 10 and 60 // 5 = 12
    assert len(anchors) == 2 and tuple(anchors[0].shape) == (4 * 5 * 4, 4) and anchors[0].dtype == gg.float32
    shifts = np.array([[x * 12, y * 10, x * 12, y * 10] for y in range(4) for x in range(5)], np.float32)
    np.testing.assert_array_equal(anchors[1].numpy(), (shifts[:, None] + np.array(expected)[None]).reshape(-1, 4))


def test_argument_forms_and_counts():
    gen = AnchorGenerator(sizes=(16, 32, 64), aspect_ratios=(0.5, 1.0))  # one size per map, ratios for every map
    assert gen.sizes == ((16,), (32,), (64,)) and gen.aspect_ratios == ((0.5, 1.0),) * 3
    assert gen.num_anchors_per_location() == [2, 2, 2] and AnchorGenerator().num_anchors_per_location() == [9]
    maps = [gg.zeros(1, 4, 8, 8), gg.zeros(1, 4, 4, 4), gg.zeros(1, 4, 2, 2)]
    (anchors,) = gen(ImageList(gg.zeros(1, 3, 64, 64), [(64, 64)]), maps)
    assert tuple(anchors.shape) == ((64 + 16 + 4) * 2, 4)
    assert list(gen.state_dict()) == [] and ImageList(gg.zeros(1, 3, 4, 4), [(4, 4)]).to("cpu").image_sizes == [(4, 4)]
    with pytest.raises(ValueError, match="number of feature maps"):
        gen(ImageList(gg.zeros(1, 3, 64, 64), [(64, 64)]), maps[:2])


@pytest.mark.parametrize("kwargs", [{}, {"sizes": ((32,), (64,), (128,)), "aspect_ratios": ((0.5, 1.0, 2.0),) * 3},
                                    {"sizes": (16, 40, 100), "aspect_ratios": (0.7, 1.3)},
                                    {"sizes": ((5, 11),), "aspect_ratios": ((0.33, 1.0),)}])
def test_matches_torchvision(kwargs):
    torch = pytest.importorskip("torch")
    tv_anchor_utils = pytest.importorskip("torchvision.models.detection.anchor_utils")
    tv_image_list = pytest.importorskip("torchvision.models.detection.image_list")
    theirs, ours = tv_anchor_utils.AnchorGenerator(**kwargs), AnchorGenerator(**kwargs)
    sizes = [(13, 17), (7, 9), (4, 5)][:len(ours.cell_anchors)]
    expected = theirs(tv_image_list.ImageList(torch.zeros(2, 3, 100, 133), [(100, 133), (90, 120)]),
                      [torch.zeros(2, 3, *s) for s in sizes])
    got = ours(ImageList(gg.zeros(2, 3, 100, 133), [(100, 133), (90, 120)]), [gg.zeros(2, 3, *s) for s in sizes])
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.numpy(), e.numpy())
