// CUDA backend status, device information and switches (glue only: logic in
// core-runtime/src/cuda/). Python's face is glassgrad/cuda.py.
#include <pybind11/stl.h>

#include "bindings.h"
#include "glassgrad/runtime/cuda.h"
#include "glassgrad/runtime/settings.h"

namespace glassgrad {

void bind_cuda(py::module_& m) {
  m.def("cuda_built_with_kernels", &cuda::built_with_kernels);
  m.def("cuda_built_archs", &cuda::built_archs);
  m.def("cuda_build_note", &cuda::build_note);
  m.def("cuda_built_version", &cuda::built_cuda_version);
  m.def("cuda_is_available", &cuda::is_available);
  m.def("cuda_why_unavailable", &cuda::why_unavailable);
  m.def("cuda_device_count", &cuda::device_count);
  m.def("cuda_device_info", [](int index) {
    const cuda::DeviceInfo i = cuda::device_info(index);
    py::dict d;
    d["index"] = i.index;
    d["name"] = i.name;
    d["compute_capability"] = py::make_tuple(i.major, i.minor);
    d["multiprocessors"] = i.multiprocessors;
    d["max_threads_per_block"] = i.max_threads_per_block;
    d["max_threads_per_multiprocessor"] = i.max_threads_per_multiprocessor;
    d["max_shared_memory_per_block"] = i.max_shared_memory_per_block;
    d["max_shared_memory_per_multiprocessor"] = i.max_shared_memory_per_multiprocessor;
    d["max_registers_per_block"] = i.max_registers_per_block;
    d["warp_size"] = i.warp_size;
    d["max_grid"] = py::make_tuple(i.max_grid[0], i.max_grid[1], i.max_grid[2]);
    d["l2_cache_bytes"] = i.l2_cache_bytes;
    d["clock_khz"] = i.clock_khz;
    d["memory_clock_khz"] = i.memory_clock_khz;
    d["memory_bus_width_bits"] = i.memory_bus_width_bits;
    d["total_memory"] = i.total_memory;
    d["driver_version"] = i.driver_version;
    d["kernel_image"] = i.kernel_image;
    return d;
  }, py::arg("index") = 0);
  m.def("cuda_synchronize", &cuda::synchronize, py::arg("index") = 0);
  // Event handles cross as integers (glassgrad/_cuda_streams.py owns and destroys them).
  m.def("cuda_event_create", [](int index, bool timing) {
    return reinterpret_cast<uintptr_t>(cuda::event_create(index, timing));
  });
  m.def("cuda_event_record", [](uintptr_t e, int index) { cuda::event_record(reinterpret_cast<void*>(e), index); });
  m.def("cuda_event_synchronize", [](uintptr_t e) { cuda::event_synchronize(reinterpret_cast<void*>(e)); },
        py::call_guard<py::gil_scoped_release>());
  m.def("cuda_event_query", [](uintptr_t e) { return cuda::event_query(reinterpret_cast<void*>(e)); });
  m.def("cuda_event_elapsed_ms", [](uintptr_t a, uintptr_t b) {
    return cuda::event_elapsed_ms(reinterpret_cast<void*>(a), reinterpret_cast<void*>(b));
  });
  m.def("cuda_event_destroy", [](uintptr_t e) { cuda::event_destroy(reinterpret_cast<void*>(e)); });
  m.def("cuda_mem_get_info", &cuda::mem_get_info, py::arg("index") = 0);
  m.def("cuda_fatbin", [] {
    return py::bytes(reinterpret_cast<const char*>(cuda::fatbin_data()), cuda::fatbin_size());
  });
  m.def("cuda_kernel_names", &cuda::kernel_names);
  m.def("cuda_legacy_images", [] {  // [(name, arch, is_ptx, bytes)]: NVRTC 12's images, unpacked
    py::list out;
    const std::vector<std::vector<unsigned char>> bytes = cuda::all_legacy_image_bytes();  // each ends with a NUL
    for (size_t i = 0; i < bytes.size(); ++i) {
      const cuda::LegacyImage& img = cuda::legacy_images()[i];
      out.append(py::make_tuple(img.name, img.arch, img.ptx,
                                py::bytes(reinterpret_cast<const char*>(bytes[i].data()), img.size)));
    }
    return out;
  });
  // [(name, group, packed bytes of the group, group size, offset, size, sha256)]: how they are packed
  m.def("cuda_legacy_packing", [] {
    py::list out;
    for (const cuda::LegacyImage& img : cuda::legacy_images())
      out.append(py::make_tuple(img.name, img.group, img.packed_size(), img.group_size, img.offset, img.size,
                                img.sha256));
    return out;
  });
  m.def("unpack_xz", [](py::bytes packed, size_t unpacked_size) {  // the packed images' decoder, for tests
    const std::string in = packed;
    const std::vector<unsigned char> out =
        cuda::unpack_xz(reinterpret_cast<const unsigned char*>(in.data()), in.size(), unpacked_size, "the given bytes");
    return py::bytes(reinterpret_cast<const char*>(out.data()), out.size());
  }, py::arg("packed"), py::arg("unpacked_size"));
  m.def("cuda_set_conv_algo", &cuda::set_conv_algo);
  m.def("cuda_conv_algo", &cuda::conv_algo);
  m.def("cuda_conv_algo_specs", &cuda::conv_algo_specs);
  m.def("cuda_conv_choices", &cuda::conv_choices);
  m.def("cuda_clear_conv_choices", &cuda::clear_conv_choices);
  m.def("cuda_set_conv_autotune", &cuda::set_conv_autotune);
  m.def("cuda_conv_autotune", &cuda::conv_autotune_enabled);
  m.def("cuda_set_deterministic", &cuda::set_deterministic);
  m.def("cuda_deterministic", &cuda::deterministic);
  m.def("cuda_set_launch_blocking", &cuda::set_launch_blocking);
  m.def("cuda_launch_blocking", &cuda::launch_blocking);
}

}  // namespace glassgrad
