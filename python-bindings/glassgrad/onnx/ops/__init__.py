"""The converters, one module per op family of the engine (autodiff-engine/src/ops/<family>.cpp);
_registry.py imports every module here."""
