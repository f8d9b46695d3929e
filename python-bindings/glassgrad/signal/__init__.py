"""torch.signal: its windows (glassgrad.signal.windows)."""
from . import windows

__all__ = ["windows"]
