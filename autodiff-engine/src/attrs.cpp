#include "glassgrad/autodiff/attrs.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

Attrs::Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  for (const auto& kv : items) set(kv.first, kv.second);
}

Attrs& Attrs::set(const std::string& key, AttrValue value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const auto& kv, const std::string& k) { return kv.first < k; });
  if (it != items_.end() && it->first == key) {
    it->second = std::move(value);
  } else {
    items_.insert(it, {key, std::move(value)});
  }
  return *this;
}

const AttrValue* Attrs::find(const std::string& key) const {
  // A scan: an op has a handful of attributes, and a string's == compares lengths before any
  // character, where lower_bound compared keys character by character at each halving and then
  // once more for equality. Kernels and shape rules look attributes up every call.
  for (const auto& kv : items_) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

bool Attrs::has(const std::string& key) const { return find(key) != nullptr; }

namespace {
[[noreturn]] void missing(const std::string& key, const char* want) {
  throw ValueError("attribute '" + key + "' is missing or is not " + want);
}
template <typename T>
const T& get(const Attrs& a, const std::string& key, const char* want) {
  const AttrValue* v = a.find(key);
  if (!v) missing(key, want);
  const T* p = std::get_if<T>(v);
  if (!p) missing(key, want);
  return *p;
}
}  // namespace

int64_t Attrs::i(const std::string& key) const {
  const AttrValue* v = find(key);
  if (v) {
    if (auto p = std::get_if<int64_t>(v)) return *p;
    if (auto p = std::get_if<bool>(v)) return *p ? 1 : 0;
  }
  missing(key, "an integer");
}
double Attrs::f(const std::string& key) const {
  const AttrValue* v = find(key);
  if (v) {
    if (auto p = std::get_if<double>(v)) return *p;
    if (auto p = std::get_if<int64_t>(v)) return static_cast<double>(*p);
  }
  missing(key, "a number");
}
bool Attrs::b(const std::string& key) const {
  const AttrValue* v = find(key);
  if (v) {
    if (auto p = std::get_if<bool>(v)) return *p;
    if (auto p = std::get_if<int64_t>(v)) return *p != 0;
  }
  missing(key, "a bool");
}
const std::string& Attrs::s(const std::string& key) const { return get<std::string>(*this, key, "a string"); }
const std::vector<int64_t>& Attrs::ints(const std::string& key) const {
  return get<std::vector<int64_t>>(*this, key, "a list of integers");
}
const std::vector<double>& Attrs::floats(const std::string& key) const {
  return get<std::vector<double>>(*this, key, "a list of numbers");
}
int64_t Attrs::i(const std::string& key, int64_t dflt) const { return has(key) ? i(key) : dflt; }
double Attrs::f(const std::string& key, double dflt) const { return has(key) ? f(key) : dflt; }
bool Attrs::b(const std::string& key, bool dflt) const { return has(key) ? b(key) : dflt; }

uint64_t hash_combine(uint64_t seed, uint64_t v) {
  // 64-bit variant of boost::hash_combine with a splitmix finalizer on the value.
  v += 0x9e3779b97f4a7c15ULL;
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
  v ^= v >> 31;
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

uint64_t hash_string(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

namespace {
uint64_t hash_double(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}
}  // namespace

uint64_t Attrs::hash() const {
  uint64_t h = 0x12345;
  for (const auto& kv : items_) {
    h = hash_combine(h, hash_string(kv.first));
    h = hash_combine(h, kv.second.index());
    std::visit(
        [&h](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, int64_t>) h = hash_combine(h, static_cast<uint64_t>(x));
          else if constexpr (std::is_same_v<T, double>) h = hash_combine(h, hash_double(x));
          else if constexpr (std::is_same_v<T, bool>) h = hash_combine(h, x ? 1 : 0);
          else if constexpr (std::is_same_v<T, std::string>) h = hash_combine(h, hash_string(x));
          else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            for (auto e : x) h = hash_combine(h, static_cast<uint64_t>(e));
          } else {
            for (auto e : x) h = hash_combine(h, hash_double(e));
          }
        },
        kv.second);
  }
  return h;
}

std::string attr_value_str(const AttrValue& v) {
  std::ostringstream os;
  std::visit(
      [&os](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) os << (x ? "true" : "false");
        else if constexpr (std::is_same_v<T, std::string>) os << "'" << x << "'";
        else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) os << x;
        else {
          os << "[";
          for (size_t i = 0; i < x.size(); ++i) os << (i ? ", " : "") << x[i];
          os << "]";
        }
      },
      v);
  return os.str();
}

std::string Attrs::str() const {
  std::string s;
  for (const auto& kv : items_) {
    if (!s.empty()) s += ", ";
    s += kv.first + "=" + attr_value_str(kv.second);
  }
  return s;
}

}  // namespace glassgrad
