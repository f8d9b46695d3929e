"""glassgrad.load(f, weights_only=False) builds the standard-library value classes scripts save
beside their weights (`torch.save({'settings': opt, 'model': model.state_dict()}, f)` with opt an
argparse.Namespace, as attention-is-all-you-need-pytorch's train.py and translate.py do), as
PyTorch's full unpickling does; weights_only=True (the default) still refuses them with
PyTorch's pickle.UnpicklingError."""
import argparse
import datetime
import pickle
import types

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn


def _checkpoint(path):
    gg.manual_seed(0)
    opt = argparse.Namespace(d_model=8, dropout=0.1, names=["a", "b"])
    gg.save({"settings": opt, "model": nn.Linear(2, 3).state_dict(), "when": datetime.date(2024, 5, 1),
             "extra": types.SimpleNamespace(step=7)}, str(path))
    return opt


def test_a_namespace_of_settings_loads_with_weights_only_false(tmp_path):
    opt = _checkpoint(tmp_path / "c.chkpt")
    loaded = gg.load(str(tmp_path / "c.chkpt"), weights_only=False)
    assert isinstance(loaded["settings"], argparse.Namespace) and loaded["settings"] == opt
    assert loaded["when"] == datetime.date(2024, 5, 1) and loaded["extra"].step == 7
    layer = nn.Linear(2, 3)
    layer.load_state_dict(loaded["model"])
    gg.manual_seed(0)
    np.testing.assert_array_equal(layer.weight.detach().numpy(), nn.Linear(2, 3).weight.detach().numpy())


def test_weights_only_still_refuses_a_namespace_naming_the_fixes(tmp_path):
    _checkpoint(tmp_path / "c.chkpt")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed.*argparse.Namespace"):
        gg.load(str(tmp_path / "c.chkpt"))
    with gg.serialization.safe_globals([argparse.Namespace, datetime.date, types.SimpleNamespace]):
        assert gg.load(str(tmp_path / "c.chkpt"))["settings"].d_model == 8


def test_pytorchs_checkpoint_with_settings_loads_with_weights_only_false(tmp_path):
    torch = pytest.importorskip("torch")
    opt = argparse.Namespace(d_model=8, n_layers=2)
    torch.manual_seed(0)
    layer = torch.nn.Linear(2, 3)
    torch.save({"settings": opt, "model": layer.state_dict()}, str(tmp_path / "t.chkpt"))
    loaded = gg.load(str(tmp_path / "t.chkpt"), map_location="cpu", weights_only=False)
    assert loaded["settings"] == opt
    np.testing.assert_array_equal(loaded["model"]["weight"].numpy(), layer.weight.detach().numpy())
