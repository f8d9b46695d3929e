"""glassgrad.vision.datasets: torchvision.datasets' names and file layouts."""
from .celeba import CelebA
from .cifar import CIFAR10, CIFAR100
from .coco import CocoCaptions, CocoDetection
from .dtd import DTD
from .eurosat import EuroSAT
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .gtsrb import GTSRB
from .flowers102 import Flowers102
from .food101 import Food101
from .mnist import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST
from .omniglot import Omniglot
from .oxford_iiit_pet import OxfordIIITPet
from .semeion import SEMEION
from .stl10 import STL10
from .svhn import SVHN
from .usps import USPS
from ._tv_tensor_wrap import wrap_dataset_for_transforms_v2
from .vision import VisionDataset
from .voc import VOCDetection, VOCSegmentation

__all__ = ["CIFAR10", "CIFAR100", "CelebA", "CocoCaptions", "CocoDetection", "DTD", "DatasetFolder", "EMNIST", "EuroSAT", "FakeData", "FashionMNIST",
           "Flowers102", "Food101", "GTSRB", "ImageFolder", "KMNIST", "MNIST", "Omniglot", "OxfordIIITPet", "QMNIST",
           "SEMEION", "STL10", "SVHN", "USPS", "VOCDetection", "VOCSegmentation", "VisionDataset",
           "wrap_dataset_for_transforms_v2"]
