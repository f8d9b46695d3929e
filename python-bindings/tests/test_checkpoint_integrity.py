"""Checkpoints never lose or corrupt state silently: any key name round-trips in both formats
(npz once took the state as np.savez's keyword arguments: "allow_pickle" or "file" broke the
save after the good checkpoint was gone); a killed save's temporary file is cleaned up by the
next save or load; safetensors files carry a checksum per array, verified on load; and every way
a file can be damaged or hostile raises a CheckpointError (a GlassgradError) naming the file."""
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import serialization

FORMATS = ["npz", pytest.param("safetensors", marks=pytest.mark.skipif(
    not serialization._have_safetensors(), reason="the safetensors package is not installed"))]

KEYS = ["allow_pickle", "file", "args", "kwds", "__glassgrad__", "__glassgrad__.npy", "a.npy", "a", "", "a/b", "a/",
        "/abs", "../up", "back\\slash", "nul\x00byte", "ü-ñ", "#0", "#1", "array", "x" * 5000, "lone\udcffsurrogate",
        " spaced ", "\n"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_any_key_name_round_trips(tmp_path, fmt):
    tree = {k: np.arange(3, dtype=np.float32) + i for i, k in enumerate(KEYS)}
    tree["nested"] = {k: {"v": np.full(2, i, np.int64)} for i, k in enumerate(KEYS[:6])}
    tree[7] = np.ones(1)
    path = tmp_path / "c.gg"
    gg.save({"x": np.zeros(1)}, path, format=fmt)  # a good checkpoint to replace
    gg.save(tree, path, format=fmt)
    back = gg.load(path)
    assert list(back) == list(tree)
    for i, k in enumerate(KEYS):
        np.testing.assert_array_equal(back[k], np.arange(3, dtype=np.float32) + i, err_msg=repr(k))
    for i, k in enumerate(KEYS[:6]):
        np.testing.assert_array_equal(back["nested"][k]["v"], np.full(2, i, np.int64))


def test_npz_checkpoints_stay_readable_by_numpy_under_their_tree_paths(tmp_path):
    gg.save({"model": {"fc.weight": np.eye(2, dtype=np.float32)}, "file": np.ones(2)}, tmp_path / "c.npz",
            format="npz")
    with np.load(tmp_path / "c.npz", allow_pickle=False) as z:
        np.testing.assert_array_equal(z["model/fc.weight"], np.eye(2))
        np.testing.assert_array_equal(z["file"], np.ones(2))


# ---- temporaries ------------------------------------------------------------------------------

def _killed_save(tmp_path, fmt):
    """Runs a save in a child process and kills it while the temporary file is open."""
    script = (
        "import os, signal, sys, numpy as np, glassgrad as gg\n"
        "from glassgrad import serialization as s\n"
        "real = s._write_npz if sys.argv[2] == 'npz' else s._write_safetensors\n"
        "def write(f, arrays, meta):\n"
        "    f.write(b'partial'); f.flush(); os.kill(os.getpid(), signal.SIGKILL)\n"
        "setattr(s, '_write_npz' if sys.argv[2] == 'npz' else '_write_safetensors', write)\n"
        "gg.save({'w': np.ones(4)}, sys.argv[1], format=sys.argv[2])\n")
    path = tmp_path / "ckpt.gg"
    r = subprocess.run([sys.executable, "-c", script, str(path), fmt], env=dict(os.environ), capture_output=True)
    assert r.returncode == -9, r.stderr.decode()
    return path


@pytest.mark.skipif(os.name != "posix", reason="kills a child process with SIGKILL")
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("then", ["save", "load"])
def test_a_killed_saves_temporary_is_removed_by_the_next_save_or_load(tmp_path, fmt, then):
    gg.save({"step": 1}, tmp_path / "ckpt.gg", format=fmt)
    path = _killed_save(tmp_path, fmt)
    left = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    assert len(left) == 1 and left[0].startswith(".ckpt.gg.")
    (tmp_path / ".other.gg.1-abcd.tmp").write_bytes(b"another checkpoint's: kept")
    assert gg.load(path)["step"] == 1 if then == "load" else gg.save({"step": 2}, path, format=fmt) is None
    assert sorted(os.listdir(tmp_path)) == [".other.gg.1-abcd.tmp", "ckpt.gg"]


def test_a_temporary_of_a_save_still_running_is_kept(tmp_path):
    live = tmp_path / f".c.gg.{os.getppid()}-0000.tmp"  # a live process (our parent)
    live.write_bytes(b"being written")
    gg.save({"a": 1}, tmp_path / "c.gg")
    assert live.exists()


# ---- checksums --------------------------------------------------------------------------------

def _flip_a_byte_of_the_array(path, marker):
    raw = bytearray(path.read_bytes())
    i = raw.rindex(marker)
    raw[i] ^= 0x01
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_changed_byte_in_an_array_is_caught_by_its_checksum(tmp_path, fmt):
    path = tmp_path / "c.gg"
    arr = np.full(64, 1.25, np.float32)
    gg.save({"model": {"w": arr}, "other": np.zeros(3)}, path, format=fmt)
    _flip_a_byte_of_the_array(path, arr.tobytes()[-4:])
    with pytest.raises(serialization.CheckpointError) as e:
        gg.load(path)
    assert str(path) in str(e.value)
    assert "model/w" in str(e.value) and ("checksum" in str(e.value) or "CRC" in str(e.value))


@pytest.mark.skipif(not serialization._have_safetensors(), reason="the safetensors package is not installed")
def test_safetensors_metadata_holds_one_checksum_per_array(tmp_path):
    from safetensors import safe_open
    gg.save({"a": np.ones(3), "b": {"c": np.arange(4)}}, tmp_path / "c.st", format="safetensors")
    with safe_open(str(tmp_path / "c.st"), "np") as f:
        doc = json.loads(f.metadata()["glassgrad"])
    assert sorted(doc["crc32"]) == ["a", "b/c"]


# ---- damaged and hostile files ------------------------------------------------------------------

GOOD_TREE = {"t": "dict", "items": [["x", {"t": "array", "k": "x"}]]}
BAD_METADATA = {
    "tree-is-a-list": {"format": "glassgrad-checkpoint", "version": 1, "tree": []},
    "doc-is-a-list": [1, 2],
    "doc-is-a-string": "text",
    "version-not-a-number": {"format": "glassgrad-checkpoint", "version": "x", "tree": GOOD_TREE},
    "version-a-list": {"format": "glassgrad-checkpoint", "version": [1], "tree": GOOD_TREE},
    "newer-version": {"format": "glassgrad-checkpoint", "version": 99, "tree": GOOD_TREE},
    "foreign-format": {"format": "other", "tree": GOOD_TREE},
    "no-tree": {"format": "glassgrad-checkpoint", "version": 1},
    "item-not-a-pair": {"format": "glassgrad-checkpoint", "version": 1, "tree": {"t": "dict", "items": [[1]]}},
    "items-not-a-list": {"format": "glassgrad-checkpoint", "version": 1, "tree": {"t": "dict", "items": 3}},
    "list-key": {"format": "glassgrad-checkpoint", "version": 1,
                 "tree": {"t": "dict", "items": [[[1], {"t": "value", "v": 1}]]}},
    "array-name-a-list": {"format": "glassgrad-checkpoint", "version": 1, "tree": {"t": "array", "k": ["x"]}},
    "missing-array": {"format": "glassgrad-checkpoint", "version": 1, "tree": {"t": "array", "k": "nope"}},
    "unknown-type": {"format": "glassgrad-checkpoint", "version": 1, "tree": {"t": "pickle"}},
    "value-a-dict": {"format": "glassgrad-checkpoint", "version": 1, "tree": {"t": "value", "v": {"a": 1}}},
    "node-a-number": {"format": "glassgrad-checkpoint", "version": 1, "tree": 5},
    "checksums-a-list": {"format": "glassgrad-checkpoint", "version": 1, "tree": GOOD_TREE, "crc32": [1]},
    "checksum-wrong": {"format": "glassgrad-checkpoint", "version": 1, "tree": GOOD_TREE, "crc32": {"x": 12345}},
    "checksum-of-nothing": {"format": "glassgrad-checkpoint", "version": 1, "tree": GOOD_TREE, "crc32": {"y": 1}},
    "deep-tree": {"format": "glassgrad-checkpoint", "version": 1,
                  "tree": json.loads('{"t": "list", "items": [' * 150 + ']}' * 150)},
}
RAW_METADATA = {
    "deep-json": '{"format": "glassgrad-checkpoint", "version": 1, "tree": ' + "[" * 100000 + "]" * 100000 + "}",
    "not-json": "{not json",
}


def _write_with_metadata(path, fmt, meta: str):
    arrays = {"x": np.ones(2)}
    with open(path, "wb") as f:
        (serialization._write_npz if fmt == "npz" else serialization._write_safetensors)(f, arrays, meta)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(BAD_METADATA) + sorted(RAW_METADATA))
