"""The PyTorch versions the differential tests follow: 2.11 (the reference on the GPU machine) to
2.13. PyTorch 2.14 changed a few conventions (subgradients at ties and bounds, some signatures);
a comparison that meets one of them is skipped under 2.14 and later, naming the change, and runs
under the reference versions."""
import pytest


def version(torch) -> tuple:
    return tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])


def skip_if_changed_in_2_14(torch, what: str) -> None:
    if version(torch) >= (2, 14):
        pytest.skip(f"PyTorch {torch.__version__} changed {what}; glassgrad follows 2.11-2.13 (the reference)")
