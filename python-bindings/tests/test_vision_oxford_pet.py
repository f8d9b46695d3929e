"""glassgrad.vision.datasets.OxfordIIITPet reads torchvision's layout (root/oxford-iiit-pet/images,
annotations/{trainval,test}.txt, annotations/trimaps): the 0-based breed, cat/dog and trimap
targets, the breed names made from the image ids, and torchvision's errors. The expected values are
torchvision's documented behaviour for the lists written here; the last test compares with
torchvision itself when it is installed."""
import numpy as np
import pytest
from PIL import Image

import glassgrad.vision as gv
from data_fixtures import PETS, write_oxford_pets


def test_reads_the_lists_with_torchvisions_labels_and_class_names(tmp_path):
    write_oxford_pets(str(tmp_path))
    pets = gv.datasets.OxfordIIITPet(str(tmp_path))
    assert len(pets) == len(PETS)
    # breeds named from the ids in label order: `great_pyrenees` is "Great Pyrenees"
    assert pets.classes == ["Abyssinian", "American Bulldog", "Great Pyrenees"]
    # class_to_idx numbers the names found (as torchvision's); labels keep the list's numbers
    assert pets.class_to_idx == {"Abyssinian": 0, "American Bulldog": 1, "Great Pyrenees": 2}
    assert pets.bin_classes == ["Cat", "Dog"] and pets.bin_class_to_idx == {"Cat": 0, "Dog": 1}
    image, label = pets[3]
    assert isinstance(image, Image.Image) and image.mode == "RGB" and image.size == (24, 20)
    assert label == 14
    assert len(gv.datasets.OxfordIIITPet(str(tmp_path), split="test")) == 2


def test_target_types_in_the_order_given(tmp_path):
    write_oxford_pets(str(tmp_path))
    pets = gv.datasets.OxfordIIITPet(str(tmp_path), target_types=["binary-category", "category", "segmentation"])
    image, (species, breed, trimap) = pets[1]
    assert (species, breed) == (1, 1) and isinstance(trimap, Image.Image) and trimap.size == (24, 20)
    assert set(np.unique(np.asarray(trimap))) <= {1, 2, 3}
    _, nothing = gv.datasets.OxfordIIITPet(str(tmp_path), target_types=[])[0]
    assert nothing is None


def test_transforms_apply_to_image_and_target(tmp_path):
    write_oxford_pets(str(tmp_path))
    pets = gv.datasets.OxfordIIITPet(str(tmp_path), transform=gv.transforms.ToTensor(),
                                     target_transform=lambda y: y + 100)
    image, label = pets[0]
    assert tuple(image.shape) == (3, 20, 24) and label == 100
    joint = gv.datasets.OxfordIIITPet(str(tmp_path), transforms=lambda img, y: (img.size, -y))
    assert joint[4] == ((24, 20), -1)


def test_errors_are_torchvisions(tmp_path):
    with pytest.raises(RuntimeError, match="Dataset not found. You can use download=True to download it"):
        gv.datasets.OxfordIIITPet(str(tmp_path))
    write_oxford_pets(str(tmp_path))
    with pytest.raises(ValueError, match=r"Unknown value 'train' for argument split. Valid values are "
                                         r"\{'trainval', 'test'\}"):
        gv.datasets.OxfordIIITPet(str(tmp_path), split="train")
    with pytest.raises(ValueError, match="Unknown value 'label' for argument target_types"):
        gv.datasets.OxfordIIITPet(str(tmp_path), target_types="label")
    # with the folders there, download=True fetches nothing (the notebooks pass it)
    assert len(gv.datasets.OxfordIIITPet(str(tmp_path), split="test", download=True)) == 2


def test_matches_torchvision(tmp_path):
    tv = pytest.importorskip("torchvision")
    write_oxford_pets(str(tmp_path))
    for split in ("trainval", "test"):
        kinds = ["category", "binary-category", "segmentation"]
        ours = gv.datasets.OxfordIIITPet(str(tmp_path), split=split, target_types=kinds)
        theirs = tv.datasets.OxfordIIITPet(str(tmp_path), split=split, target_types=kinds)
        assert ours.classes == theirs.classes and ours.class_to_idx == theirs.class_to_idx and len(ours) == len(theirs)
        for i in range(len(ours)):
            (a, (b1, b2, b3)), (c, (d1, d2, d3)) = ours[i], theirs[i]
            assert np.array_equal(np.asarray(a), np.asarray(c)) and (b1, b2) == (d1, d2)
            assert np.array_equal(np.asarray(b3), np.asarray(d3))
        assert repr(ours).split("\n")[1:] == repr(theirs).split("\n")[1:]
