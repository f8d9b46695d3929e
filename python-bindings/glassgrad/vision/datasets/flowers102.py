"""Flowers102 (torchvision.datasets.Flowers102; Nilsback & Zisserman 2008): root/flowers-102
holds jpg/image_XXXXX.jpg (102flowers.tgz extracted), imagelabels.mat (labels 1-102 by image id)
and setid.mat (trnid, valid, tstid: the image ids of each split), read with scipy.io.loadmat as
torchvision reads them. A sample is (the image through `loader`, int label 0-101)."""
from __future__ import annotations

import os
from typing import Callable, Optional

from ...data.errors import DatasetNotFoundError
from . import _download
from ._listed import ListedImages
from .utils import verify_str_arg
from .folder import default_loader

__all__ = ["Flowers102"]


def load_mat(path: str, what: str):
    try:
        from scipy.io import loadmat
    except ImportError:
        raise ImportError(f"{what} reads its .mat files with scipy.io.loadmat, and scipy is not installed\n"
                          "  fix: pip install scipy") from None
    return loadmat(path, squeeze_me=True)


class Flowers102(ListedImages):
    _download_url_prefix = "https://www.robots.ox.ac.uk/~vgg/data/flowers/102/"
    _file_dict = {"image": ("102flowers.tgz", "52808999861908f626f3c1f4e79d11fa"),
                  "label": ("imagelabels.mat", "e0620be6f572b9609742df49c70aed4d"),
                  "setid": ("setid.mat", "a5357ecc9cb78c4bef273ce3793fc85c")}
    _splits_map = {"train": "trnid", "val": "valid", "test": "tstid"}

    def __init__(self, root, split: str = "train", transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False,
                 loader: Callable = default_loader) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._split = verify_str_arg(split, "split", tuple(self._splits_map))
        self._base_folder = os.path.join(self.root, "flowers-102")
        self._images_folder = os.path.join(self._base_folder, "jpg")
        if download:
            self.download()
        if not self._check_integrity():
            raise DatasetNotFoundError(
                f"Dataset not found or corrupted. You can use download=True to download it\n"
                f"  Flowers102 looked for {self._images_folder}/, imagelabels.mat and setid.mat in {self._base_folder}\n"
                f"  fix: Flowers102(root={self.root!r}, download=True), or extract 102flowers.tgz and copy the two "
                f".mat files there")
        set_ids = load_mat(os.path.join(self._base_folder, "setid.mat"), "Flowers102")
        labels = load_mat(os.path.join(self._base_folder, "imagelabels.mat"), "Flowers102")
        label_of = dict(enumerate((labels["labels"] - 1).tolist(), 1))
        ids = set_ids[self._splits_map[split]].tolist()
        ids = ids if isinstance(ids, list) else [ids]
        self._labels = [label_of[i] for i in ids]
        self._image_files = [os.path.join(self._images_folder, f"image_{i:05d}.jpg") for i in ids]
        self.loader = loader

    def _check_integrity(self) -> bool:
        return os.path.isdir(self._images_folder) and all(
            os.path.isfile(os.path.join(self._base_folder, self._file_dict[k][0])) for k in ("label", "setid"))

    def download(self) -> None:
        """Fetches 102flowers.tgz (extracted) and the two .mat files into root/flowers-102."""
        if self._check_integrity():
            return
        name, md5 = self._file_dict["image"]
        _download.download_all("Flowers102", [(name, md5)], [self._download_url_prefix], self._base_folder,
                               lambda path: _download.untar(path, self._base_folder))
        _download.download_all("Flowers102", [self._file_dict["label"], self._file_dict["setid"]],
                               [self._download_url_prefix], self._base_folder)

    # the 102 category names, in label order (the dataset's)
    classes = ['pink primrose', 'hard-leaved pocket orchid', 'canterbury bells', 'sweet pea', 'english marigold',
               'tiger lily', 'moon orchid', 'bird of paradise', 'monkshood', 'globe thistle', 'snapdragon',
               "colt's foot", 'king protea', 'spear thistle', 'yellow iris', 'globe-flower', 'purple coneflower',
               'peruvian lily', 'balloon flower', 'giant white arum lily', 'fire lily', 'pincushion flower',
               'fritillary', 'red ginger', 'grape hyacinth', 'corn poppy', 'prince of wales feathers',
               'stemless gentian', 'artichoke', 'sweet william', 'carnation', 'garden phlox', 'love in the mist',
               'mexican aster', 'alpine sea holly', 'ruby-lipped cattleya', 'cape flower', 'great masterwort',
               'siam tulip', 'lenten rose', 'barbeton daisy', 'daffodil', 'sword lily', 'poinsettia',
               'bolero deep blue', 'wallflower', 'marigold', 'buttercup', 'oxeye daisy', 'common dandelion',
               'petunia', 'wild pansy', 'primula', 'sunflower', 'pelargonium', 'bishop of llandaff', 'gaura',
               'geranium', 'orange dahlia', 'pink-yellow dahlia?', 'cautleya spicata', 'japanese anemone',
               'black-eyed susan', 'silverbush', 'californian poppy', 'osteospermum', 'spring crocus', 'bearded iris',
               'windflower', 'tree poppy', 'gazania', 'azalea', 'water lily', 'rose', 'thorn apple', 'morning glory',
               'passion flower', 'lotus', 'toad lily', 'anthurium', 'frangipani', 'clematis', 'hibiscus', 'columbine',
               'desert-rose', 'tree mallow', 'magnolia', 'cyclamen', 'watercress', 'canna lily', 'hippeastrum',
               'bee balm', 'ball moss', 'foxglove', 'bougainvillea', 'camellia', 'mallow', 'mexican petunia',
               'bromelia', 'blanket flower', 'trumpet creeper', 'blackberry lily']
