// The CUDA 12 kernel images are embedded packed (cmake/pack_images.py: one xz stream per
// architecture major, docs/cuda.md "Image sizes"); the loader unpacks the one a GPU runs. The
// decoder is the system's liblzma (XZ Utils), in its single-call form: the stream's CRC32 of
// every block is checked, and the image's bytes must then equal what the build recorded (size,
// and the SHA-256 that tests compare).
#include <lzma.h>

#include <cstdint>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"

namespace glassgrad {
namespace cuda {

namespace {

const char* xz_words(lzma_ret r) {
  switch (r) {
    case LZMA_MEM_ERROR: return "out of memory";
    case LZMA_MEMLIMIT_ERROR: return "out of memory (the decoder's memory limit)";
    case LZMA_FORMAT_ERROR: return "not an xz stream";
    case LZMA_OPTIONS_ERROR: return "xz options this decoder does not read";
    case LZMA_DATA_ERROR: return "corrupt or truncated data (a CRC32 mismatch, or a bad or cut LZMA2 stream)";
    case LZMA_BUF_ERROR: return "a stream holding more bytes than expected, or cut short (truncated)";
    default: return "unexpected decoder state";
  }
}

}  // namespace

std::vector<unsigned char> unpack_xz(const unsigned char* data, size_t size, size_t unpacked_size,
                                     const std::string& what) {
  // One byte more than expected: a stream holding more than `unpacked_size` bytes then fills it
  // instead of stopping at the end of the buffer unnoticed.
  std::vector<unsigned char> out(unpacked_size + 1);
  uint64_t memory_limit = UINT64_MAX;  // the dictionary the packer chose (at most the group's size)
  size_t in_pos = 0, out_pos = 0;
  const lzma_ret r = lzma_stream_buffer_decode(&memory_limit, 0, nullptr, data, &in_pos, size, out.data(), &out_pos,
                                               out.size());
  if (r == LZMA_MEM_ERROR) throw OutOfMemoryError("unpacking " + what + ": no memory for the xz decoder");
  if (r != LZMA_OK || out_pos != unpacked_size) {
    const std::string got = r == LZMA_OK ? std::to_string(out_pos) + " bytes" : xz_words(r);
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
