"""The cache key of the legacy (NVRTC 12) kernel images, core-runtime/cmake/nvrtc_legacy.py:
it must change when any file the kernels include changes, also a header outside the include
directories reached through a relative #include (kernels/optimizer_rules.h, one folder above
kernels/cuda), or a build would reuse an image compiled from the old header. No NVRTC needed."""
import importlib.util
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO, "core-runtime", "cmake", "nvrtc_legacy.py")


def _tool():
    spec = importlib.util.spec_from_file_location("nvrtc_legacy", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _tree(tmp_path):
    """kernels/cuda/{all.cu, family.cu, common.cuh} and kernels/shared.h (outside -I), engine/def.h."""
    cuda = tmp_path / "kernels" / "cuda"
    engine = tmp_path / "engine"
    cuda.mkdir(parents=True)
    engine.mkdir()
    (tmp_path / "kernels" / "shared.h").write_text("#define RULE(a) (a + 1)\n")
    (tmp_path / "kernels" / "unrelated.h").write_text("// read by nothing\n")
    (engine / "def.h").write_text("#define OPS 3\n")
    (cuda / "common.cuh").write_text('#include "def.h"\n#include <cuda_fp16.h>\n')
    (cuda / "family.cu").write_text('#include "common.cuh"\n# include "../shared.h"\n__global__ void k() {}\n')
    (tmp_path / "all.cu").write_text(f'#include "{cuda / "family.cu"}"\n')
    return str(tmp_path / "all.cu"), [str(cuda), str(engine)]


def test_the_key_follows_includes_outside_the_include_directories(tmp_path):
    tool = _tool()
    source, dirs = _tree(tmp_path)
    names = {os.path.relpath(p, tmp_path) for p in tool.included_files(source, dirs)}
    assert names == {os.path.join("kernels", "cuda", "family.cu"), os.path.join("kernels", "cuda", "common.cuh"),
                     os.path.join("engine", "def.h"), os.path.join("kernels", "shared.h")}, names
    before = tool.cache_key((12, 4), ["-arch=sm_50"], source, dirs)
    assert tool.cache_key((12, 4), ["-arch=sm_50"], source, dirs) == before  # deterministic
    (tmp_path / "kernels" / "unrelated.h").write_text("// changed, still read by nothing\n")
    assert tool.cache_key((12, 4), ["-arch=sm_50"], source, dirs) == before
    (tmp_path / "kernels" / "shared.h").write_text("#define RULE(a) (a + 2)\n")
    after = tool.cache_key((12, 4), ["-arch=sm_50"], source, dirs)
    assert after != before
    (tmp_path / "engine" / "def.h").write_text("#define OPS 4\n")
    assert tool.cache_key((12, 4), ["-arch=sm_50"], source, dirs) != after
    assert tool.cache_key((12, 5), ["-arch=sm_50"], source, dirs) != tool.cache_key((12, 4), ["-arch=sm_50"],
                                                                                   source, dirs)


def test_the_real_kernels_reach_the_headers_they_share_with_the_cpu(tmp_path):
    tool = _tool()
    kernels = os.path.join(REPO, "core-runtime", "kernels")
    all_cu = tmp_path / "all_kernels.cu"  # as GlassgradFatbin.cmake generates it
    all_cu.write_text("".join(f'#include "{os.path.join(kernels, "cuda", n)}"\n'
                              for n in sorted(os.listdir(os.path.join(kernels, "cuda"))) if n.endswith(".cu")))
    reached = tool.included_files(str(all_cu), [os.path.join(kernels, "cuda"),
                                                 os.path.join(REPO, "autodiff-engine", "include")])
    for header in ("optimizer_rules.h", "winograd_transforms.h"):
        assert os.path.realpath(os.path.join(kernels, header)) in reached, header