def test_damaged_or_hostile_metadata_raises_a_checkpoint_error_naming_the_file(tmp_path, fmt, case):
    path = tmp_path / "c.gg"
    meta = RAW_METADATA[case] if case in RAW_METADATA else json.dumps(BAD_METADATA[case])
    _write_with_metadata(path, fmt, meta)
    with pytest.raises(serialization.CheckpointError) as e:
        gg.load(path)
    assert isinstance(e.value, gg.GlassgradError)
    assert str(path) in str(e.value)


def test_hostile_npz_members_are_refused_before_allocating(tmp_path):
    path = tmp_path / "c.npz"
    with zipfile.ZipFile(path, "w") as z:
        with z.open("huge.npy", "w") as m:  # a header declaring 2^40 float64 over 8 bytes of data
            np.lib.format.write_array_header_1_0(m, {"descr": "<f8", "fortran_order": False, "shape": (2 ** 40,)})
            m.write(b"\0" * 8)
    with pytest.raises(serialization.CheckpointError, match="declares"):
        gg.load(path)
    with zipfile.ZipFile(path, "w") as z:
        with z.open("obj.npy", "w") as m:
            np.lib.format.write_array(m, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(serialization.CheckpointError, match="Python objects"):
        gg.load(path)


@pytest.mark.parametrize("content", [b"", b"\x80\x04K\x01.", b"PK\x03\x04 truncated zip",
                                     b"\x10\x00\x00\x00\x00\x00\x00\x00{[1, 2, 3]}    ",
                                     b"\x08\x00\x00\x00\x00\x00\x00\x00{\"a\": 1}"])
def test_garbage_files_raise_a_checkpoint_error(tmp_path, content):
    path = tmp_path / "bad.gg"
    path.write_bytes(content)
    with pytest.raises(serialization.CheckpointError, match=str(path).replace("\\", "\\\\")):
        gg.load(path)


def test_a_missing_file_is_a_checkpoint_error_and_a_file_not_found_error(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        gg.load(tmp_path / "nope.gg")
    assert isinstance(e.value, gg.GlassgradError) and "nope.gg" in str(e.value)
    with pytest.raises(serialization.CheckpointIOError):
        gg.load(tmp_path)  # a directory


def test_a_tree_that_contains_itself_is_pickled_as_torch_save_does_or_refused_by_the_array_formats(tmp_path):
    tree = {"a": []}
    tree["a"].append(tree)
    gg.save(tree, tmp_path / "c.pt")
    back = gg.load(tmp_path / "c.pt")
    assert back["a"][0] is back
    with pytest.raises(TypeError, match="nested more than"):
        gg.save(tree, tmp_path / "c.gg", format="npz")
    assert os.listdir(tmp_path) == ["c.pt"]


def test_checkpoint_errors_are_runtime_errors_as_torch_loads_are(tmp_path):
    # torch.load raises RuntimeError for a map_location the machine cannot serve (a CUDA device it
    # lacks); a ported script's `except RuntimeError` must catch glassgrad's refusal too.
    assert issubclass(serialization.CheckpointError, RuntimeError)
    path = tmp_path / "w.pt"
    gg.save({"w": gg.ones(2)}, str(path))
    if gg.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU, so map_location='cuda:0' is served")
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        gg.load(str(path), map_location="cuda:0")
