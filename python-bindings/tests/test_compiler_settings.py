"""torch._inductor.config and torch._dynamo.config as scripts set them (karpathy/llm.c's
train_gpt2.py: `import torch._inductor.config as config`, then
`config.coordinate_descent_tuning = True` when compiling): PyTorch's defaults, settings that
keep what was set, AttributeError naming the module for a name it does not have, patch() for a
block or a function (glassgrad/utils/_config_module.py)."""
import pytest

import glassgrad
import glassgrad._dynamo.config as dynamo_config
import glassgrad._inductor.config as config
import glassgrad.torch as torch

# PyTorch 2.x's documented defaults of the settings scripts set most
DEFAULTS = {"coordinate_descent_tuning": False, "max_autotune": False, "epilogue_fusion": True,
            "fx_graph_cache": True, "triton.cudagraphs": False, "triton.unique_kernel_names": True,
            "cpp.threads": -1}


@pytest.mark.parametrize("name,value", sorted(DEFAULTS.items()))
def test_inductor_defaults(name, value):
    obj = config
    for part in name.split("."):
        obj = getattr(obj, part)
    assert obj == value and config.get_config_copy()[name] == value


def test_a_setting_keeps_what_a_script_sets_and_the_torch_alias_reaches_it():
    assert hasattr(config, "coordinate_descent_tuning")  # llm.c checks before setting
    with config.patch(coordinate_descent_tuning=True):
        assert torch._inductor.config.coordinate_descent_tuning is True
    assert config.coordinate_descent_tuning is False
    before = config.triton.cudagraphs
    try:
        config.triton.cudagraphs = True
        assert config.get_config_copy()["triton.cudagraphs"] is True and torch._inductor.config.triton.cudagraphs
    finally:
        config.triton.cudagraphs = before


def test_an_unknown_name_raises_attribute_error_naming_the_module():
    with pytest.raises(AttributeError, match=r"glassgrad._inductor.config.not_a_setting does not exist"):
        config.not_a_setting = 1
    with pytest.raises(AttributeError, match="does not exist"):
        config.not_a_setting
    assert not hasattr(config, "not_a_setting")
    with pytest.raises(AttributeError, match="group of settings"):
        config.triton = 1
    with pytest.raises(AttributeError, match="does not exist"):
        config.patch(not_a_setting=True)


def test_patch_as_decorator_with_a_name_or_a_dict():
    @config.patch("max_autotune", True)
    def inside():
        return config.max_autotune

    assert inside() is True and config.max_autotune is False
    with config.patch({"triton.cudagraphs": True, "max_autotune": True}):
        assert config.triton.cudagraphs and config.max_autotune
    assert not config.triton.cudagraphs and not config.max_autotune


def test_dynamo_settings_and_reset():
    assert dynamo_config.cache_size_limit == 8 and dynamo_config.suppress_errors is False
    with dynamo_config.patch(suppress_errors=True):
        assert torch._dynamo.config.suppress_errors is True
    assert dynamo_config.suppress_errors is False
    assert torch._dynamo.reset is glassgrad.compiler.reset


def test_defaults_are_pytorchs():
    real = pytest.importorskip("torch")
    import torch._dynamo.config
    import torch._inductor.config  # noqa: F401
    for ours, theirs in ((config, real._inductor.config), (dynamo_config, real._dynamo.config)):
        for name, value in ours.get_config_copy().items():
            obj = theirs
            for part in name.split("."):
                obj = getattr(obj, part)
            if name not in ("compile_threads",):  # PyTorch's depends on the machine's cores
                assert obj == value, name
