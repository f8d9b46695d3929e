"""Errors of glassgrad.data. Both derive from glassgrad.GlassgradError and from the builtin a
user would expect (`except FileNotFoundError` / `except ValueError` keep working)."""
from .._C import GlassgradError


class DatasetNotFoundError(GlassgradError, FileNotFoundError):
    """A data set's files are not where they were looked for. The message lists the paths
    tried and says how to get the data (glassgrad never downloads anything)."""


class DataFormatError(GlassgradError, ValueError):
    """A data file exists but is not in the expected format (bad magic number, truncated,
    wrong sizes). The message names the file and what is wrong."""
