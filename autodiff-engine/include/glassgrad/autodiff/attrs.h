// Op attributes: the static, hashable parameters of a node (stride, padding, axis, ...).
// Values that change from step to step (learning rate, data) are tensors, never attributes,
// so that changing them does not change a plan's signature.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace glassgrad {

using AttrValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                               std::vector<double>>;

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items);

  Attrs& set(const std::string& key, AttrValue value);
  bool has(const std::string& key) const;
  const AttrValue* find(const std::string& key) const;

  // Typed getters; a missing key or a wrong type throws ValueError naming the key.
  int64_t i(const std::string& key) const;
  double f(const std::string& key) const;  // accepts an int64 too
  bool b(const std::string& key) const;
  const std::string& s(const std::string& key) const;
  const std::vector<int64_t>& ints(const std::string& key) const;
  const std::vector<double>& floats(const std::string& key) const;
  // With a default when the key is absent.
  int64_t i(const std::string& key, int64_t dflt) const;
  double f(const std::string& key, double dflt) const;
  bool b(const std::string& key, bool dflt) const;

  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }
  uint64_t hash() const;
  std::string str() const;  // "stride=[1, 1], padding=[0, 0, 0, 0]"
  bool operator==(const Attrs& o) const { return items_ == o.items_; }

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;  // sorted by key
};

std::string attr_value_str(const AttrValue& v);
uint64_t hash_combine(uint64_t seed, uint64_t v);
uint64_t hash_string(const std::string& s);

}  // namespace glassgrad
