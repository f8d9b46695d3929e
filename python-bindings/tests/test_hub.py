"""glassgrad.hub (torch.hub's names): the cache folder's rules, checkpoints by URL from the cache
or downloaded (file:// URLs stand in for a server; a refused port for no network), hash checks
that leave nothing behind, the hub's one-file zip format, and models from a hubconf.py, local or
from a cached repository. Where PyTorch is installed its hub reads the same files alike."""
import hashlib
import os
import sys
import zipfile

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.hub as hub


@pytest.fixture
def hub_home(tmp_path, monkeypatch):
    """A fresh TORCH_HOME and no set_dir() in force."""
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    return tmp_path


def _state():
    rng = np.random.default_rng(3)
    return {"weight": gg.tensor(rng.standard_normal((3, 4)).astype(np.float32)),
            "bias": gg.tensor(rng.standard_normal(3).astype(np.float32))}


def test_get_dir_follows_torch_home_then_xdg_then_home_and_set_dir_wins(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert hub.get_dir() == str(tmp_path / "th" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.get_dir() == str(tmp_path / "xdg" / "torch" / "hub")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert hub.get_dir() == os.path.expanduser("~/.cache/torch/hub")
    hub.set_dir(tmp_path / "mine")
    assert hub.get_dir() == str(tmp_path / "mine")


def test_torch_hub_is_glassgrad_hub_under_every_import_form():
    import glassgrad.torch as torch
    from glassgrad.torch.hub import load_state_dict_from_url
    assert torch.hub is hub and load_state_dict_from_url is hub.load_state_dict_from_url


def test_a_cached_checkpoint_is_read_without_downloading(hub_home):
    folder = os.path.join(hub.get_dir(), "checkpoints")
    os.makedirs(folder)
    gg.save(_state(), os.path.join(folder, "net-0123abcd.pth"))
    got = hub.load_state_dict_from_url("http://127.0.0.1:9/models/net-0123abcd.pth")
    np.testing.assert_array_equal(got["weight"].numpy(), _state()["weight"].numpy())
    assert isinstance(got["bias"], gg.Tensor)


def test_model_zoo_load_url_is_the_hub_loader_as_in_torch(hub_home, torch):
    """`import torch.utils.model_zoo as model_zoo; model_zoo.load_url(url)` (model files copied from
    torchvision before 0.13) reads the hub's cached checkpoint, as torch's does."""
    import glassgrad.torch.utils.model_zoo as model_zoo
    import torch.utils.model_zoo as torch_zoo
    assert model_zoo.load_url is hub.load_state_dict_from_url
    assert "load_url" in dir(torch_zoo)
    folder = os.path.join(hub.get_dir(), "checkpoints")
    os.makedirs(folder)
    gg.save(_state(), os.path.join(folder, "resnet-0123abcd.pth"))
    url = "http://127.0.0.1:9/models/resnet-0123abcd.pth"
    got = model_zoo.load_url(url, progress=False)
    ref = torch_zoo.load_url(url, progress=False)
    np.testing.assert_array_equal(got["weight"].numpy(), ref["weight"].numpy())


def test_a_missing_file_without_network_names_the_url_and_where_to_copy_it(hub_home):
    model_dir = str(hub_home / "md")
    with pytest.raises(OSError) as e:
        hub.load_state_dict_from_url("http://127.0.0.1:9/models/net.pth", model_dir=model_dir, progress=False)
    text = str(e.value)
    assert "http://127.0.0.1:9/models/net.pth" in text and os.path.join(model_dir, "net.pth") in text
    assert "fix:" in text and os.listdir(model_dir) == []


def test_download_checks_the_hash_in_the_name_and_leaves_nothing_when_it_differs(hub_home):
    src = hub_home / "served.pth"
    gg.save(_state(), str(src))
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    good = hub_home / "srv" / f"net-{digest[:8]}.pth"
    bad = hub_home / "srv" / "net-deadbeef.pth"
    good.parent.mkdir()
    good.write_bytes(src.read_bytes())
    bad.write_bytes(src.read_bytes())
    model_dir = str(hub_home / "md")
    got = hub.load_state_dict_from_url(good.as_uri(), model_dir=model_dir, check_hash=True, progress=False)
    np.testing.assert_array_equal(got["bias"].numpy(), _state()["bias"].numpy())
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.load_state_dict_from_url(bad.as_uri(), model_dir=model_dir, check_hash=True, progress=False)
    assert sorted(os.listdir(model_dir)) == [good.name]
    # without check_hash the name's digits are not checked
    hub.load_state_dict_from_url(bad.as_uri(), model_dir=model_dir, file_name="other.pth", progress=False)
    assert sorted(os.listdir(model_dir)) == sorted([good.name, "other.pth"])


def test_download_url_to_file_writes_the_bytes_and_checks_a_prefix(hub_home):
    src = hub_home / "blob.bin"
    src.write_bytes(bytes(range(256)) * 300)
    dst = hub_home / "copy.bin"
    hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix=hashlib.sha256(src.read_bytes()).hexdigest()[:10],
                             progress=False)
    assert dst.read_bytes() == src.read_bytes()
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.download_url_to_file(src.as_uri(), str(hub_home / "no.bin"), hash_prefix="0000", progress=False)
    assert not (hub_home / "no.bin").exists() and not [f for f in os.listdir(hub_home) if f.endswith(".partial")]


def test_the_hubs_one_file_zip_format_is_extracted_and_read(hub_home):
    inner = hub_home / "weights.pth"
    gg.save(_state(), str(inner))
    model_dir = hub_home / "md"
    model_dir.mkdir()
    with zipfile.ZipFile(model_dir / "net.zip", "w") as z:
        z.write(inner, "weights.pth")
    got = hub.load_state_dict_from_url("http://127.0.0.1:9/net.zip", model_dir=str(model_dir))
    np.testing.assert_array_equal(got["weight"].numpy(), _state()["weight"].numpy())
    assert (model_dir / "weights.pth").exists()


def test_pytorch_reads_what_glassgrad_cached_and_glassgrad_reads_what_pytorch_cached(hub_home):
    torch = pytest.importorskip("torch")
    model_dir = str(hub_home / "md")
    os.makedirs(model_dir)
    torch.save({"w": torch.arange(6.0).reshape(2, 3)}, os.path.join(model_dir, "t.pth"))
    got = hub.load_state_dict_from_url("http://127.0.0.1:9/t.pth", model_dir=model_dir, weights_only=True)
    np.testing.assert_array_equal(got["w"].numpy(), np.arange(6.0, dtype=np.float32).reshape(2, 3))
    gg.save(_state(), os.path.join(model_dir, "g.pth"))
    theirs = torch.hub.load_state_dict_from_url("http://127.0.0.1:9/g.pth", model_dir=model_dir, weights_only=True)
    np.testing.assert_array_equal(theirs["weight"].numpy(), _state()["weight"].numpy())


HUBCONF = '''
dependencies = ["numpy"]
import glassgrad.torch as torch
from helper_layers import make_linear


def tiny(out_features=2, scale=1.0):
    """A linear layer from 4 to out_features."""
    return make_linear(out_features, scale)


def _private():
    return None
'''


def _repo(folder):
    folder.mkdir(parents=True)
    (folder / "hubconf.py").write_text(HUBCONF)
    (folder / "helper_layers.py").write_text(
        "import glassgrad.torch as torch\n"
        "def make_linear(n, scale):\n"
        "    layer = torch.nn.Linear(4, n)\n"
        "    layer.scale = scale\n"
        "    return layer\n")
    return folder


def test_load_list_and_help_from_a_local_hubconf(hub_home):
    repo = _repo(hub_home / "repo")
    model = hub.load(str(repo), "tiny", 3, source="local", scale=0.5)
    assert isinstance(model, gg.nn.Linear) and model.weight.shape == (3, 4) and model.scale == 0.5
    assert hub.list(str(repo), source="local") == ["make_linear", "tiny"]
    assert hub.help(str(repo), "tiny", source="local") == "A linear layer from 4 to out_features."
    assert str(repo) not in sys.path
    with pytest.raises(RuntimeError, match="Cannot find callable huge in hubconf"):
        hub.load(str(repo), "huge", source="local")
    with pytest.raises(ValueError, match="Unknown source"):
        hub.load(str(repo), "tiny", source="svn")


def test_a_missing_dependency_and_a_folder_without_hubconf_are_clear_errors(hub_home):
    repo = _repo(hub_home / "repo")
    (repo / "hubconf.py").write_text(HUBCONF.replace('["numpy"]', '["numpy", "no_such_package_xyz"]'))
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_package_xyz"):
        hub.load(str(repo), "tiny", source="local")
    with pytest.raises(FileNotFoundError, match="hubconf.py"):
        hub.load(str(hub_home), "tiny", source="local")


def test_a_cached_github_repository_loads_offline_and_trust_is_recorded(hub_home):
    _repo(hub_home / "home" / "hub" / "someone_models_main")
    model = hub.load("someone/models", "tiny", trust_repo=True, verbose=False)
    assert model.weight.shape == (2, 4)
    with open(os.path.join(hub.get_dir(), "trusted_list")) as f:
        assert f.read().split() == ["someone_models"]
    # now trusted: 'check' does not ask
    assert hub.list("someone/models", trust_repo="check", verbose=False) == ["make_linear", "tiny"]


def test_an_untrusted_repository_is_refused_when_the_answer_is_no(hub_home, monkeypatch):
    _repo(hub_home / "home" / "hub" / "stranger_repo_dev")
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    with pytest.raises(Exception, match="Untrusted repository"):
        hub.load("stranger/repo:dev", "tiny", trust_repo="check", verbose=False)


def test_an_uncached_github_repository_without_network_says_how_to_run_it_locally(hub_home, monkeypatch):
    monkeypatch.setattr(hub, "_TIMEOUT", 2.0)
    monkeypatch.setattr(hub.urllib.request, "urlopen",
                        lambda *a, **k: (_ for _ in ()).throw(hub.urllib.error.URLError("no network")))
    with pytest.raises(OSError) as e:
        hub.load("pytorch/vision", "resnet18", verbose=False)
    assert "source='local'" in str(e.value) and "pytorch_vision_main" in str(e.value)
    with pytest.raises(gg.InvalidArgumentError, match="not a GitHub repository"):
        hub.load("not-a-repo", "tiny", trust_repo=True)
