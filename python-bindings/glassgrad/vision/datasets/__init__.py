"""glassgrad.vision.datasets: torchvision.datasets' names and file layouts."""
from .cifar import CIFAR10, CIFAR100
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .mnist import EMNIST, KMNIST, MNIST, FashionMNIST
from .oxford_iiit_pet import OxfordIIITPet
from .stl10 import STL10
from .svhn import SVHN
from .vision import VisionDataset

__all__ = ["CIFAR10", "CIFAR100", "DatasetFolder", "EMNIST", "FakeData", "FashionMNIST", "ImageFolder", "KMNIST", "MNIST",
           "OxfordIIITPet", "STL10", "SVHN", "VisionDataset"]
