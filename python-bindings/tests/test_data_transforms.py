"""Augmentation (random crop with padding, horizontal flip) and the DataLoader: shapes, the
exact pixels moved, repeatability with a seed, shuffling and drop_last."""
import numpy as np
import pytest

from glassgrad import data


def batch(n=6, c=3, h=8, w=8):
    return np.arange(n * c * h * w, dtype=np.int64).reshape(n, c, h, w).astype(np.uint8)


def test_random_crop_keeps_shape_and_moves_each_image_by_one_offset():
    x = np.random.default_rng(0).integers(1, 256, (16, 3, 8, 8)).astype(np.uint8)
    y = data.random_crop(x, np.random.default_rng(1), padding=2)
    assert y.shape == x.shape and y.dtype == x.dtype
    padded = np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)))
    for i in range(len(x)):
        hits = [(dy, dx) for dy in range(5) for dx in range(5)
                if np.array_equal(padded[i, :, dy:dy + 8, dx:dx + 8], y[i])]
        assert hits, f"image {i} is not a window of its padded copy"


def test_random_crop_uses_every_offset_and_zero_padding():
    x = np.ones((400, 1, 4, 4), np.uint8)
    y = data.random_crop(x, np.random.default_rng(0), padding=1)
    zeros_per_image = (y == 0).reshape(400, -1).sum(1)
    # Offsets (dy, dx) in {0,1,2}^2 leave 0, 4, 3+4-1=7 zero pixels on a 4x4 image.
    assert set(zeros_per_image.tolist()) == {0, 4, 7}


def test_random_crop_with_a_smaller_size():
    y = data.random_crop(batch(), np.random.default_rng(0), padding=0, size=(5, 6))
    assert y.shape == (6, 3, 5, 6)
    with pytest.raises(ValueError, match="cannot cut"):
        data.random_crop(batch(), np.random.default_rng(0), padding=0, size=(9, 9))


def test_random_horizontal_flip_mirrors_the_chosen_images_only():
    x = batch(n=64)
    y = data.random_horizontal_flip(x, np.random.default_rng(3), p=0.5)
    flipped = [np.array_equal(y[i], x[i, :, :, ::-1]) for i in range(64)]
    kept = [np.array_equal(y[i], x[i]) for i in range(64)]
    assert all(f or k for f, k in zip(flipped, kept))
    assert 10 < sum(flipped) < 54
    assert np.array_equal(data.random_horizontal_flip(x, np.random.default_rng(0), p=1.0), x[..., ::-1])
    assert np.array_equal(data.random_horizontal_flip(x, np.random.default_rng(0), p=0.0), x)


def test_augment_cifar_is_repeatable_with_a_seed():
    x = np.random.default_rng(0).integers(0, 256, (8, 3, 32, 32)).astype(np.uint8)
    a = data.augment_cifar(x, np.random.default_rng(42))
    b = data.augment_cifar(x, np.random.default_rng(42))
    c = data.augment_cifar(x, np.random.default_rng(43))
    assert a.shape == x.shape and np.array_equal(a, b) and not np.array_equal(a, c)


def test_augmentation_rejects_a_single_image():
    with pytest.raises(ValueError, match=r"x\[None\]"):
        data.random_crop(np.zeros((3, 32, 32), np.uint8), np.random.default_rng(0))


def test_to_float_scales_and_normalizes_per_channel():
    x = np.full((1, 3, 2, 2), 255, np.uint8)
    y = data.to_float(x, mean=(0.5, 0.5, 0.0), std=(0.5, 0.25, 1.0))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y[0, :, 0, 0], [1.0, 2.0, 1.0])


def test_dataloader_without_shuffle_yields_batches_in_order_with_a_short_last_one():
    x = np.arange(10)
    y = np.arange(10) * 2
    loader = data.DataLoader(x, y, batch_size=4)
    got = list(loader)
    assert len(loader) == 3 and len(got) == 3
    np.testing.assert_array_equal(got[0][0], [0, 1, 2, 3])
    np.testing.assert_array_equal(got[2][0], [8, 9])
    np.testing.assert_array_equal(got[2][1], [16, 18])


def test_dataloader_drop_last_skips_the_short_batch():
    loader = data.DataLoader(np.arange(10), batch_size=4, drop_last=True)
    assert len(loader) == 2 and [len(b[0]) for b in loader] == [4, 4]


def test_dataloader_shuffle_is_a_seeded_permutation_that_changes_per_epoch():
    x = np.arange(50)
    a = data.DataLoader(x, x * 10, batch_size=7, shuffle=True, seed=5)
    b = data.DataLoader(x, x * 10, batch_size=7, shuffle=True, seed=5)
    epoch1 = np.concatenate([xb for xb, _ in a])
    epoch2 = np.concatenate([xb for xb, _ in a])
    assert sorted(epoch1.tolist()) == list(range(50))
    assert not np.array_equal(epoch1, np.arange(50)) and not np.array_equal(epoch1, epoch2)
    np.testing.assert_array_equal(epoch1, np.concatenate([xb for xb, _ in b]))
    for xb, yb in a:  # pairs stay together
        np.testing.assert_array_equal(yb, xb * 10)


def test_dataloader_applies_the_transform_to_the_first_array():
    x = batch(n=5)
    y = np.arange(5)
    loader = data.DataLoader(x, y, batch_size=5, transform=lambda xb, rng: xb[..., ::-1])
    (xb, yb), = list(loader)
    np.testing.assert_array_equal(xb, x[..., ::-1])
    np.testing.assert_array_equal(yb, y)


def test_dataloader_rejects_arrays_of_different_lengths_and_bad_batch_sizes():
    with pytest.raises(ValueError, match="same length, got 3, 4"):
        data.DataLoader(np.zeros(3), np.zeros(4), batch_size=2)
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        data.DataLoader(np.zeros(3), batch_size=0)
