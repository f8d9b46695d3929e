"""The CUDA 12 kernel images are embedded packed (core-runtime/cmake/pack_images.py: one xz stream
per architecture major) and unpacked by the runtime's decoder, the system's liblzma
(core-runtime/src/cuda/packed_images.cpp, glassgrad._C.unpack_xz): whatever the packer writes,
the decoder gives back byte for byte, and a damaged or mis-sized stream is refused with an error
that says so. Needs no GPU and no CUDA build: the decoder is in every build. That the images of a
CUDA build unpack to exactly what NVRTC wrote is test_cuda_sass.py's
test_every_cuda_12_image_unpacks_to_the_bytes_nvrtc_wrote.
"""
import hashlib
import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from glassgrad import _C

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO, "core-runtime", "cmake", "pack_images.py")


@pytest.fixture(scope="module")
def pack_images():
    spec = importlib.util.spec_from_file_location("pack_images", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _machine_code_like(n, width, seed):
    """Bytes shaped like SASS: `width`-byte words drawn from a small vocabulary, so that LZMA's
    position bits matter, with random operands mixed in."""
    rng = np.random.default_rng(seed)
    vocab = rng.integers(0, 256, size=(64, width), dtype=np.uint8)
    words = vocab[rng.integers(0, 64, size=n // width)]
    words[rng.random(len(words)) < 0.2, 0] = rng.integers(0, 256, dtype=np.uint8)
    return words.tobytes()


CASES = {
    "empty": b"",
    "one byte": b"\x00",
    "random": np.random.default_rng(1).integers(0, 256, size=300_000, dtype=np.uint8).tobytes(),
    "text": b"".join(b".entry gg_kernel_%d(.param .u64 x)\n{ ret; }\n" % i for i in range(5000)),
    "sm_5x words": _machine_code_like(200_000, 8, 2),
    "sm_8x words": _machine_code_like(200_001, 16, 3),
}


@pytest.mark.parametrize("group", ["ptx", "sm_5x", "sm_8x", "sm_9x"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_what_the_packer_writes_the_runtime_unpacks_exactly(pack_images, group, case):
    data = CASES[case]
    packed = pack_images.pack(group, data)
    assert _C.unpack_xz(packed, len(data)) == data


def test_machine_code_packs_smaller_with_position_bits_at_the_instruction_width(pack_images):
    data = _machine_code_like(400_000, 16, 4)
    assert len(pack_images.pack("sm_8x", data)) < len(pack_images.pack("ptx", data))


@pytest.fixture(scope="module")
def packed_cubin(pack_images):
    data = CASES["sm_8x words"]
    return data, pack_images.pack("sm_8x", data)


@pytest.mark.parametrize("size_change", [-1, 1, -1000])
def test_a_stream_of_another_size_than_expected_is_refused(packed_cubin, size_change):
    data, packed = packed_cubin
    with pytest.raises(ValueError, match=rf"unpacking .* failed: expected an xz stream of {len(data) + size_change} bytes"):
        _C.unpack_xz(packed, len(data) + size_change)


@pytest.mark.parametrize("where", ["header", "middle", "check"])
def test_a_damaged_stream_is_refused_with_the_fix(packed_cubin, where):
    data, packed = packed_cubin
    at = {"header": 7, "middle": len(packed) // 2, "check": len(packed) - 20}[where]
    damaged = bytearray(packed)
    damaged[at] ^= 0x10
    with pytest.raises(ValueError) as e:
        _C.unpack_xz(bytes(damaged), len(data))
    msg = str(e.value)
    assert "failed" in msg and "damaged" in msg and "fix: reinstall glassgrad" in msg, msg


def test_a_truncated_stream_and_foreign_bytes_are_refused(packed_cubin):
    data, packed = packed_cubin
    with pytest.raises(ValueError, match="truncated"):
        _C.unpack_xz(packed[: len(packed) // 2], len(data))
    with pytest.raises(ValueError, match="not an xz stream"):
        _C.unpack_xz(b"\x7fELF" + bytes(100), len(data))


def test_the_packer_writes_a_table_whose_every_row_unpacks_to_its_image(tmp_path):
    """pack_images.py as the build runs it, on stand-in images of every kind: the generated table's
    groups, offsets, sizes and SHA-256s give back each image from its group's stream."""
    images = {"sm_50": _machine_code_like(30_000, 8, 5), "sm_52": _machine_code_like(30_008, 8, 6),
              "sm_70": _machine_code_like(40_000, 16, 7), "sm_75": _machine_code_like(40_016, 16, 8),
              "sm_90": _machine_code_like(50_000, 16, 9), "compute_50": CASES["text"]}
    paths = []
    for name, data in images.items():
        path = tmp_path / (name + (".ptx" if name.startswith("compute") else ".cubin"))
        path.write_bytes(data)
        paths.append(str(path))
    out = tmp_path / "legacy_embed.cpp"
    subprocess.run([sys.executable, TOOL, "--out", str(out), "--pack-dir", str(tmp_path / "packed"),
                    "--cubin-driver", "12000", "--ptx-driver", "12090", *paths], check=True, capture_output=True)
    text = out.read_text()
    row = re.compile(r'\{"(\w+)", (\d+), (true|false), (\d+), "(\w+)", gg_legacy_(\w+)_begin, gg_legacy_\w+_end, '
                     r'(\d+)u, (\d+)u, (\d+)u, "([0-9a-f]{64})"\}')
    rows = row.findall(text)
    assert [r[0] for r in rows] == list(images), text
    groups = {}
    for name, arch, ptx, driver, group, sym, total, offset, size, sha in rows:
        assert group == sym == ("ptx" if name.startswith("compute") else f"sm_{int(arch) // 10}x")
        assert int(arch) == int(name.split("_")[1]) and (ptx == "true") == name.startswith("compute")
        assert int(driver) == (12090 if ptx == "true" else 12000)
        assert f'.incbin \\"{tmp_path / "packed" / (group + ".xz")}\\"' in text
        if group not in groups:
            groups[group] = _C.unpack_xz((tmp_path / "packed" / (group + ".xz")).read_bytes(), int(total))
        image = groups[group][int(offset):int(offset) + int(size)]
        assert image == images[name] and hashlib.sha256(image).hexdigest() == sha
    assert sorted(groups) == ["ptx", "sm_5x", "sm_7x", "sm_9x"]
