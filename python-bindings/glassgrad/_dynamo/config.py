"""torch._dynamo.config: the settings scripts set most, with PyTorch 2.x's defaults
(glassgrad/utils/_config_module.py says what they do here: glassgrad.compile reads none)."""
from glassgrad.utils._config_module import install

install(__name__, {
    "suppress_errors": False, "cache_size_limit": 8, "recompile_limit": 8, "accumulated_cache_size_limit": 256,
    "verbose": False, "optimize_ddp": True, "capture_scalar_outputs": False, "capture_dynamic_output_shape_ops": False,
    "automatic_dynamic_shapes": True, "assume_static_by_default": True,
    "compiled_autograd": False,
})
