"""torch._inductor.config: the settings scripts set most, with PyTorch 2.x's defaults
(glassgrad/utils/_config_module.py says what they do here: glassgrad.compile reads none)."""
from glassgrad.utils._config_module import install

install(__name__, {
    "coordinate_descent_tuning": False, "coordinate_descent_check_all_directions": False,
    "max_autotune": False, "max_autotune_gemm": False, "max_autotune_pointwise": False,
    "max_autotune_gemm_backends": "ATEN,TRITON,CPP", "search_autotune_cache": False, "autotune_local_cache": True,
    "epilogue_fusion": True, "aggressive_fusion": False, "fx_graph_cache": True, "freezing": False,
    "fallback_random": False, "shape_padding": True, "force_fuse_int_mm_with_mul": False, "use_mixed_mm": True,
    "conv_1x1_as_mm": False, "split_reductions": True, "benchmark_kernel": False, "debug": False,
    "compile_threads": 2, "unroll_reductions_threshold": 8, "dce": False, "emulate_precision_casts": False,
    "layout_optimization": True,
    "triton.cudagraphs": False, "triton.cudagraph_trees": True, "triton.unique_kernel_names": True,
    "triton.descriptive_names": "original_aten", "triton.cudagraph_skip_dynamic_graphs": False,
    "cpp.threads": -1, "cpp.simdlen": None, "cpp.enable_kernel_profile": False,
})
