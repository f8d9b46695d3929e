// The CUDA 12 kernel images are embedded packed (cmake/pack_images.py: one xz stream per
// architecture major, docs/cuda.md "Image sizes"); the loader unpacks the one a GPU runs. The
// decoder is the system's liblzma (XZ Utils: the library Python's lzma module and most of a Linux
// system already load), opened when first needed rather than linked, so building glassgrad needs
// no liblzma headers and a machine without the library still runs everything but the CUDA 12
// images. Its single-call form checks the stream's CRC32 of every block; the image's bytes must
// then equal what the build recorded (size, and the SHA-256 that tests compare).
#include <dlfcn.h>

#include <cstdint>
#include <mutex>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"

namespace glassgrad {
namespace cuda {

namespace {

// liblzma's stable C ABI (XZ Utils 5.x): the lzma_ret values this file tells apart and
// lzma_stream_buffer_decode's signature, declared here so that no liblzma header is needed.
enum LzmaRet : int {
  kLzmaOk = 0,
  kLzmaMemError = 5,
  kLzmaMemlimitError = 6,
  kLzmaFormatError = 7,
  kLzmaOptionsError = 8,
  kLzmaDataError = 9,
  kLzmaBufError = 10,
};
using BufferDecode = int (*)(uint64_t* memlimit, uint32_t flags, const void* allocator, const uint8_t* in,
                             size_t* in_pos, size_t in_size, uint8_t* out, size_t* out_pos, size_t out_size);

const char* xz_words(int r) {
  switch (r) {
    case kLzmaMemError: return "out of memory";
    case kLzmaMemlimitError: return "out of memory (the decoder's memory limit)";
    case kLzmaFormatError: return "not an xz stream";
    case kLzmaOptionsError: return "xz options this decoder does not read";
    case kLzmaDataError: return "corrupt or truncated data (a CRC32 mismatch, or a bad or cut LZMA2 stream)";
    case kLzmaBufError: return "a stream holding more bytes than expected, or cut short (truncated)";
    default: return "unexpected decoder state";
  }
}

// lzma_stream_buffer_decode from the system's liblzma, or null (then `why` says what was missing).
BufferDecode buffer_decode(std::string& why) {
  static std::once_flag once;
  static BufferDecode fn = nullptr;
  static std::string missing;
  std::call_once(once, [] {
    for (const char* name : {"liblzma.so.5", "liblzma.5.dylib", "liblzma.so"}) {
      if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {  // kept open for the process's life
        fn = reinterpret_cast<BufferDecode>(dlsym(lib, "lzma_stream_buffer_decode"));
        if (fn) return;
        missing = std::string(name) + " has no lzma_stream_buffer_decode";
        return;
      }
    }
    missing = "liblzma.so.5 (XZ Utils' library) is not installed";
  });
  why = missing;
  return fn;
}

}  // namespace

std::vector<unsigned char> unpack_xz(const unsigned char* data, size_t size, size_t unpacked_size,
                                     const std::string& what) {
  // One byte more than expected: a stream holding more than `unpacked_size` bytes then fills it
  // instead of stopping at the end of the buffer unnoticed.
  std::string why;
  const BufferDecode decode = buffer_decode(why);
  if (!decode) {
    throw ValueError(ErrorMessage("unpacking " + what + " needs liblzma, and " + why)
                         .fix("install it: apt-get install liblzma5 (Debian, Ubuntu), dnf install xz-libs (Fedora)")
                         .str());
  }
  std::vector<unsigned char> out(unpacked_size + 1);
  uint64_t memory_limit = UINT64_MAX;  // the dictionary the packer chose (at most the group's size)
  size_t in_pos = 0, out_pos = 0;
  const int r = decode(&memory_limit, 0, nullptr, data, &in_pos, size, out.data(), &out_pos, out.size());
  if (r == kLzmaMemError) throw OutOfMemoryError("unpacking " + what + ": no memory for the xz decoder");
  if (r != kLzmaOk || out_pos != unpacked_size) {
    const std::string got = r == kLzmaOk ? std::to_string(out_pos) + " bytes" : xz_words(r);
    throw ValueError(ErrorMessage("unpacking " + what + " failed: expected an xz stream of " +
                                  std::to_string(unpacked_size) + " bytes, got " + got)
                         .detail("packed: " + std::to_string(size) + " bytes; unpacked before it stopped: " +
                                 std::to_string(out_pos) + " bytes")
                         .cause("the embedded data is damaged (a broken download or file), or it was not packed by "
                                "core-runtime/cmake/pack_images.py")
                         .fix("reinstall glassgrad (pip install --force-reinstall glassgrad), or rebuild it: "
                              "bash tools/setup.sh")
                         .str());
  }
  out.resize(unpacked_size);
  return out;
}

namespace {

std::vector<unsigned char> unpack_group(const LegacyImage& img) {
  try {
    return unpack_xz(img.packed_begin, img.packed_size(), img.group_size, std::string("the CUDA 12 images ") + img.group);
  } catch (const ValueError& e) {
    throw CudaError(std::string("the CUDA 12 kernel image ") + img.name + " cannot be loaded: " + e.what());
  }
}

std::vector<unsigned char> image_of_group(const LegacyImage& img, const std::vector<unsigned char>& group) {
  if (img.offset + img.size > group.size())
    throw InternalError(std::string("the CUDA 12 image table places ") + img.name + " at bytes " +
                        std::to_string(img.offset) + "+" + std::to_string(img.size) + " of a group of " +
                        std::to_string(group.size()) + " bytes; please report this");
  std::vector<unsigned char> bytes(group.begin() + static_cast<std::ptrdiff_t>(img.offset),
                                   group.begin() + static_cast<std::ptrdiff_t>(img.offset + img.size));
  bytes.push_back(0);
  return bytes;
}

}  // namespace

std::vector<unsigned char> legacy_image_bytes(const LegacyImage& img) { return image_of_group(img, unpack_group(img)); }

std::vector<std::vector<unsigned char>> all_legacy_image_bytes() {
  std::vector<std::vector<unsigned char>> out;
  const LegacyImage* unpacked_of = nullptr;  // the table lists a group's images together
  std::vector<unsigned char> group;
  for (const LegacyImage& img : legacy_images()) {
    if (!unpacked_of || img.packed_begin != unpacked_of->packed_begin) {
      group = unpack_group(img);
      unpacked_of = &img;
    }
    out.push_back(image_of_group(img, group));
  }
  return out;
}

}  // namespace cuda
}  // namespace glassgrad
