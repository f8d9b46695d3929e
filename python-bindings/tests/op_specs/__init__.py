"""The op table: one OpSpec per kernel, one module per op family. test_op_table.py runs them all."""
import importlib
import pkgutil
import zlib

SPECS = []
for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    SPECS.extend(importlib.import_module(f"{__name__}.{_mod}").SPECS)


def case_seed(*parts) -> int:
    """The random seed of one test case, the same in every process (Python's hash() of a string
    changes from process to process, so a case seeded by it drew new data at every run)."""
    return zlib.crc32(repr(parts).encode())
