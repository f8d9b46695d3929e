// The allow_mutation_on_saved_tensors context's state (lazy_saved_mutation.h): the open context's
// first op sequence number, and the sequence ranges of the contexts closed since, oldest first
// (contexts never nest, so the ranges are disjoint and ascending).
#include <algorithm>
#include <deque>
#include <utility>

#include "glassgrad/runtime/lazy.h"
#include "glassgrad/runtime/lazy_saved_mutation.h"

namespace glassgrad {
namespace lazy {

namespace {
uint64_t g_open_since = 0;
std::deque<std::pair<uint64_t, uint64_t>>& closed_ranges() {  // [first, last] sequence numbers
  static auto* ranges = new std::deque<std::pair<uint64_t, uint64_t>>();  // lives to exit
  return *ranges;
}
}  // namespace

void allow_mutation_on_saved_since(uint64_t since) {
  if (since == 0 && g_open_since != 0) {
    auto& ranges = closed_ranges();
    ranges.emplace_back(g_open_since, current_seq());
    if (ranges.size() > kClosedContextsKept) ranges.pop_front();
  }
  g_open_since = since;
}

uint64_t mutation_on_saved_allowed_since() { return g_open_since; }

bool recorded_in_closed_context(uint64_t seq) {
  const auto& ranges = closed_ranges();
  // the first range whose last sequence number is >= seq
  auto it = std::lower_bound(ranges.begin(), ranges.end(), seq,
                             [](const std::pair<uint64_t, uint64_t>& r, uint64_t s) { return r.second < s; });
  return it != ranges.end() && it->first <= seq;
}

}  // namespace lazy
}  // namespace glassgrad
