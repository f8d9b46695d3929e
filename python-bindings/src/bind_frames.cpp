// The user's source line ("file.py:42") that every recorded node carries (glassgrad/_trace.py,
// user_source): the first frame on the Python stack whose code lies outside the glassgrad
// package. Glue only: it reads the interpreter's frames, which is this layer's business; the walk
// is here rather than in Python because it runs once per recorded op, and a Python walk over the
// package's frames was the largest single cost of recording a plain loop's step
// (docs/architecture.md, "One graph from the tracer to the planner").
#include <Python.h>
#include <frameobject.h>

#include <unordered_map>

#include "bindings.h"

namespace glassgrad {

namespace {

// Per code object: its file's base name for user code, or Py_None for the package's own code,
// and (user code) the "file.py:42" string of each instruction offset asked for so far. Each key
// holds a reference to its code object, so an address is never reused for another code object
// while it is cached. Touched only with the GIL held.
struct CodeWhere {
  PyObject* name = nullptr;
  std::unordered_map<int, PyObject*> at;  // instruction offset -> "file.py:42" (a reference each)
};
std::unordered_map<PyCodeObject*, CodeWhere>& where_cache() {
  static auto* cache = new std::unordered_map<PyCodeObject*, CodeWhere>();  // never freed: outlives interpreter exit
  return *cache;
}

// The entries found last, by a code object's address: every recorded op walks the same few
// frames (the package's wrappers, the layers' forwards), and a probe here costs a fraction of the
// map's lookup. Entries of where_cache are never erased and hold their code objects, so a slot's
// address and entry stay valid.
struct RecentCode {
  PyCodeObject* code = nullptr;
  CodeWhere* where = nullptr;
};
constexpr size_t kRecentSlots = 256;
RecentCode& recent_slot(PyCodeObject* code) {
  static RecentCode slots[kRecentSlots];
  return slots[(reinterpret_cast<uintptr_t>(code) >> 4) % kRecentSlots];
}

// The cached entry for `code`, computed on the first sight of it. Takes over the reference to
// code (from PyFrame_GetCode). String operations stay on Python str objects, so file names that
// do not encode (surrogate escapes) work too.
CodeWhere& where_of(PyCodeObject* code, PyObject* package_dir) {
  RecentCode& recent = recent_slot(code);
  if (recent.code == code) {
    Py_DECREF(code);
    return *recent.where;
  }
  auto& cache = where_cache();
  auto it = cache.find(code);
  if (it != cache.end()) {
    Py_DECREF(code);
    recent = RecentCode{it->first, &it->second};
    return it->second;
  }
  PyObject* filename = PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_filename");
  if (filename == nullptr || !PyUnicode_Check(filename)) {
    if (filename != nullptr) PyErr_SetString(PyExc_TypeError, "user_source: a code object's co_filename is not a str");
    Py_XDECREF(filename);
    Py_DECREF(code);
    throw py::error_already_set();
  }
  PyObject* name = Py_None;
  const Py_ssize_t in_package = PyUnicode_Tailmatch(filename, package_dir, 0, PY_SSIZE_T_MAX, -1);
  if (in_package < 0) {
    Py_DECREF(filename);
    Py_DECREF(code);
    throw py::error_already_set();
  }
  if (in_package == 1) {
    Py_INCREF(name);
  } else {
    const Py_ssize_t length = PyUnicode_GetLength(filename);
    const Py_ssize_t slash = PyUnicode_FindChar(filename, '/', 0, length, -1);
    const Py_ssize_t backslash = PyUnicode_FindChar(filename, '\\', 0, length, -1);
    const Py_ssize_t cut = slash > backslash ? slash : backslash;  // -1: neither occurs
    name = slash < -1 || backslash < -1 ? nullptr : PyUnicode_Substring(filename, cut + 1, length);
    if (name == nullptr) {
      Py_DECREF(filename);
      Py_DECREF(code);
      throw py::error_already_set();
    }
  }
  Py_DECREF(filename);
  CodeWhere& w = cache[code];  // keeps both references
  w.name = name;
  recent = RecentCode{code, &w};
  return w;
}

// "file.py:42" of a user frame (a new reference): the line of the frame's current instruction,
// cached per instruction offset where the interpreter tells it (3.11+), a code object's line
// table being fixed. Formatting the string and decoding the line table were most of the walk's
// cost, and a training loop asks for the same few call sites every step.
PyObject* user_line(CodeWhere& w, PyFrameObject* frame) {
#if PY_VERSION_HEX >= 0x030B0000
  const int lasti = PyFrame_GetLasti(frame);
  auto hit = w.at.find(lasti);
  if (hit != w.at.end()) {
    Py_INCREF(hit->second);
    return hit->second;
  }
  PyObject* s = PyUnicode_FromFormat("%U:%d", w.name, PyFrame_GetLineNumber(frame));
  if (s == nullptr) return nullptr;
  Py_INCREF(s);
  w.at.emplace(lasti, s);
  return s;
#else
  return PyUnicode_FromFormat("%U:%d", w.name, PyFrame_GetLineNumber(frame));
#endif
}

}  // namespace

py::str user_source(const py::str& package_dir) {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed: the calling Python frame
  Py_XINCREF(frame);
  while (frame != nullptr) {
    CodeWhere* w = nullptr;
    try {
      w = &where_of(PyFrame_GetCode(frame), package_dir.ptr());
    } catch (...) {
      Py_DECREF(frame);
      throw;
    }
    if (w->name != Py_None) {
      PyObject* line = user_line(*w, frame);
      Py_DECREF(frame);
      if (line == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::str>(line);
    }
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference (or null at the bottom)
    Py_DECREF(frame);
    frame = back;
  }
  return py::str("");
}

void bind_frames(py::module_& m) {
  m.def("user_source", &user_source, py::arg("package_dir"),
        "'file.py:42' of the innermost Python frame whose file does not start with package_dir "
        "('' when every frame does).");
}

}  // namespace glassgrad
