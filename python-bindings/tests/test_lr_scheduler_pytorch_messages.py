"""Scheduler argument errors start with PyTorch's own sentence (docs/optimizers.md): a script that
matches PyTorch's ValueError text finds it, and glassgrad's cause and fix follow."""
import re

import pytest

import glassgrad as gg
from glassgrad.optim import lr_scheduler as L


def _opt(groups=1):
    params = [gg.nn.Parameter(gg.zeros(1)) for _ in range(groups)]
    return gg.optim.SGD([{"params": [p]} for p in params], lr=0.1)


CASES = [
    (lambda: L.CosineAnnealingWarmRestarts(_opt(), 0), "Expected positive integer T_0, but got 0"),
    (lambda: L.CosineAnnealingWarmRestarts(_opt(), 1.5), "Expected positive integer T_0, but got 1.5"),
    (lambda: L.CosineAnnealingWarmRestarts(_opt(), 2, T_mult=0), "Expected integer T_mult >= 1, but got 0"),
    (lambda: L.CosineAnnealingWarmRestarts(_opt(), 2, eta_min="a"),
     "Expected float or int eta_min, but got a of type <class 'str'>"),
    (lambda: L.LinearLR(_opt(), start_factor=0),
     "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."),
    (lambda: L.LinearLR(_opt(), end_factor=2), "Ending multiplicative factor expected to be between 0 and 1."),
    (lambda: L.ConstantLR(_opt(), factor=2), "Constant multiplicative factor expected to be between 0 and 1."),
    (lambda: L.ReduceLROnPlateau(_opt(), mode="bad"), "mode bad is unknown!"),
    (lambda: L.ReduceLROnPlateau(_opt(), threshold_mode="bad"), "threshold mode bad is unknown!"),
    (lambda: L.ReduceLROnPlateau(_opt(), factor=1.0), "Factor should be < 1.0."),
    (lambda: L.ReduceLROnPlateau(_opt(), min_lr=[0.1, 0.2]), "expected 1 min_lrs, got 2"),
    (lambda: L.OneCycleLR(_opt(), max_lr=0.1), "You must define either total_steps OR (epochs AND steps_per_epoch)"),
    (lambda: L.OneCycleLR(_opt(), max_lr=0.1, total_steps=0), "Expected positive integer total_steps, but got 0"),
    (lambda: L.OneCycleLR(_opt(), max_lr=0.1, epochs=0, steps_per_epoch=2), "Expected positive integer epochs, but got 0"),
    (lambda: L.OneCycleLR(_opt(), max_lr=0.1, epochs=2, steps_per_epoch=-1),
     "Expected positive integer steps_per_epoch, but got -1"),
    (lambda: L.OneCycleLR(_opt(), max_lr=0.1, total_steps=10, anneal_strategy="x"),
     "anneal_strategy must be one of 'cos' or 'linear', instead got x"),
    (lambda: L.LambdaLR(_opt(), [lambda e: 1.0, lambda e: 1.0]), "Expected 1 lr_lambdas, but got 2"),
    (lambda: L.MultiplicativeLR(_opt(2), [lambda e: 1.0]), "Expected 2 lr_lambdas, but got 1"),
    (lambda: L.SequentialLR(_opt(), [L.StepLR(_opt(), 1)], milestones=[]),
     "SequentialLR expects all schedulers to belong to the same optimizer, but got scheduler StepLR at index 0 has SGD ("),
    (lambda: L.CyclicLR(_opt(), 0.1, 1, mode="x"), "mode is invalid and scale_fn is None"),
]


@pytest.mark.parametrize("make, sentence", CASES, ids=[c[1][:40] for c in CASES])
def test_the_error_starts_with_pytorchs_sentence(make, sentence):
    with pytest.raises(ValueError, match=re.escape(sentence)) as info:
        make()
    first_line = str(info.value).splitlines()[0]
    assert first_line.endswith(sentence) or sentence.endswith("(")  # the sentence, after the scheduler's name
    assert "\n  cause: " in str(info.value)  # glassgrad's account of the argument follows


def test_sequential_milestones_of_the_wrong_count():
    opt = _opt()
    with pytest.raises(ValueError, match=re.escape(
            "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
            "milestone points, but got number of schedulers 2 and the number of milestones to be equal to 2")):
        L.SequentialLR(opt, [L.StepLR(opt, 1), L.StepLR(opt, 2)], milestones=[1, 2])


def test_the_error_type_is_kept():
    with pytest.raises(TypeError):  # a float T_0 is a type error in glassgrad, and a ValueError as PyTorch's
        L.CosineAnnealingWarmRestarts(_opt(), 1.5)
