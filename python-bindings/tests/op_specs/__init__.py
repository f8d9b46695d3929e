"""The op table: one OpSpec per kernel, one module per op family. test_op_table.py runs them all."""
import importlib
import pkgutil

SPECS = []
for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    SPECS.extend(importlib.import_module(f"{__name__}.{_mod}").SPECS)
