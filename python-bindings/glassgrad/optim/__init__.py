"""Optimizers (SGD, Adam, AdamW, RMSprop, Adadelta, Adagrad, Adamax, NAdam, RAdam; LBFGS) with PyTorch's update rules, run as in-place nodes of
the step's plan, and learning-rate schedules (glassgrad.optim.lr_scheduler)."""
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .lbfgs import LBFGS
from .nadam import NAdam
from .radam import RAdam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adadelta", "Adagrad", "Adamax", "NAdam", "RAdam", "LBFGS",
           "lr_scheduler"]
