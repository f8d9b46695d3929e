"""glassgrad.vision.io (torchvision.io's read_file, decode_image, read_image, ImageReadMode): the
data tutorial's CustomImageDataset reads its pictures with read_image. Files written by Pillow
read back as uint8 (C, H, W) tensors equal to the pixels written, in every mode; errors."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision.io import ImageReadMode, decode_image, read_file, read_image

Image = pytest.importorskip("PIL.Image")

RGB = np.random.default_rng(0).integers(0, 256, (5, 7, 3), dtype=np.uint8)


@pytest.fixture
def png(tmp_path):
    path = str(tmp_path / "a.png")
    Image.fromarray(RGB).save(path)
    return path


def test_read_image_gives_the_pixels_channels_first(png):
    x = read_image(png)
    assert isinstance(x, gg.Tensor) and x.dtype == "uint8" and tuple(x.shape) == (3, 5, 7) and x.device == "cpu"
    np.testing.assert_array_equal(x.numpy(), RGB.transpose(2, 0, 1))


@pytest.mark.parametrize("mode,pil,channels", [(ImageReadMode.GRAY, "L", 1), (ImageReadMode.GRAY_ALPHA, "LA", 2),
                                               (ImageReadMode.RGB, "RGB", 3), (ImageReadMode.RGB_ALPHA, "RGBA", 4),
                                               ("RGB", "RGB", 3)])
def test_modes_convert_as_pillow_does(png, mode, pil, channels):
    x = read_image(png, mode)
    expected = np.asarray(Image.fromarray(RGB).convert(pil))
    expected = expected[None] if expected.ndim == 2 else expected.transpose(2, 0, 1)
    assert x.shape[0] == channels
    np.testing.assert_array_equal(x.numpy(), expected)


def test_gray_files_and_decoding_bytes(tmp_path, png):
    gray = RGB[..., 0]
    path = str(tmp_path / "g.png")
    Image.fromarray(gray).save(path)
    np.testing.assert_array_equal(read_image(path).numpy(), gray[None])
    data = read_file(png)
    assert data.dtype == "uint8" and data.ndim == 1
    np.testing.assert_array_equal(decode_image(data).numpy(), read_image(png).numpy())
    np.testing.assert_array_equal(decode_image(png).numpy(), read_image(png).numpy())


def test_errors_say_what_to_pass(png):
    with pytest.raises(TypeError, match="1-d uint8 tensor of the encoded bytes"):
        decode_image(gg.zeros(3))
    with pytest.raises(ValueError, match="unknown mode"):
        read_image(png, "CMYK")
