// The attributes of recorded ops, converted (attrs_from_dict) and shared (lazy::share_attrs) once
// per distinct contents of their Python dict. A loop's ops pass the same few attribute dicts step
// after step (a layer's stride and padding, a reduction's axes), and converting one made a string
// per key and a vector per list (about 1,600 instructions a recorded op) that recording then
// hashed and compared again. The table is keyed by a hash of the dict's contents and an entry is
// used only when the dict's items equal its snapshot in order, each value of the same exact type
// and equal (floats to the bit: -0.0 is not 0.0), so a hit is exactly what converting would give.
// Dicts holding other types (None, a NumPy integer, an object with __index__, nested lists) are
// converted every time, with attrs_from_dict's errors. Entries hold their own snapshot (lists as
// tuples of their ints and floats), never the caller's mutable objects. Touched only with the GIL
// held; bounded: a table that fills up starts again.
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bindings.h"

namespace glassgrad {

namespace {

// An element of a list or tuple attribute the table compares: an exact int or float, or a bool.
bool plain_number(PyObject* v) { return PyBool_Check(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v); }

bool plain_value(PyObject* v) {
  if (plain_number(v) || PyUnicode_CheckExact(v)) return true;
  if (!PyList_CheckExact(v) && !PyTuple_CheckExact(v)) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
  PyObject** items = PySequence_Fast_ITEMS(v);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!plain_number(items[i])) return false;
  }
  return true;
}

uint64_t hash_number(PyObject* v) {
  if (PyBool_Check(v)) return v == Py_True ? 0xB001 : 0xB000;
  if (PyFloat_CheckExact(v)) {
    const double d = PyFloat_AS_DOUBLE(v);
    uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    return lazy::fold(0xF10A7, bits);
  }
  const Py_hash_t h = PyObject_Hash(v);  // an exact int: its value, cannot fail
  return lazy::fold(0x1A7, static_cast<uint64_t>(h));
}

// A plain value's hash (plain_value(v) holds).
uint64_t hash_value(PyObject* v) {
  if (PyUnicode_CheckExact(v)) return lazy::fold(0x57, static_cast<uint64_t>(PyObject_Hash(v)));
  if (!PyList_CheckExact(v) && !PyTuple_CheckExact(v)) return hash_number(v);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
  PyObject** items = PySequence_Fast_ITEMS(v);
  uint64_t h = lazy::fold(0x5E0, static_cast<uint64_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) h = lazy::fold(h, hash_number(items[i]));
  return h;
}

bool same_number(PyObject* a, PyObject* b) {
  if (a == b) return true;
  if (Py_TYPE(a) != Py_TYPE(b)) return false;  // a bool, an int and a float convert apart
  if (PyFloat_CheckExact(a)) {
    const double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  return PyLong_CheckExact(a) && PyObject_RichCompareBool(a, b, Py_EQ) == 1;
}

// Whether plain value v (the caller's) equals `snap` (an entry's snapshot of a plain value).
bool same_value(PyObject* v, PyObject* snap) {
  if (PyUnicode_CheckExact(snap)) return v == snap || (PyUnicode_CheckExact(v) && PyUnicode_Compare(v, snap) == 0);
  if (!PyTuple_CheckExact(snap)) return same_number(v, snap);
  if (!PyList_CheckExact(v) && !PyTuple_CheckExact(v)) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
  if (n != PyTuple_GET_SIZE(snap)) return false;
  PyObject** items = PySequence_Fast_ITEMS(v);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!same_number(items[i], PyTuple_GET_ITEM(snap, i))) return false;
  }
  return true;
}

struct Entry {
  std::vector<std::pair<py::object, py::object>> items;  // (key, value snapshot), in the dict's order
  lazy::SharedAttrs attrs;
};

using AttrsTable = std::unordered_map<uint64_t, Entry>;
AttrsTable& attrs_table() {
  static auto* table = new AttrsTable();  // never freed: its references outlive interpreter exit
  return *table;
}

bool matches(const Entry& e, PyObject* d) {
  if (static_cast<size_t>(PyDict_GET_SIZE(d)) != e.items.size()) return false;
  PyObject* k = nullptr;
  PyObject* v = nullptr;
  Py_ssize_t pos = 0;
  for (const auto& item : e.items) {
    if (!PyDict_Next(d, &pos, &k, &v)) return false;
    const bool same_key = k == item.first.ptr() || (PyUnicode_CheckExact(k) && PyUnicode_Compare(k, item.first.ptr()) == 0);
    if (!same_key) return false;
    if (!same_value(v, item.second.ptr())) return false;
  }
  return true;
}

}  // namespace

lazy::SharedAttrs shared_attrs_from_dict(const py::dict& d) {
  constexpr size_t kCapacity = 4096;
  PyObject* k = nullptr;
  PyObject* v = nullptr;
  Py_ssize_t pos = 0;
  uint64_t h = 0xA77;
  bool plain = true;
  while (plain && PyDict_Next(d.ptr(), &pos, &k, &v)) {
    plain = PyUnicode_CheckExact(k) && plain_value(v);
    if (plain) h = lazy::fold(lazy::fold(h, static_cast<uint64_t>(PyObject_Hash(k))), hash_value(v));
  }
  if (!plain) return lazy::share_attrs(attrs_from_dict(d));
  AttrsTable& table = attrs_table();
  auto it = table.find(h);
  if (it != table.end() && matches(it->second, d.ptr())) return it->second.attrs;
  Entry e;
  e.attrs = lazy::share_attrs(attrs_from_dict(d));
  pos = 0;
  while (PyDict_Next(d.ptr(), &pos, &k, &v)) {
    py::object snap = PyList_CheckExact(v) ? py::reinterpret_steal<py::object>(PyList_AsTuple(v))
                                           : py::reinterpret_borrow<py::object>(v);
    if (!snap) throw py::error_already_set();
    e.items.emplace_back(py::reinterpret_borrow<py::object>(k), std::move(snap));
  }
  if (table.size() >= kCapacity && it == table.end()) table.clear();
  lazy::SharedAttrs shared = e.attrs;
  table[h] = std::move(e);
  return shared;
}

}  // namespace glassgrad
