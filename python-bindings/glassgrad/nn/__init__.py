"""Layers and the Module base class."""
from .batchnorm import BatchNorm1D, BatchNorm1d, BatchNorm2D, BatchNorm2d
from .layers import (AvgPool2D, AvgPool2d, Conv2D, Conv2d, Dropout, Flatten, Identity, LayerNorm, LeakyReLU, Linear,
                     MaxPool2D, MaxPool2d, ReLU, Sequential, Sigmoid, Tanh)
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module, Parameter
from . import init
from . import functional

__all__ = ["Module", "Parameter", "Conv2D", "Conv2d", "BatchNorm1D", "BatchNorm1d", "BatchNorm2D", "BatchNorm2d", "Linear", "ReLU", "LeakyReLU", "Sigmoid",
           "Tanh", "LayerNorm", "Dropout", "MaxPool2D", "MaxPool2d", "AvgPool2D", "AvgPool2d", "Flatten", "Identity", "Sequential",
           "functional", "init", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCEWithLogitsLoss", "BCELoss",
           "BatchNorm1D", "BatchNorm1d"]
