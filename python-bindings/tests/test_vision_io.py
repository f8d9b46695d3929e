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


@pytest.mark.parametrize("mode,pil,channels", [(ImageReadMode.RGB, "RGB", 3), (ImageReadMode.RGB_ALPHA, "RGBA", 4),
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


def _libpng_gray(rgb: np.ndarray) -> np.ndarray:
    """libpng's png_set_rgb_to_gray(0.2989, 0.587) on 8-bit pixels: weights 9794, 19234 and 3740
    out of 32768, the sum truncated."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((9794 * r + 19234 * g + 3740 * b) >> 15).astype(np.uint8)


def test_png_gray_modes_convert_as_libpng_does(tmp_path, png):
    """torchvision reads an RGB PNG as GRAY with libpng's conversion, which truncates where
    Pillow's convert('L') rounds: (0, 255, 0) is 149 (Pillow: 150), (10, 200, 30) is 123 (124)."""
    pixels = np.array([[[0, 255, 0], [10, 200, 30], [255, 255, 255], [255, 0, 0]]], np.uint8)
    path = str(tmp_path / "px.png")
    Image.fromarray(pixels).save(path)
    assert read_image(path, ImageReadMode.GRAY).numpy().tolist() == [[[149, 123, 255, 76]]]
    assert read_image(path, ImageReadMode.GRAY_ALPHA).numpy().tolist() == [[[149, 123, 255, 76]], [[255] * 4]]
    np.testing.assert_array_equal(read_image(png, ImageReadMode.GRAY).numpy(), _libpng_gray(RGB)[None])
    rgba = np.dstack([RGB, RGB[..., :1]])
    apath = str(tmp_path / "a4.png")
    Image.fromarray(rgba).save(apath)
    np.testing.assert_array_equal(read_image(apath, ImageReadMode.GRAY_ALPHA).numpy(),
                                  np.stack([_libpng_gray(RGB), RGB[..., 0]]))
    ppath = str(tmp_path / "p.png")
    palette = Image.fromarray(RGB).convert("P")
    palette.save(ppath)
    np.testing.assert_array_equal(read_image(ppath, "GRAY").numpy(),
                                  _libpng_gray(np.asarray(palette.convert("RGB")))[None])


def test_jpeg_gray_mode_is_the_decoded_luma(tmp_path):
    """An RGB JPEG read as GRAY is libjpeg's grayscale output (the decoded Y plane), not the
    decoded RGB converted back: within a level of 0.299 R + 0.587 G + 0.114 B of the RGB decode."""
    # Mid-range values: the RGB decode is not clipped at 0 or 255, so its luma is the Y plane's.
    rgb = np.random.default_rng(1).integers(96, 160, (16, 24, 3), dtype=np.uint8)
    path = str(tmp_path / "a.jpg")
    Image.fromarray(rgb).save(path, quality=85)
    gray = read_image(path, ImageReadMode.GRAY).numpy()
    assert gray.shape == (1, 16, 24) and gray.dtype == np.uint8
    decoded = read_image(path, ImageReadMode.RGB).numpy().astype(np.float64)
    luma = 0.299 * decoded[0] + 0.587 * decoded[1] + 0.114 * decoded[2]
    assert np.abs(gray[0] - luma).max() <= 1.0


def test_read_file_of_a_missing_file_is_a_runtime_error_too(tmp_path):
    missing = str(tmp_path / "nope.png")
    with pytest.raises(RuntimeError, match="No such file"):
        read_image(missing)
    with pytest.raises(FileNotFoundError):
        read_file(missing)


def test_gray_modes_match_torchvision(tmp_path):
    pytest.importorskip("torch")
    tvio = pytest.importorskip("torchvision.io")
    rgb = np.random.default_rng(2).integers(0, 256, (16, 24, 3), dtype=np.uint8)
    paths = []
    for name, img, kw in [("rgb.png", Image.fromarray(rgb), {}),
                          ("rgba.png", Image.fromarray(np.dstack([rgb, rgb[..., :1]])), {}),
                          ("p.png", Image.fromarray(rgb).convert("P"), {}),
                          ("rgb.jpg", Image.fromarray(rgb), {"quality": 85})]:
        paths.append(str(tmp_path / name))
        img.save(paths[-1], **kw)
    for path in paths:
        modes = ["GRAY", "RGB"] + ([] if path.endswith((".jpg", "p.png")) else ["GRAY_ALPHA", "RGB_ALPHA"])
        for mode in modes:
            ref = tvio.read_image(path, getattr(tvio.ImageReadMode, mode)).numpy()
            np.testing.assert_array_equal(read_image(path, getattr(ImageReadMode, mode)).numpy(), ref,
                                          err_msg=f"{path} {mode}")
