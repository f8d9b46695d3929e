// Attribute reads of nn.Module objects (glassgrad/nn/module.py). A module keeps its layers,
// parameters and buffers in its _modules, _parameters and _buffers dicts, not in __dict__ (as
// PyTorch's), so every `self.conv1` and `self.weight` of a forward misses the normal lookup and
// reaches Module.__getattr__. On CPython before 3.12 that miss first builds an AttributeError
// (message and context) that the interpreter then drops: most of the cost of each read
// (docs/performance.md, "The plain loop's host work (issue 34)").
//
// Glue only: this is the interpreter's attribute protocol, which is this layer's business. For
// each Module class the slot CPython gives a class with __getattr__ is replaced by
// module_getattro, which does what that slot does (same lookups, same order, same exceptions)
// except that the normal lookup's miss builds no exception, and, when the class's __getattr__
// is Module.__getattr__ itself, its three table lookups are done here. Classes that override
// __getattr__ or __getattribute__ get exactly their own methods called, as before. Assigning
// __getattr__ or __getattribute__ on a class later makes CPython put its own slot back.
#include <Python.h>

#include "bindings.h"

namespace glassgrad {

namespace {

// Set once by the first install (Module itself), read with the GIL held.
struct ModuleReads {
  PyObject* module_getattr = nullptr;  // Module.__getattr__, the function (a reference)
  PyObject* tables[3] = {};            // "_parameters", "_buffers", "_modules": __getattr__'s order
  PyObject* getattr_name = nullptr;
  PyObject* getattribute_name = nullptr;
  PyTypeObject* ordered_dict = nullptr;
  getattrofunc cpython_slot = nullptr;  // what CPython gave Module (its __getattr__ dispatcher)
};
ModuleReads& reads() {
  static ModuleReads r;
  return r;
}

// CPython's call_attribute: `attr` bound to self (a function: called with self first), called
// with name.
PyObject* call_attribute(PyObject* self, PyObject* attr, PyObject* name) {
  if (PyFunction_Check(attr)) {
    PyObject* args[2] = {self, name};
    return PyObject_Vectorcall(attr, args, 2, nullptr);
  }
  PyObject* bound = nullptr;
  if (descrgetfunc get = Py_TYPE(attr)->tp_descr_get) {
    bound = get(attr, self, reinterpret_cast<PyObject*>(Py_TYPE(self)));
    if (bound == nullptr) return nullptr;
    attr = bound;
  }
  PyObject* res = PyObject_CallOneArg(attr, name);
  Py_XDECREF(bound);
  return res;
}

// Reads found again (docs/performance.md, "The plain loop's host work (issue 34)", fourteenth
// round): a forward reads the same attributes of the same modules every step, each one through
// the lookups above (two type lookups, the instance dict, up to three tables: about 550
// instructions a read, 400 reads a ResNet-18 forward). A read resolved from the instance dict
// or a table, with no attribute of that name on the type, is remembered with what decided it:
// the type's version tag (any change to the type or a base gives it a new one), the instance
// dict's version tag and, for a table hit, the version tag of each table consulted (CPython
// gives a dict a new tag, unique in the process, whenever an entry is added, replaced or
// removed, and a new dict a tag no other dict had). While all of them are unchanged the same
// lookups would find the same object, which the unchanged dict or table still holds, so the
// entry answers. Entries hold a reference to the name only (compared by identity); `self`,
// the type and the dicts are compared, never followed. Touched only with the GIL held.
struct RememberedRead {
  PyObject* self = nullptr;  // compared only
  PyObject* name = nullptr;  // a reference
  PyTypeObject* type = nullptr;
  unsigned int type_version = 0;
  uint64_t dict_version = 0;
  int tables = 0;                       // tables consulted (0: found in the instance dict)
  PyObject* table[3] = {};              // borrowed: held by the unchanged instance dict
  uint64_t table_version[3] = {};
  PyObject* value = nullptr;            // borrowed: held by the unchanged dict or table
};
constexpr size_t kRemembered = 4096;  // a power of two
RememberedRead* remembered() {
  static auto* entries = new RememberedRead[kRemembered];  // never freed: holds references
  return entries;
}
// The two entries where self.name may be remembered (two, so that a third key is needed to
// evict: a forward's few hundred reads would otherwise collide in about a tenth of them).
std::pair<RememberedRead*, RememberedRead*> slots_for(PyObject* self, PyObject* name) {
  const uint64_t a = reinterpret_cast<uintptr_t>(self), b = reinterpret_cast<uintptr_t>(name);
  const uint64_t mixed = (a ^ (b * 0x9E3779B97F4A7C15ull)) * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing
  RememberedRead* entries = remembered();
  return {&entries[mixed >> 52], &entries[(mixed >> 40) & (kRemembered - 1)]};  // 12 bits each
}
uint64_t version_of(PyObject* dict) {
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // 3.12 deprecates the field it still keeps
#endif
  return reinterpret_cast<PyDictObject*>(dict)->ma_version_tag;
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
}
bool versioned(PyTypeObject* type) { return (type->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) != 0; }

// The remembered value of self.name (a new reference), or nullptr when no entry answers.
PyObject* remembered_read(PyObject* self, PyObject* name) {
  PyTypeObject* type = Py_TYPE(self);
  const auto slots = slots_for(self, name);
  const RememberedRead& e = slots.first->self == self && slots.first->name == name ? *slots.first : *slots.second;
  if (e.self != self || e.name != name || e.type != type || !versioned(type) || e.type_version != type->tp_version_tag) {
    return nullptr;
  }
  PyObject* dict = PyObject_GenericGetDict(self, nullptr);
  if (dict == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  bool same = PyDict_Check(dict) && version_of(dict) == e.dict_version;
  Py_DECREF(dict);  // the object holds it: it stays as alive as self
  for (int i = 0; same && i < e.tables; ++i) same = version_of(e.table[i]) == e.table_version[i];
  if (!same) return nullptr;
  Py_INCREF(e.value);
  return e.value;
}

void remember_read(PyObject* self, PyObject* name, PyObject* dict, int tables, PyObject* const* table,
                   PyObject* value) {
  PyTypeObject* type = Py_TYPE(self);
  if (!PyUnicode_CheckExact(name) || !versioned(type) || !PyDict_Check(dict)) return;
  const auto slots = slots_for(self, name);
  const auto mine_or_free = [&](const RememberedRead* x) {
    return x->self == nullptr || (x->self == self && x->name == name);
  };
  RememberedRead& e = mine_or_free(slots.first) || !mine_or_free(slots.second) ? *slots.first : *slots.second;
  Py_INCREF(name);
  Py_XDECREF(e.name);
  e.self = self;
  e.name = name;
  e.type = type;
  e.type_version = type->tp_version_tag;
  e.dict_version = version_of(dict);
  e.tables = tables;
  for (int i = 0; i < tables; ++i) {
    e.table[i] = table[i];
    e.table_version[i] = version_of(table[i]);
  }
  e.value = value;
}

bool plain_table(PyObject* table) {
  return Py_IS_TYPE(table, &PyDict_Type) || Py_IS_TYPE(table, reads().ordered_dict);
}

// Module.__getattr__'s lookup: the first of _parameters, _buffers, _modules (each when present
// in __dict__) that holds `name`. 1: found (*out: a new reference); 0: in none of them;
// 2: a table is not a plain dict (or the name not a plain str), so Module.__getattr__ decides;
// -1: an error is set.
// With `remember`, a value found is remembered (remember_read: the instance dict and the tables
// consulted decide it).
int table_lookup(PyObject* self, PyObject* name, PyObject** out, bool remember = false) {
  if (!PyUnicode_CheckExact(name)) return 2;
  PyObject* dict = PyObject_GenericGetDict(self, nullptr);
  if (dict == nullptr) {
    PyErr_Clear();
    return 2;
  }
  int result = 0;
  PyObject* consulted[3] = {};
  int tables = 0;
  for (PyObject* table_name : reads().tables) {
    PyObject* table = PyDict_GetItemWithError(dict, table_name);  // borrowed
    if (table == nullptr) {
      if (PyErr_Occurred()) {
        result = -1;
        break;
      }
      continue;
    }
    if (!plain_table(table)) {
      result = 2;
      break;
    }
    consulted[tables++] = table;
    PyObject* value = PyDict_GetItemWithError(table, name);
    if (value != nullptr) {
      Py_INCREF(value);
      *out = value;
      result = 1;
      if (remember) remember_read(self, name, dict, tables, consulted, value);
      break;
    }
    if (PyErr_Occurred()) {
      result = -1;
      break;
    }
  }
  Py_DECREF(dict);
  return result;
}

bool generic_getattribute(PyObject* getattribute) {
  return getattribute == nullptr ||
         (Py_IS_TYPE(getattribute, &PyWrapperDescr_Type) &&
          reinterpret_cast<PyWrapperDescrObject*>(getattribute)->d_wrapped ==
              reinterpret_cast<void*>(PyObject_GenericGetAttr));
}

// Object's own lookup of self.name where the type has no attribute of that name: the instance
// dict's entry (a new reference, remembered), or nullptr with no error when it has none.
PyObject* instance_dict_read(PyObject* self, PyObject* name) {
  PyObject* dict = PyObject_GenericGetDict(self, nullptr);
  if (dict == nullptr || !PyDict_Check(dict)) {
    if (dict == nullptr) PyErr_Clear();
    Py_XDECREF(dict);
    return _PyObject_GenericGetAttrWithDict(self, name, nullptr, /*suppress=*/1);
  }
  PyObject* value = PyDict_GetItemWithError(dict, name);  // borrowed; as object's lookup reads it
  if (value != nullptr) {
    Py_INCREF(value);
    remember_read(self, name, dict, 0, nullptr, value);
  }
  Py_DECREF(dict);
  return value;
}

PyObject* module_getattro(PyObject* self, PyObject* name) {
  if (PyObject* known = remembered_read(self, name)) return known;
  const ModuleReads& r = reads();
  PyTypeObject* type = Py_TYPE(self);
  PyObject* getattr = _PyType_Lookup(type, r.getattr_name);  // borrowed
  if (getattr == nullptr) return PyObject_GenericGetAttr(self, name);
  Py_INCREF(getattr);
  PyObject* getattribute = _PyType_Lookup(type, r.getattribute_name);
  PyObject* res = nullptr;
  // Remembered reads: Module.__getattr__ and object's __getattribute__, a str name that is no
  // attribute of the type (so object's lookup reads the instance dict alone).
  const bool rememberable = getattr == r.module_getattr && generic_getattribute(getattribute) &&
                            PyUnicode_CheckExact(name) && _PyType_Lookup(type, name) == nullptr && !PyErr_Occurred();
  if (rememberable) {
    res = instance_dict_read(self, name);
  } else if (generic_getattribute(getattribute)) {
    res = _PyObject_GenericGetAttrWithDict(self, name, nullptr, /*suppress=*/1);
  } else {
    Py_INCREF(getattribute);
    res = call_attribute(self, getattribute, name);
    Py_DECREF(getattribute);
    if (res == nullptr && PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
  }
  if (res == nullptr && !PyErr_Occurred()) {
    const int found = getattr == r.module_getattr ? table_lookup(self, name, &res, rememberable) : 2;
    if (found == 0 || found == 2) res = call_attribute(self, getattr, name);
  }
  Py_DECREF(getattr);
  return res;
}

#if PY_VERSION_HEX >= 0x030D0000
constexpr bool kSupported = false;  // the private lookups used above are CPython 3.9 - 3.12's
#else
constexpr bool kSupported = true;
#endif

bool install(py::handle cls, py::handle module_getattr) {
  if (!kSupported || !PyType_Check(cls.ptr())) return false;
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  ModuleReads& r = reads();
  if (r.module_getattr == nullptr) {
    r.module_getattr = module_getattr.inc_ref().ptr();
    const char* names[3] = {"_parameters", "_buffers", "_modules"};
    for (int i = 0; i < 3; ++i) r.tables[i] = PyUnicode_InternFromString(names[i]);
    r.getattr_name = PyUnicode_InternFromString("__getattr__");
    r.getattribute_name = PyUnicode_InternFromString("__getattribute__");
    py::object ordered_dict = py::module_::import("collections").attr("OrderedDict");
    r.ordered_dict = reinterpret_cast<PyTypeObject*>(ordered_dict.release().ptr());
    r.cpython_slot = type->tp_getattro;
  }
  if (type->tp_getattro == module_getattro) return true;
  if (type->tp_getattro != r.cpython_slot) return false;  // reads of its own (a C base's slot): left alone
  type->tp_getattro = module_getattro;
  PyType_Modified(type);
  return true;
}

}  // namespace

void bind_attributes(py::module_& m) {
  m.def("module_attribute_reads", &install, py::arg("cls"), py::arg("module_getattr"),
        "Gives the Module class `cls` attribute reads that find layers, parameters and buffers "
        "without building and dropping an AttributeError; False when left as it was.");
}

}  // namespace glassgrad
