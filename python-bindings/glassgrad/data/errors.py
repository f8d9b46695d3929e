"""Errors of glassgrad.data. Both derive from glassgrad.GlassgradError and from the builtin a
user would expect (`except FileNotFoundError` / `except ValueError` keep working; a missing data
set is also the RuntimeError torchvision raises)."""
from .._C import GlassgradError


class DatasetNotFoundError(GlassgradError, FileNotFoundError, RuntimeError):
    """A data set's files are not where they were looked for. The message lists the paths
    tried and says how to get the data. Also a RuntimeError: torchvision raises that, and
    scripts catch it."""


class DataFormatError(GlassgradError, ValueError):
    """A data file exists but is not in the expected format (bad magic number, truncated,
    wrong sizes). The message names the file and what is wrong."""
