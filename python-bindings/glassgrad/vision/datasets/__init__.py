"""glassgrad.vision.datasets: torchvision.datasets' names and file layouts."""
from .celeba import CelebA
from .cifar import CIFAR10, CIFAR100
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .flowers102 import Flowers102
from .mnist import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST
from .oxford_iiit_pet import OxfordIIITPet
from .stl10 import STL10
from .svhn import SVHN
from .usps import USPS
from .vision import VisionDataset

__all__ = ["CIFAR10", "CIFAR100", "CelebA", "DatasetFolder", "EMNIST", "FakeData", "FashionMNIST", "Flowers102", "ImageFolder",
           "KMNIST", "MNIST", "OxfordIIITPet", "QMNIST", "STL10", "SVHN", "USPS", "VisionDataset"]
