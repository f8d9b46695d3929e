"""QMNIST, USPS, Flowers102, CelebA, Food101, EuroSAT, GTSRB, DTD, SEMEION and Omniglot reading tiny files written in exactly the standard formats (IDX
with int32 label rows, gzip and xz; bzip2 LIBSVM; jpg/ + imagelabels.mat + setid.mat; CelebA's text files), their
splits, targets and errors, and, where torchvision is installed, torchvision's readings of the
same files."""
import bz2
import json
import lzma
import os

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.data.errors import DatasetNotFoundError
from glassgrad.data.idx import write_idx
from glassgrad.vision import datasets

PIL = pytest.importorskip("PIL.Image")


def _xz(path, array):
    """An IDX file compressed with xz, as QMNIST's nist subset is served."""
    write_idx(path, array)
    with open(path, "rb") as f:
        data = f.read()
    os.unlink(path)
    with open(path + ".xz", "wb") as f:
        f.write(lzma.compress(data))


def _qmnist(root, n_train=5, n_test=10003, packer=None):
    raw = os.path.join(root, "QMNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    rng = np.random.default_rng(0)
    made = {}
    for split, n in (("train", n_train), ("test", n_test)):
        images = rng.integers(0, 256, (n, 3, 2)).astype(np.uint8)
        labels = rng.integers(0, 10, (n, 8)).astype(np.int32)
        for kind, arr in (("images-idx3-ubyte", images), ("labels-idx2-int", labels)):
            name = os.path.join(raw, f"qmnist-{split}-{kind}")
            write_idx(name + (".gz" if packer == "gz" else ""), arr)
        made[split] = (images, labels)
    return made


def test_qmnist_subsets_and_compat(tmp_path):
    made = _qmnist(str(tmp_path), packer="gz")
    train = datasets.QMNIST(str(tmp_path))
    img, target = train[1]
    assert img.size == (2, 3) and target == int(made["train"][1][1, 0])
    assert train.data.shape == (5, 3, 2) and train.targets.shape == (5, 8) and train.targets.dtype == gg.int64
    full = datasets.QMNIST(str(tmp_path), train=False, compat=False)
    assert full[0][1].tolist() == made["test"][1][0].tolist() and len(full) == 10003
    assert len(datasets.QMNIST(str(tmp_path), what="test10k")) == 10000
    fifty = datasets.QMNIST(str(tmp_path), what="test50k")
    assert len(fifty) == 3 and fifty[0][1] == int(made["test"][1][10000, 0])
    assert "Split: test50k" in repr(fifty)
    with pytest.raises(ValueError, match="what"):
        datasets.QMNIST(str(tmp_path), what="val")
    with pytest.raises(DatasetNotFoundError, match="xnist"):
        datasets.QMNIST(str(tmp_path), what="nist")
    raw = os.path.join(str(tmp_path), "QMNIST", "raw")
    images = np.zeros((2, 3, 2), np.uint8)
    _xz(os.path.join(raw, "xnist-images-idx3-ubyte"), images)
    _xz(os.path.join(raw, "xnist-labels-idx2-int"), np.ones((2, 8), np.int32))
    assert datasets.QMNIST(str(tmp_path), what="nist")[1][1] == 1


def test_usps_reads_bzip2_libsvm(tmp_path):
    rng = np.random.default_rng(1)
    values = rng.uniform(-1, 1, (3, 256))
    lines = [f"{label} " + " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(row)) for label, row in
             zip((1, 10, 4), values)]
    with bz2.open(tmp_path / "usps.t.bz2", "wt") as f:
        f.write("\n".join(lines) + "\n")
    test = datasets.USPS(str(tmp_path), train=False)
    assert test.targets == [0, 9, 3] and test.data.dtype == np.uint8 and test.data.shape == (3, 16, 16)
    want = ((np.round(values, 6).astype(np.float32) + 1) / 2 * 255).astype(np.uint8).reshape(3, 16, 16)
    assert (test.data == want).all()
    img, target = test[1]
    assert img.mode == "L" and img.size == (16, 16) and target == 9
    with pytest.raises(DatasetNotFoundError, match="usps.bz2"):
        datasets.USPS(str(tmp_path))


def _flowers(root):
    scipy_io = pytest.importorskip("scipy.io")
    base = os.path.join(root, "flowers-102")
    os.makedirs(os.path.join(base, "jpg"))
    for i in range(1, 7):
        PIL.fromarray(np.full((4, 5, 3), i * 30, np.uint8)).save(os.path.join(base, "jpg", f"image_{i:05d}.jpg"))
    scipy_io.savemat(os.path.join(base, "imagelabels.mat"), {"labels": np.array([[3, 1, 102, 7, 7, 2]])})
    scipy_io.savemat(os.path.join(base, "setid.mat"), {"trnid": np.array([[2, 5]]), "valid": np.array([[1, 6]]),
                                                       "tstid": np.array([[3, 4]])})


def test_flowers102_splits_and_labels(tmp_path):
    _flowers(str(tmp_path))
    train = datasets.Flowers102(str(tmp_path))
    assert len(train) == 2 and [train[i][1] for i in range(2)] == [0, 6]
    img, _ = train[0]
    assert img.mode == "RGB" and img.size == (5, 4)
    assert [t for _, t in datasets.Flowers102(str(tmp_path), split="test")] == [101, 6]
    assert [t for _, t in datasets.Flowers102(str(tmp_path), split="val")] == [2, 1]
    assert len(datasets.Flowers102.classes) == 102 and datasets.Flowers102.classes[0] == "pink primrose"
    assert "split=val" in repr(datasets.Flowers102(str(tmp_path), split="val"))
    with pytest.raises(ValueError, match="split"):
        datasets.Flowers102(str(tmp_path), split="training")
    with pytest.raises(DatasetNotFoundError, match="102flowers"):
        datasets.Flowers102(str(tmp_path / "elsewhere"))


def test_datasets_match_torchvision(tmp_path):
    pytest.importorskip("torch")
    tvd = pytest.importorskip("torchvision.datasets")
    _qmnist(str(tmp_path), n_test=10004)
    for what, compat in (("train", True), ("test50k", False), ("test10k", True)):
        ours, theirs = datasets.QMNIST(str(tmp_path), what=what, compat=compat), \
            tvd.QMNIST(str(tmp_path), what=what, compat=compat)
        assert len(ours) == len(theirs)
        for i in (0, len(ours) - 1):
            (a, x), (b, y) = ours[i], theirs[i]
            assert np.array_equal(np.asarray(a), np.asarray(b))
            assert (x.tolist() if compat is False else x) == (y.tolist() if compat is False else y)
    values = np.random.default_rng(2).uniform(-1, 1, (2, 256))
    with bz2.open(tmp_path / "usps.bz2", "wt") as f:
        for label, row in zip((2, 7), values):
            f.write(f"{label} " + " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(row)) + "\n")
    ours, theirs = datasets.USPS(str(tmp_path)), tvd.USPS(str(tmp_path))
    assert (ours.data == theirs.data).all() and ours.targets == theirs.targets
    assert datasets.Flowers102.classes == tvd.Flowers102.classes


def _celeba(root):
    base = os.path.join(root, "celeba")
    os.makedirs(os.path.join(base, "img_align_celeba"))
    names = [f"{i:06d}.jpg" for i in range(1, 6)]
    for i, name in enumerate(names):
        PIL.fromarray(np.full((6, 5, 3), 40 * i, np.uint8)).save(os.path.join(base, "img_align_celeba", name))

    def write(filename, rows, header=None):
        with open(os.path.join(base, filename), "w") as f:
            if header is not None:
                f.write(f"{len(rows)}\n{header}\n")
            for name, values in zip(names, rows):
                f.write(name + " " + " ".join(f"{v:>3}" for v in values) + "\n")
    write("list_eval_partition.txt", [[0], [1], [0], [2], [0]])
    write("identity_CelebA.txt", [[10], [11], [12], [10], [13]])
    write("list_attr_celeba.txt", [[1, -1, 1], [-1, -1, 1], [1, 1, -1], [-1, 1, 1], [1, 1, 1]],
          header="Smiling Young Male")
    write("list_bbox_celeba.txt", [[i, i + 1, 5, 6] for i in range(5)], header="image_id x_1 y_1 width height")
    write("list_landmarks_align_celeba.txt", [[i] * 10 for i in range(5)],
          header="lefteye_x lefteye_y righteye_x righteye_y nose_x nose_y leftmouth_x leftmouth_y rightmouth_x "
                 "rightmouth_y")


def test_celeba_splits_and_target_types(tmp_path):
    _celeba(str(tmp_path))
    train = datasets.CelebA(str(tmp_path))
    assert len(train) == 3 and train.filename == ["000001.jpg", "000003.jpg", "000005.jpg"]
    img, attr = train[1]
    assert img.size == (5, 6) and attr.tolist() == [1, 1, 0] and attr.dtype == gg.int64
    assert train.attr_names == ["Smiling", "Young", "Male"]
    everything = datasets.CelebA(str(tmp_path), split="all", target_type=["identity", "bbox", "landmarks"])
    _, (identity, bbox, marks) = everything[3]
    assert identity.item() == 10 and bbox.tolist() == [3, 4, 5, 6] and marks.tolist() == [3] * 10
    assert datasets.CelebA(str(tmp_path), split="test", target_type=[])[0][1] is None
    assert len(datasets.CelebA(str(tmp_path), split="valid")) == 1
    with pytest.raises(ValueError, match="split"):
        datasets.CelebA(str(tmp_path), split="val")
    with pytest.raises(DatasetNotFoundError, match="list_attr_celeba.txt"):
        datasets.CelebA(str(tmp_path / "nowhere"), download=True)


def test_celeba_matches_torchvision(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    tvd = pytest.importorskip("torchvision.datasets")
    _celeba(str(tmp_path))
    monkeypatch.setattr(tvd.CelebA, "_check_integrity", lambda self: True)  # our files, not the real MD5s
    for split in ("train", "all"):
        kinds = ["attr", "identity", "bbox", "landmarks"]
        ours, theirs = datasets.CelebA(str(tmp_path), split, kinds), tvd.CelebA(str(tmp_path), split, kinds)
        assert ours.filename == list(theirs.filename) and ours.attr_names == theirs.attr_names
        for i in range(len(ours)):
            (a, x), (b, y) = ours[i], theirs[i]
            assert np.array_equal(np.asarray(a), np.asarray(b))
            assert [t.tolist() for t in x] == [t.tolist() for t in y]


def _food101(root):
    base = os.path.join(root, "food-101")
    meta = {"train": {"waffles": ["waffles/11", "waffles/12"], "apple_pie": ["apple_pie/3"]},
            "test": {"apple_pie": ["apple_pie/4"], "waffles": ["waffles/13"]}}
    os.makedirs(os.path.join(base, "meta"))
    for split, classes in meta.items():
        with open(os.path.join(base, "meta", f"{split}.json"), "w") as f:
            json.dump(classes, f)
        for paths in classes.values():
            for i, p in enumerate(paths):
                os.makedirs(os.path.join(base, "images", os.path.dirname(p)), exist_ok=True)
                PIL.fromarray(np.full((5, 4, 3), 20 * i, np.uint8)).save(os.path.join(base, "images", p + ".jpg"))


def _eurosat(root):
    for name in ("Forest", "AnnualCrop", "River"):
        folder = os.path.join(root, "eurosat", "2750", name)
        os.makedirs(folder)
        for i in range(2):
            PIL.fromarray(np.full((64, 64, 3), 50 * i, np.uint8)).save(os.path.join(folder, f"{name}_{i + 1}.jpg"))


def test_food101_and_eurosat(tmp_path):
    _food101(str(tmp_path))
    train = datasets.Food101(str(tmp_path))
    assert train.classes == ["apple_pie", "waffles"] and len(train) == 3
    assert [t for _, t in train] == [1, 1, 0] and train[0][0].size == (4, 5)
    assert [t for _, t in datasets.Food101(str(tmp_path), split="test")] == [0, 1]
    with pytest.raises(ValueError, match="split"):
        datasets.Food101(str(tmp_path), split="val")
    with pytest.raises(DatasetNotFoundError, match="food-101"):
        datasets.Food101(str(tmp_path / "none"))
    _eurosat(str(tmp_path))
    sat = datasets.EuroSAT(str(tmp_path))
    assert sat.classes == ["AnnualCrop", "Forest", "River"] and len(sat) == 6 and sat.root == str(tmp_path)
    assert sat[5][1] == 2 and sat[0][0].size == (64, 64)
    with pytest.raises(DatasetNotFoundError, match="2750"):
        datasets.EuroSAT(str(tmp_path / "none"))


def test_food101_and_eurosat_match_torchvision(tmp_path):
    pytest.importorskip("torch")
    tvd = pytest.importorskip("torchvision.datasets")
    _food101(str(tmp_path))
    _eurosat(str(tmp_path))
    for split in ("train", "test"):
        ours, theirs = datasets.Food101(str(tmp_path), split), tvd.Food101(str(tmp_path), split)
        assert ours.classes == theirs.classes and [t for _, t in ours] == [t for _, t in theirs]
    ours, theirs = datasets.EuroSAT(str(tmp_path)), tvd.EuroSAT(str(tmp_path))
    assert ours.classes == theirs.classes and [t for _, t in ours.samples] == [t for _, t in theirs.samples]


def _gtsrb_and_dtd(root):
    base = os.path.join(root, "gtsrb", "GTSRB")
    for cls in ("00000", "00002"):
        os.makedirs(os.path.join(base, "Training", cls))
        for i in range(2):
            PIL.fromarray(np.full((6, 7, 3), 9 * i, np.uint8)).save(os.path.join(base, "Training", cls, f"0_{i}.ppm"))
    os.makedirs(os.path.join(base, "Final_Test", "Images"))
    rows = ["Filename;Width;Height;Roi.X1;Roi.Y1;Roi.X2;Roi.Y2;ClassId"]
    for i, label in enumerate((14, 3)):
        PIL.fromarray(np.full((6, 7, 3), 5, np.uint8)).save(os.path.join(base, "Final_Test", "Images", f"{i:05d}.ppm"))
        rows.append(f"{i:05d}.ppm;7;6;0;0;6;5;{label}")
    with open(os.path.join(root, "gtsrb", "GT-final_test.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    data = os.path.join(root, "dtd", "dtd")
    for cls in ("banded", "zigzagged", "dotted"):
        os.makedirs(os.path.join(data, "images", cls))
        PIL.fromarray(np.zeros((4, 4, 3), np.uint8)).save(os.path.join(data, "images", cls, f"{cls}_0001.jpg"))
    os.makedirs(os.path.join(data, "labels"))
    with open(os.path.join(data, "labels", "train1.txt"), "w") as f:
        f.write("zigzagged/zigzagged_0001.jpg\nbanded/banded_0001.jpg\n")
    with open(os.path.join(data, "labels", "test3.txt"), "w") as f:
        f.write("dotted/dotted_0001.jpg\n")


def test_gtsrb_and_dtd(tmp_path):
    _gtsrb_and_dtd(str(tmp_path))
    train = datasets.GTSRB(str(tmp_path))
    assert [t for _, t in train] == [0, 0, 1, 1] and train[0][0].mode == "RGB"
    assert [t for _, t in datasets.GTSRB(str(tmp_path), split="test")] == [14, 3]
    with pytest.raises(DatasetNotFoundError, match="Training"):
        datasets.GTSRB(str(tmp_path / "none"))
    dtd = datasets.DTD(str(tmp_path))
    assert dtd.classes == ["banded", "zigzagged"] and [t for _, t in dtd] == [1, 0]
    assert len(datasets.DTD(str(tmp_path), split="test", partition=3)) == 1
    assert "partition=1" in repr(dtd)
    with pytest.raises(ValueError, match="partition"):
        datasets.DTD(str(tmp_path), partition=11)


def test_gtsrb_and_dtd_match_torchvision(tmp_path):
    pytest.importorskip("torch")
    tvd = pytest.importorskip("torchvision.datasets")
    _gtsrb_and_dtd(str(tmp_path))
    for split in ("train", "test"):
        ours, theirs = datasets.GTSRB(str(tmp_path), split), tvd.GTSRB(str(tmp_path), split)
        assert [(os.path.basename(p), t) for p, t in ours._samples] == \
            [(os.path.basename(p), t) for p, t in theirs._samples]
    ours, theirs = datasets.DTD(str(tmp_path)), tvd.DTD(str(tmp_path))
    assert ours.classes == theirs.classes and ours._labels == theirs._labels


def test_verify_str_arg_matches_torchvision():
    from glassgrad.vision.datasets.utils import verify_str_arg
    assert verify_str_arg("val", "split", ("train", "val")) == "val"
    assert verify_str_arg("anything") == "anything"
    with pytest.raises(ValueError, match=r"Unknown value 'x' for argument split. Valid values are \{'a', 'b'\}."):
        verify_str_arg("x", "split", ("a", "b"))
    with pytest.raises(ValueError, match="Expected type str"):
        verify_str_arg(3, "split", ("a",))
    tvu = pytest.importorskip("torchvision.datasets.utils")
    for args in (("x", "split", ("a", "b")), (3, "what", ("a",))):
        with pytest.raises(ValueError) as theirs:
            tvu.verify_str_arg(*args)
        with pytest.raises(ValueError) as ours:
            verify_str_arg(*args)
        assert str(ours.value) == str(theirs.value)


def _semeion_and_omniglot(root):
    rng = np.random.default_rng(5)
    pixels = rng.integers(0, 2, (3, 256))
    labels = np.eye(10, dtype=int)[[4, 0, 9]]
    with open(os.path.join(root, "semeion.data"), "w") as f:
        for p, lab in zip(pixels, labels):
            f.write(" ".join(f"{v}.0000" for v in p) + " " + " ".join(str(v) for v in lab) + "\n")
    base = os.path.join(root, "omniglot-py", "images_background")
    for alphabet, characters in (("Greek", ("character01", "character02")), ("Alphabet_of_the_Magi", ("character01",))):
        for ch in characters:
            os.makedirs(os.path.join(base, alphabet, ch))
            for i in range(2):
                PIL.fromarray(np.full((5, 5), 255 * i, np.uint8)).save(os.path.join(base, alphabet, ch, f"{i}.png"))
    return pixels


def test_semeion_and_omniglot(tmp_path):
    pixels = _semeion_and_omniglot(str(tmp_path))
    digits = datasets.SEMEION(str(tmp_path))
    assert digits.labels.tolist() == [4, 0, 9] and (digits.data == (pixels * 255).reshape(3, 16, 16)).all()
    assert digits[2][0].size == (16, 16) and digits[2][1] == 9
    with pytest.raises(DatasetNotFoundError, match="semeion.data"):
        datasets.SEMEION(str(tmp_path / "none"), download=False)
    glyphs = datasets.Omniglot(str(tmp_path))
    assert len(glyphs) == 6 and [t for _, t in glyphs] == [0, 0, 1, 1, 2, 2]
    assert glyphs._characters[0] == os.path.join("Alphabet_of_the_Magi", "character01") and glyphs[1][0].mode == "L"
    assert glyphs.root == os.path.join(str(tmp_path), "omniglot-py")
    with pytest.raises(DatasetNotFoundError, match="images_evaluation"):
        datasets.Omniglot(str(tmp_path), background=False)


def test_semeion_matches_torchvision(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    tvd = pytest.importorskip("torchvision.datasets")
    _semeion_and_omniglot(str(tmp_path))
    monkeypatch.setattr(tvd.SEMEION, "_check_integrity", lambda self: True)  # our file, not the real MD5
    ours, theirs = datasets.SEMEION(str(tmp_path)), tvd.SEMEION(str(tmp_path), download=False)
    assert (ours.data == theirs.data).all() and ours.labels.tolist() == theirs.labels.tolist()
