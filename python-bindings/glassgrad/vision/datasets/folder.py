"""ImageFolder and DatasetFolder with torchvision's semantics: root/<class>/**/<file>, classes
sorted by folder name, samples sorted by path; ImageFolder opens images with Pillow as RGB."""
from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional, Tuple, Union

from ..transforms import _image
from .vision import VisionDataset

__all__ = ["DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "default_loader", "pil_loader", "find_classes",
           "make_dataset", "has_file_allowed_extension", "is_image_file"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename: str, extensions: Union[str, Tuple[str, ...]]) -> bool:
    return filename.lower().endswith(extensions if isinstance(extensions, str) else tuple(extensions))


def is_image_file(filename: str) -> bool:
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory) -> Tuple[List[str], Dict[str, int]]:
    """The class folders of `directory`, sorted, and their indices."""
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.\n"
                                f"  expected: {directory}/<class name>/<image files>, one folder per class")
    return classes, {c: i for i, c in enumerate(classes)}


def make_dataset(directory, class_to_idx: Optional[Dict[str, int]] = None, extensions=None,
                 is_valid_file: Optional[Callable[[str], bool]] = None, allow_empty: bool = False) -> List[Tuple[str, int]]:
    """(path, class index) of every valid file under each class folder, sorted."""
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the same time")
    if extensions is not None:
        def is_valid_file(x: str) -> bool:
            return has_file_allowed_extension(x, extensions)
    instances, found = [], set()
    for target_class in sorted(class_to_idx):
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    instances.append((path, class_to_idx[target_class]))
                    found.add(target_class)
    empty = set(class_to_idx) - found
    if empty and not allow_empty:
        msg = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            msg += f"Supported extensions are: {extensions if isinstance(extensions, str) else ', '.join(extensions)}"
        raise FileNotFoundError(msg)
    return instances


def pil_loader(path: str):
    Image = _image.require_pil()
    with open(path, "rb") as f:
        img = Image.open(f)
        return img.convert("RGB")


def default_loader(path: str):
    return pil_loader(path)


class DatasetFolder(VisionDataset):
    def __init__(self, root, loader: Callable, extensions=None, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, is_valid_file: Optional[Callable[[str], bool]] = None,
                 allow_empty: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(self.root, class_to_idx, extensions, is_valid_file, allow_empty=allow_empty)
        self.loader, self.extensions = loader, extensions
        self.classes, self.class_to_idx = classes, class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None, allow_empty: bool = False):
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions=extensions, is_valid_file=is_valid_file,
                            allow_empty=allow_empty)

    def find_classes(self, directory) -> Tuple[List[str], Dict[str, int]]:
        return find_classes(directory)

    def __getitem__(self, index: int):
        path, target = self.samples[index]
        sample = self.loader(path)
        return self._apply_transforms(sample, target)

    def __len__(self) -> int:
        return len(self.samples)


class ImageFolder(DatasetFolder):
    def __init__(self, root, transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 loader: Callable = default_loader, is_valid_file: Optional[Callable[[str], bool]] = None,
                 allow_empty: bool = False) -> None:
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None, transform=transform,
                         target_transform=target_transform, is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples
