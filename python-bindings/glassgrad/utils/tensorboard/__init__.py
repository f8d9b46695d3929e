"""glassgrad.utils.tensorboard: torch.utils.tensorboard's SummaryWriter. Event files are written
by TensorBoard's own writer and protocol buffers (the `tensorboard` package, extra
"tensorboard"), so `tensorboard --logdir runs` shows them."""
try:
    import tensorboard
except ImportError as e:  # pragma: no cover - the package is an extra
    # ModuleNotFoundError naming the package, as torch.utils.tensorboard's own `import tensorboard`
    # raises: scripts fall back on it with `except ModuleNotFoundError` or test `e.name`.
    raise ModuleNotFoundError("No module named 'tensorboard': glassgrad.utils.tensorboard needs the tensorboard "
                              "package\n  fix: python3 -m pip install tensorboard (or pip install "
                              "glassgrad[tensorboard])", name="tensorboard") from e

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
