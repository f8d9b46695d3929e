// Allocator accounting (current, peak), the allocation log (names, bytes, order), the log
// callback, the memory limit and its error message, and parse_bytes.
#include <gtest/gtest.h>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/plan.h"
#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/tensor.h"

using namespace glassgrad;

namespace {

Allocator& cpu() { return allocator_for(Device::cpu()); }

// Turns logging on for one test and restores the allocator afterwards.
class LoggedAllocator : public ::testing::Test {
 protected:
  void SetUp() override {
    cpu().take_log();
    cpu().set_logging(true);
  }
  void TearDown() override {
    cpu().set_logging(false);
    cpu().set_log_callback(nullptr);
    cpu().take_log();
    cpu().set_limit(0);
  }
};

}  // namespace

TEST(AllocatorStats, CurrentFollowsLiveBuffersAndPeakTheMaximum) {
  Allocator& a = cpu();
  const MemoryStats s0 = a.stats();
  a.reset_peak();
  EXPECT_EQ(a.stats().peak, s0.current);
  {
    Tensor x = Tensor::empty({1000}, DType::Float32);  // 4000 B
    {
      Tensor y = Tensor::empty({500}, DType::Float64);  // 4000 B
      EXPECT_EQ(a.stats().current, s0.current + 8000);
    }
    Tensor z = Tensor::empty({100}, DType::UInt8);
    EXPECT_EQ(a.stats().current, s0.current + 4100);
  }
  const MemoryStats s1 = a.stats();
  EXPECT_EQ(s1.current, s0.current);
  EXPECT_EQ(s1.peak, s0.current + 8000);
  EXPECT_EQ(s1.num_allocs, s0.num_allocs + 3);
  EXPECT_EQ(s1.num_frees, s0.num_frees + 3);
  a.reset_peak();
  EXPECT_EQ(a.stats().peak, s1.current);
}

TEST_F(LoggedAllocator, LogRecordsNamesBytesAndOrderOfEveryEvent) {
  const size_t base = cpu().stats().current;
  {
    Tensor w = Tensor::empty({10, 10}, DType::Float32, Device::cpu(), "conv1.weight");
    Tensor b = Tensor::empty({10}, DType::Float64, Device::cpu(), "conv1.bias");
    w = Tensor();  // free the weight first
  }
  const std::vector<AllocationRecord> log = cpu().take_log();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_TRUE(log[0].is_alloc);
  EXPECT_EQ(log[0].name, "conv1.weight");
  EXPECT_EQ(log[0].bytes, 400u);
  EXPECT_EQ(log[0].current_after, base + 400);
  EXPECT_TRUE(log[1].is_alloc);
  EXPECT_EQ(log[1].name, "conv1.bias");
  EXPECT_EQ(log[1].bytes, 80u);
  EXPECT_EQ(log[1].current_after, base + 480);
  EXPECT_FALSE(log[2].is_alloc);
  EXPECT_EQ(log[2].name, "conv1.weight");
  EXPECT_EQ(log[2].current_after, base + 80);
  EXPECT_FALSE(log[3].is_alloc);
  EXPECT_EQ(log[3].name, "conv1.bias");
  EXPECT_EQ(log[3].current_after, base);
  for (size_t i = 1; i < log.size(); ++i) EXPECT_GT(log[i].seq, log[i - 1].seq);
  for (const auto& r : log) EXPECT_EQ(r.device, Device::cpu());
  EXPECT_TRUE(cpu().take_log().empty()) << "take_log clears the log";
}

TEST_F(LoggedAllocator, NothingIsLoggedWhileLoggingIsOff) {
  cpu().set_logging(false);
  { Tensor x = Tensor::empty({4}, DType::Float32, Device::cpu(), "quiet"); }
  EXPECT_TRUE(cpu().take_log().empty());
  EXPECT_FALSE(cpu().logging());
}

TEST_F(LoggedAllocator, CallbackSeesEveryEventAndCannotBreakAFree) {
  std::vector<std::string> seen;
  cpu().set_log_callback([&](const AllocationRecord& r) {
    seen.push_back((r.is_alloc ? "+" : "-") + r.name);
    if (!r.is_alloc) throw std::runtime_error("a broken callback");
  });
  const size_t base = cpu().stats().current;
  { Tensor x = Tensor::empty({4}, DType::Float32, Device::cpu(), "act"); }
  EXPECT_EQ(seen, (std::vector<std::string>{"+act", "-act"}));
  EXPECT_EQ(cpu().stats().current, base);
}

