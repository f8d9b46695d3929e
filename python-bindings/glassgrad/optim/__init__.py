"""Optimizers: SGD and Adam, PyTorch's update rules, run as in-place nodes of the step's plan."""
from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam"]
