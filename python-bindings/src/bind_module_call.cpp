// Calls of nn.Module objects (glassgrad/nn/module.py, Module.__call__). Every layer call of every
// step goes through Module.__call__; as a Python method it costs the slot's method lookup, a
// frame, its bytecode and the re-packing of *args, about 6k instructions a call over calling
// forward (docs/performance.md, "eleventh round").
//
// Glue only: this is the interpreter's call protocol, which is this layer's business. For each
// Module class whose __call__ is Module.__call__ itself, the tp_call slot CPython gives the class
// (which looks __call__ up and runs it) is replaced by module_call_slot, which does what
// Module.__call__ does when nothing but forward is to run: no glassgrad.compile recording, the
// module's remembered call names current, no hook table of its own and no global one. Then it
// pushes the module's scope and layer names on the thread's stacks, calls self.forward(*args,
// **kwargs) and pops them, as Module.__call__'s plain path (a change there is a change here).
// Every other call runs Module.__call__ itself, which decides everything as before. A class that
// defines or inherits another __call__ keeps CPython's slot; assigning __call__ on a class later
// makes CPython put its own slot back.
#include <Python.h>

#include <array>
#include <vector>

#include "bindings.h"

namespace glassgrad {

namespace {

// Set once by the first install (Module itself), read with the GIL held.
struct ModuleCallState {
  PyObject* python_call = nullptr;    // Module.__call__, the function (a reference)
  PyObject* recordings = nullptr;     // glassgrad._trace.RECORDINGS, [open recording blocks]
  PyObject* global_tables = nullptr;  // nn.forward_hooks.GLOBAL_TABLES (a dict; empty: no global hook)
  PyObject* stacks = nullptr;         // glassgrad._trace._local
  std::array<PyObject*, 4> hook_tables{};  // the instance dict's hook table names
  PyObject* zero = nullptr;                // the int 0
  PyObject* call_names_key = nullptr;      // "_call_names"
  PyObject* scope_key = nullptr;           // "_scope"
  PyObject* forward_name = nullptr;        // "forward"
  PyObject* call_name = nullptr;           // "__call__"
  PyObject* getattribute_name = nullptr;   // "__getattribute__"
  ternaryfunc cpython_slot = nullptr;      // what CPython gave Module (its __call__ dispatcher)
};
ModuleCallState& module_call_state() {
  static ModuleCallState s;
  return s;
}

// Module.__call__(self, *args, **kwargs), the Python method.
PyObject* call_python_method(PyObject* self, PyObject* args, PyObject* kwargs) {
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  std::vector<PyObject*> stack(static_cast<size_t>(n) + 1);
  stack[0] = self;
  for (Py_ssize_t i = 0; i < n; ++i) stack[static_cast<size_t>(i) + 1] = PyTuple_GET_ITEM(args, i);
  return PyObject_VectorcallDict(module_call_state().python_call, stack.data(), static_cast<size_t>(n) + 1, kwargs);
}

// Whether Module.__call__ would take its plain path for self (instance dict d): then *names is
// its remembered (class, path, scope, layer name) tuple, borrowed. -1: an error is set.
int plain_call(PyObject* self, PyObject* d, PyObject** names) {
  const ModuleCallState& s = module_call_state();
  PyObject* open = PyList_GET_SIZE(s.recordings) > 0 ? PyList_GET_ITEM(s.recordings, 0) : nullptr;
  if (open != s.zero) return 0;  // a recording may be open (Module.__call__ reads it)
  PyObject* n = PyDict_GetItemWithError(d, s.call_names_key);
  if (n == nullptr) return PyErr_Occurred() ? -1 : 0;
  if (!PyTuple_CheckExact(n) || PyTuple_GET_SIZE(n) != 4) return 0;
  PyObject* scope = PyDict_GetItemWithError(d, s.scope_key);
  if (scope == nullptr) return PyErr_Occurred() ? -1 : 0;
  if (PyTuple_GET_ITEM(n, 0) != reinterpret_cast<PyObject*>(Py_TYPE(self)) || PyTuple_GET_ITEM(n, 1) != scope) return 0;
  if (PyDict_GET_SIZE(s.global_tables) != 0) {
    // Global tables stay once made (forward_hooks._table); removing their hooks empties them.
    // Empty tables run no hook, so the plain path stays due (forward_hooks.has_hooks reads them
    // alike); a table that is not an exact dict, or holds a hook, leaves the call to Module.__call__.
    Py_ssize_t pos = 0;
    PyObject* key = nullptr;
    PyObject* table = nullptr;
    while (PyDict_Next(s.global_tables, &pos, &key, &table))
      if (!PyDict_Check(table) || PyDict_GET_SIZE(table) != 0) return 0;
  }
  for (PyObject* table : s.hook_tables) {
    const int has = PyDict_Contains(d, table);
    if (has != 0) return has < 0 ? -1 : 0;  // an error, or a table of its own: Module.__call__ decides
  }
  *names = n;
  return 1;
}

bool generic_instance_reads(PyTypeObject* type) {
  PyObject* getattribute = _PyType_Lookup(type, module_call_state().getattribute_name);
  return getattribute != nullptr && Py_IS_TYPE(getattribute, &PyWrapperDescr_Type) &&
         reinterpret_cast<PyWrapperDescrObject*>(getattribute)->d_wrapped ==
             reinterpret_cast<void*>(PyObject_GenericGetAttr);
}

// self.forward(*args, **kwargs). When `forward` is a plain function of the class that the
// instance's dict does not shadow, and the class reads attributes generically, that is the
// function called with self first (no bound method made); otherwise the attribute read itself.
PyObject* call_forward(PyObject* self, PyObject* d, PyObject* args, PyObject* kwargs) {
  const ModuleCallState& s = module_call_state();
  PyTypeObject* type = Py_TYPE(self);
  PyObject* forward = _PyType_Lookup(type, s.forward_name);  // borrowed
  if (forward != nullptr && PyFunction_Check(forward) && generic_instance_reads(type)) {
    const int shadowed = PyDict_Contains(d, s.forward_name);
    if (shadowed < 0) return nullptr;
    if (shadowed == 0) {
      Py_INCREF(forward);  // the class may drop it while it runs
      const Py_ssize_t n = PyTuple_GET_SIZE(args);
      std::array<PyObject*, 8> small{};
      std::vector<PyObject*> large;
      PyObject** stack = small.data();
      if (n + 1 > static_cast<Py_ssize_t>(small.size())) {
        large.resize(static_cast<size_t>(n) + 1);
        stack = large.data();
      }
      stack[0] = self;
      for (Py_ssize_t i = 0; i < n; ++i) stack[i + 1] = PyTuple_GET_ITEM(args, i);
      PyObject* res = PyObject_VectorcallDict(forward, stack, static_cast<size_t>(n) + 1, kwargs);
      Py_DECREF(forward);
      return res;
    }
  }
  PyObject* bound = PyObject_GetAttr(self, s.forward_name);
  if (bound == nullptr) return nullptr;
  PyObject* res = PyObject_Call(bound, args, kwargs);
  Py_DECREF(bound);
  return res;
}

// list.pop() of one of the thread's stacks, keeping the list's storage for the next push (a stack
// emptied by list.pop gives its storage back, and the next call's push allocates it again).
bool pop_stack(PyObject* list) {
  const Py_ssize_t n = PyList_GET_SIZE(list);
  if (n == 0) {
    PyErr_SetString(PyExc_IndexError, "pop from empty list");
    return false;
  }
  PyObject* top = PyList_GET_ITEM(list, n - 1);
  PyList_SET_ITEM(list, n - 1, nullptr);
  Py_SET_SIZE(list, n - 1);
  Py_DECREF(top);
  return true;
}

PyObject* module_call_slot(PyObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* d = PyObject_GenericGetDict(self, nullptr);
  if (d == nullptr) return nullptr;
  PyObject* names = nullptr;
  const int plain = plain_call(self, d, &names);
  if (plain != 1) {
    Py_DECREF(d);
    return plain < 0 ? nullptr : call_python_method(self, args, kwargs);
  }
  Py_INCREF(names);  // the forward may replace the module's entry
  PyObject* all = nullptr;
  try {
    all = thread_stacks(module_call_state().stacks);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  PyObject* res = nullptr;
  if (all != nullptr) {
    PyObject* scopes = PyTuple_GET_ITEM(all, 0);
    PyObject* layers = PyTuple_GET_ITEM(all, 2);
    if (PyList_Append(scopes, PyTuple_GET_ITEM(names, 2)) == 0) {
      if (PyList_Append(layers, PyTuple_GET_ITEM(names, 3)) == 0) {
        res = call_forward(self, d, args, kwargs);
        // As Module.__call__'s `finally`: both pops run; an error of theirs replaces the call's.
        if (!pop_stack(scopes) || !pop_stack(layers)) Py_CLEAR(res);
      } else if (!pop_stack(scopes)) {
        Py_CLEAR(res);
      }
    }
  }
  Py_DECREF(names);
  Py_DECREF(d);
  return res;
}

#if PY_VERSION_HEX >= 0x030D0000
constexpr bool kModuleCallSupported = false;  // _PyType_Lookup and the dict layout: CPython 3.9 - 3.12
#else
constexpr bool kModuleCallSupported = true;
#endif

PyObject* interned_name(const char* name) {
  PyObject* s = PyUnicode_InternFromString(name);
  if (s == nullptr) throw py::error_already_set();
  return s;
}

bool install_module_call(py::handle cls, py::handle module_call, py::handle recordings, py::handle global_tables,
                         py::handle stacks, py::tuple hook_tables) {
  if (!kModuleCallSupported || !PyType_Check(cls.ptr())) return false;
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  ModuleCallState& s = module_call_state();
  if (s.python_call == nullptr) {
    if (!PyList_CheckExact(recordings.ptr()) || !PyDict_CheckExact(global_tables.ptr()) || hook_tables.size() != 4) {
      throw py::type_error("module_call_slot: recordings must be a list, global_tables a dict, hook_tables 4 names");
    }
    for (size_t i = 0; i < 4; ++i) {
      PyObject* name = hook_tables[i].ptr();
      if (!PyUnicode_CheckExact(name)) throw py::type_error("module_call_slot: hook table names are str");
      Py_INCREF(name);
      PyUnicode_InternInPlace(&name);
      s.hook_tables[i] = name;
    }
    s.recordings = recordings.inc_ref().ptr();
    s.global_tables = global_tables.inc_ref().ptr();
    s.stacks = stacks.inc_ref().ptr();
    s.zero = PyLong_FromLong(0);
    s.call_names_key = interned_name("_call_names");
    s.scope_key = interned_name("_scope");
    s.forward_name = interned_name("forward");
    s.call_name = interned_name("__call__");
    s.getattribute_name = interned_name("__getattribute__");
    s.cpython_slot = type->tp_call;
    s.python_call = module_call.inc_ref().ptr();
  }
  if (type->tp_call == module_call_slot) return true;
  if (_PyType_Lookup(type, s.call_name) != s.python_call) return false;  // a __call__ of its own
  if (type->tp_call != s.cpython_slot) return false;                     // a C base's call: left alone
  type->tp_call = module_call_slot;
  PyType_Modified(type);
  return true;
}

}  // namespace

void bind_module_call(py::module_& m) {
  m.def("module_call_slot", &install_module_call, py::arg("cls"), py::arg("module_call"), py::arg("recordings"),
        py::arg("global_tables"), py::arg("stacks"), py::arg("hook_tables"),
        "Gives the Module class `cls` calls that run forward without Module.__call__'s frame when no hook, "
        "recording or renaming is due (Module.__call__ runs otherwise); False when left as it was.");
}

}  // namespace glassgrad
