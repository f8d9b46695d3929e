"""Optimizers (SGD, Adam, AdamW, RMSprop) with PyTorch's update rules, run as in-place nodes of
the step's plan, and learning-rate schedules (glassgrad.optim.lr_scheduler)."""
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "lr_scheduler"]
