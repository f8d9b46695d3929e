"""Optimizers (SGD, Adam, AdamW, RMSprop, Adadelta, Adagrad, Adamax, NAdam, RAdam, Rprop, ASGD,
SparseAdam, Adafactor, Muon; LBFGS) with PyTorch's update rules, run as in-place nodes of the step's plan, learning-rate
schedules (glassgrad.optim.lr_scheduler) and weight averaging (glassgrad.optim.swa_utils)."""
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adafactor import Adafactor
from .adamax import Adamax
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .radam import RAdam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .rprop import Rprop
from .asgd import ASGD
from .sgd import SGD
from .sparse_adam import SparseAdam
from . import lr_scheduler, swa_utils

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adadelta", "Adagrad", "Adamax", "NAdam", "RAdam", "LBFGS",
           "Rprop", "ASGD", "SparseAdam", "Adafactor", "Muon", "lr_scheduler", "swa_utils"]
