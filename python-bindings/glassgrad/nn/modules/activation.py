"""torch.nn.modules.activation's names, resolved from glassgrad.nn (see _names.py)."""
from ._names import forward_names

__all__, __getattr__, __dir__ = forward_names(__name__, [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
    "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus",
    "Softshrink", "MultiheadAttention", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d",
    "LogSoftmax"])
