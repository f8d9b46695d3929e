"""cross_entropy / nll_loss with a computed target outside [0, classes) (and not ignore_index)
raise PyTorch's IndexError sentence first ('Target 3 is out of bounds.'), then which target and
a fix that fits it (more outputs for a large one; ignore_index for a negative padding mark)."""
import pytest

import glassgrad as gg

F = gg.nn.functional


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("target, fix", [([0, 3], "give the model 4 outputs"),
                                         ([0, -2], "pass ignore_index=-2")])
def test_sentence_and_fix(loss, target, fix):
    with pytest.raises(IndexError) as e:
        getattr(F, loss)(gg.zeros(2, 3), gg.tensor(target))
    lines = str(e.value).splitlines()
    assert lines[0] == f"{loss}: Target {target[1]} is out of bounds."
    assert "at position 1 is out of range for 3 classes" in lines[1] and fix in lines[-1]


def test_ignore_index_is_not_out_of_bounds():
    assert F.cross_entropy(gg.zeros(2, 3), gg.tensor([0, -2]), ignore_index=-2).item() == pytest.approx(1.0986123)


def test_as_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError, match=r"^Target 3 is out of bounds\.$"):
        torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 3]))
