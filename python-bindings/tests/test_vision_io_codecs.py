"""glassgrad.vision.io's PNG and JPEG codecs and write_file: round trips (PNG lossless, 16-bit
PNGs read as int32 (torchvision: uint16, which glassgrad lacks), JPEG close), the files Pillow reads back, torchvision's argument errors, and,
where torchvision is installed, its decoders reading our bytes and ours reading its bytes."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import io

PIL = pytest.importorskip("PIL.Image")


def _image(channels=3, seed=0):
    return gg.tensor(np.random.default_rng(seed).integers(0, 256, (channels, 9, 13)).astype(np.uint8))


def test_png_round_trip_and_files(tmp_path):
    for channels in (1, 3):
        img = _image(channels)
        data = io.encode_png(img, compression_level=9)
        assert data.dtype == gg.uint8 and data.ndim == 1 and bytes(data.numpy()[:8]) == b"\x89PNG\r\n\x1a\n"
        assert io.decode_png(data).tolist() == img.tolist()
        path = tmp_path / f"x{channels}.png"
        io.write_png(img, str(path))
        assert np.asarray(PIL.open(path)).reshape(9, 13, channels).transpose(2, 0, 1).tolist() == img.tolist()
        assert io.read_image(str(path)).tolist() == img.tolist()
    sixteen = (np.arange(20, dtype=np.uint16) * 3000).reshape(4, 5)
    path = tmp_path / "deep.png"
    PIL.fromarray(sixteen).save(path)
    deep = io.decode_png(io.read_file(str(path)))
    assert deep.dtype == gg.int32 and deep.tolist() == [sixteen.tolist()]
    assert io.decode_png(io.read_file(str(path)), mode=io.ImageReadMode.RGB).dtype == gg.uint8
    with pytest.raises(ValueError, match="channels"):
        io.encode_png(_image(2))
    with pytest.raises(TypeError, match="uint8"):
        io.encode_png(gg.zeros(3, 4, 4))
    with pytest.raises(ValueError, match="compression"):
        io.encode_png(_image(), compression_level=10)


def test_jpeg_round_trip_lists_and_write_file(tmp_path):
    smooth = gg.tensor(np.tile(np.linspace(0, 255, 13, dtype=np.uint8), (3, 9, 1)))
    data = io.encode_jpeg(smooth, quality=95)
    assert bytes(data.numpy()[:2]) == b"\xff\xd8"
    back = io.decode_jpeg(data)
    assert back.shape == (3, 9, 13) and np.abs(back.numpy().astype(int) - smooth.numpy()).mean() < 3
    many = io.encode_jpeg([smooth, _image(1)])
    assert isinstance(many, list) and [t.shape for t in io.decode_jpeg(many)] == [(3, 9, 13), (1, 9, 13)]
    assert io.decode_jpeg(data, mode=io.ImageReadMode.GRAY).shape == (1, 9, 13)
    path = tmp_path / "x.jpg"
    io.write_jpeg(smooth, str(path), quality=50)
    assert PIL.open(path).format == "JPEG"
    raw = tmp_path / "raw.bin"
    io.write_file(str(raw), gg.tensor([1, 2, 255], dtype=gg.uint8))
    assert raw.read_bytes() == b"\x01\x02\xff"
    assert io.read_file(str(raw)).tolist() == [1, 2, 255]
    with pytest.raises(ValueError, match="quality"):
        io.encode_jpeg(smooth, quality=0)
    with pytest.raises(TypeError, match="1-d uint8"):
        io.decode_jpeg(gg.zeros(4))


def test_codecs_agree_with_torchvision():
    torch = pytest.importorskip("torch")
    tvio = pytest.importorskip("torchvision.io")
    img = _image(3, seed=4)
    ours = io.encode_png(img)
    assert tvio.decode_png(torch.tensor(ours.numpy())).tolist() == img.tolist()
    theirs = tvio.encode_png(torch.tensor(img.numpy()))
    assert io.decode_png(gg.tensor(theirs.numpy())).tolist() == img.tolist()
    jpg = tvio.encode_jpeg(torch.tensor(img.numpy()), quality=90)
    mine = io.decode_jpeg(gg.tensor(jpg.numpy())).numpy().astype(int)
    assert np.abs(mine - tvio.decode_jpeg(jpg).numpy().astype(int)).max() <= 2
    decoded_by_tv = tvio.decode_jpeg(torch.tensor(io.encode_jpeg(img, quality=90).numpy())).numpy().astype(int)
    assert np.abs(decoded_by_tv - tvio.decode_jpeg(jpg).numpy().astype(int)).mean() < 3