TEST_F(LoggedAllocator, LimitErrorNamesTheRequestTheLimitAndAFix) {
  const size_t base = cpu().stats().current;
  cpu().set_limit(base + 4096);
  EXPECT_EQ(cpu().limit(), base + 4096);
  Tensor fits = Tensor::empty({1024}, DType::Float32, Device::cpu(), "fits");  // exactly at the limit
  try {
    Tensor::empty({16}, DType::Float32, Device::cpu(), "layer3.activations");
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("memory limit exceeded on cpu: allocating 64 B for 'layer3.activations'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("limit:   " + format_bytes(base + 4096)), std::string::npos) << msg;
    EXPECT_NE(msg.find("in use:  " + format_bytes(base + 4096)), std::string::npos) << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("set_memory_limit"), std::string::npos) << msg;
  }
  EXPECT_EQ(cpu().stats().current, base + 4096) << "a refused request must not be counted";
  // The refused request is not in the log; the successful one is.
  const auto log = cpu().take_log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].name, "fits");
  cpu().set_limit(0);
  EXPECT_NO_THROW(Tensor::empty({16}, DType::Float32));
}

TEST(AllocatorRegistry, UnknownDeviceExplainsHowToCheckCuda) {
  try {
    allocator_for(Device::cuda(7));
    FAIL();
  } catch (const DeviceError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cuda:7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("why_unavailable"), std::string::npos) << msg;
  }
}

TEST(ParseBytes, ReadsDecimalAndBinaryUnits) {
  EXPECT_EQ(parse_bytes("1000000"), 1000000u);
  EXPECT_EQ(parse_bytes("2GB"), 2000000000u);
  EXPECT_EQ(parse_bytes("2 gb"), 2000000000u);
  EXPECT_EQ(parse_bytes("512MiB"), 512u * 1024 * 1024);
  EXPECT_EQ(parse_bytes("1.5 GiB"), 1610612736u);
  EXPECT_EQ(parse_bytes("10kb"), 10000u);
  EXPECT_EQ(parse_bytes("64 B"), 64u);
}

TEST(ParseBytes, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "abc", "-5MB", "2 XB", "1.2.3GB", "GB"}) {
    try {
      parse_bytes(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("fix: write it like"), std::string::npos) << e.what();
    }
  }
}

TEST(FormatBytes, PicksAReadableUnit) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(3u << 20), "3.00 MiB");
  EXPECT_EQ(format_bytes(size_t{5} << 30), "5.00 GiB");
}

// The CPU allocator keeps freed blocks by size class and serves requests of the same class from
// them; the kept bytes are stats().cached (not current), empty_cache() gives them back, and
// under a memory limit in use plus cached never exceeds it.
TEST(CpuBlockCache, AFreedBlockIsKeptReportedAndReused) {
  Allocator& a = cpu();
  a.empty_cache();
  ASSERT_EQ(a.stats().cached, 0u);
  void* first = nullptr;
  {
    Tensor x = Tensor::empty({1250}, DType::Float32);  // 5000 B: the 5120 B class
    first = x.data_ptr();
  }
  EXPECT_EQ(a.stats().cached, 5120u);
  {
    Tensor y = Tensor::empty({1260}, DType::Float32);  // 5040 B: the same class
    EXPECT_EQ(y.data_ptr(), first);
    EXPECT_EQ(a.stats().cached, 0u);
  }
  a.empty_cache();
  EXPECT_EQ(a.stats().cached, 0u);
}

TEST(CpuBlockCache, InUsePlusKeptStaysUnderTheMemoryLimit) {
  Allocator& a = cpu();
  a.empty_cache();
  const size_t base = a.stats().current;
  a.set_limit(base + 10000);
  { Tensor x = Tensor::empty({2048}, DType::Float32); }  // 8192 B, kept
  EXPECT_EQ(a.stats().cached, 8192u);
  {
    Tensor y = Tensor::empty({1024}, DType::Float32);  // 4096 B: another class, and 12288 B held would pass the limit
    EXPECT_EQ(a.stats().cached, 0u);
    EXPECT_LE(a.stats().current + a.stats().cached, base + 10000);
  }
  EXPECT_EQ(a.stats().cached, 4096u);  // y's block fits beside nothing in use
  {
    Tensor z = Tensor::empty({2000}, DType::Float32);  // 8000 B: in use 8000 + kept 4096 would pass it
    EXPECT_LE(a.stats().current + a.stats().cached, base + 10000);
  }
  EXPECT_LE(a.stats().current + a.stats().cached, base + 10000);
  a.set_limit(0);
  a.empty_cache();
}
