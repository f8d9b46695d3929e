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

bool plain_table(PyObject* table) {
  return Py_IS_TYPE(table, &PyDict_Type) || Py_IS_TYPE(table, reads().ordered_dict);
}

// Module.__getattr__'s lookup: the first of _parameters, _buffers, _modules (each when present
// in __dict__) that holds `name`. 1: found (*out: a new reference); 0: in none of them;
// 2: a table is not a plain dict (or the name not a plain str), so Module.__getattr__ decides;
// -1: an error is set.
int table_lookup(PyObject* self, PyObject* name, PyObject** out) {
  if (!PyUnicode_CheckExact(name)) return 2;
  PyObject* dict = PyObject_GenericGetDict(self, nullptr);
  if (dict == nullptr) {
    PyErr_Clear();
    return 2;
  }
  int result = 0;
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
    PyObject* value = PyDict_GetItemWithError(table, name);
    if (value != nullptr) {
      Py_INCREF(value);
      *out = value;
      result = 1;
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

PyObject* module_getattro(PyObject* self, PyObject* name) {
  const ModuleReads& r = reads();
  PyTypeObject* type = Py_TYPE(self);
  PyObject* getattr = _PyType_Lookup(type, r.getattr_name);  // borrowed
  if (getattr == nullptr) return PyObject_GenericGetAttr(self, name);
  Py_INCREF(getattr);
  PyObject* getattribute = _PyType_Lookup(type, r.getattribute_name);
  PyObject* res = nullptr;
  if (generic_getattribute(getattribute)) {
    res = _PyObject_GenericGetAttrWithDict(self, name, nullptr, /*suppress=*/1);
  } else {
    Py_INCREF(getattribute);
    res = call_attribute(self, getattribute, name);
    Py_DECREF(getattribute);
    if (res == nullptr && PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
  }
  if (res == nullptr && !PyErr_Occurred()) {
    const int found = getattr == r.module_getattr ? table_lookup(self, name, &res) : 2;
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
