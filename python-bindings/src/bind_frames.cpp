// The user's source line ("file.py:42") that every recorded node carries (glassgrad/_trace.py,
// user_source): the first frame on the Python stack whose code lies outside the glassgrad
// package. Glue only: it reads the interpreter's frames, which is this layer's business; the walk
// is here rather than in Python because it runs once per recorded op, and a Python walk over the
// package's frames was the largest single cost of recording a plain loop's step
// (docs/architecture.md, "One graph from the tracer to the planner").
#include <Python.h>
#include <frameobject.h>
// 3.11 only: its frame stack is a list of _PyInterpreterFrame, which the public walk
// (PyEval_GetFrame, PyFrame_GetBack) turns into a frame object per frame it passes. That header
// needs no Py_BUILD_CORE in 3.11 and later versions change the struct, so they take the public walk.
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define GLASSGRAD_INTERPRETER_FRAMES 1
#include <internal/pycore_frame.h>
#endif

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

// The cached entry for `code` (borrowed), computed on the first sight of it; the cache then holds
// a reference to it. String operations stay on Python str objects, so file names that do not
// encode (surrogate escapes) work too.
CodeWhere& where_of(PyCodeObject* code, PyObject* package_dir) {
  RecentCode& recent = recent_slot(code);
  if (recent.code == code) return *recent.where;
  auto& cache = where_cache();
  auto it = cache.find(code);
  if (it != cache.end()) {
    recent = RecentCode{it->first, &it->second};
    return it->second;
  }
  PyObject* filename = PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_filename");
  if (filename == nullptr || !PyUnicode_Check(filename)) {
    if (filename != nullptr) PyErr_SetString(PyExc_TypeError, "user_source: a code object's co_filename is not a str");
    Py_XDECREF(filename);
    throw py::error_already_set();
  }
  PyObject* name = Py_None;
  const Py_ssize_t in_package = PyUnicode_Tailmatch(filename, package_dir, 0, PY_SSIZE_T_MAX, -1);
  if (in_package < 0) {
    Py_DECREF(filename);
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
      throw py::error_already_set();
    }
  }
  Py_DECREF(filename);
  Py_INCREF(code);
  CodeWhere& w = cache[code];  // keeps both references
  w.name = name;
  recent = RecentCode{code, &w};
  return w;
}

// "file.py:42" of a user frame (a new reference): the line of the frame's current instruction,
// cached per instruction offset where the interpreter tells it (3.11+), a code object's line
// table being fixed. Formatting the string and decoding the line table were most of the walk's
// cost, and a training loop asks for the same few call sites every step. cached_line: the entry
// of offset `lasti` (in bytes, as PyFrame_GetLasti counts), line_of() giving the line on a miss.
template <class LineOf>
PyObject* cached_line(CodeWhere& w, int lasti, LineOf line_of) {
  auto hit = w.at.find(lasti);
  if (hit != w.at.end()) {
    Py_INCREF(hit->second);
    return hit->second;
  }
  PyObject* s = PyUnicode_FromFormat("%U:%d", w.name, line_of());
  if (s == nullptr) return nullptr;
  Py_INCREF(s);
  w.at.emplace(lasti, s);
  return s;
}

PyObject* user_line(CodeWhere& w, PyFrameObject* frame) {
#if PY_VERSION_HEX >= 0x030B0000
  return cached_line(w, PyFrame_GetLasti(frame), [frame] { return PyFrame_GetLineNumber(frame); });
#else
  return PyUnicode_FromFormat("%U:%d", w.name, PyFrame_GetLineNumber(frame));
#endif
}

#ifdef GLASSGRAD_INTERPRETER_FRAMES
// The walk over the thread's interpreter frames, as PyEval_GetFrame and PyFrame_GetBack walk them
// (frames still being set up are skipped) but without a frame object per frame. The line is the
// one PyFrame_GetLineNumber gives, unless a tracer (a debugger) set the frame object's f_lineno.
py::str user_source_of_frames(PyObject* package_dir) {
  for (_PyInterpreterFrame* f = PyThreadState_Get()->cframe->current_frame; f != nullptr; f = f->previous) {
    if (_PyFrame_IsIncomplete(f)) continue;
    CodeWhere& w = where_of(f->f_code, package_dir);
    if (w.name == Py_None) continue;
    PyObject* line = nullptr;
    if (f->frame_obj != nullptr && f->frame_obj->f_lineno != 0) {
      line = user_line(w, f->frame_obj);
    } else {
      const int lasti = _PyInterpreterFrame_LASTI(f) * static_cast<int>(sizeof(_Py_CODEUNIT));
      line = cached_line(w, lasti, [f, lasti] { return PyCode_Addr2Line(f->f_code, lasti); });
    }
    if (line == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(line);
  }
  return py::str("");
}
#endif

}  // namespace

py::str user_source(const py::str& package_dir) {
#ifdef GLASSGRAD_INTERPRETER_FRAMES
  return user_source_of_frames(package_dir.ptr());
#else
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed: the calling Python frame
  Py_XINCREF(frame);
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // a new reference
    CodeWhere* w = nullptr;
    try {
      w = &where_of(code, package_dir.ptr());
    } catch (...) {
      Py_DECREF(code);
      Py_DECREF(frame);
      throw;
    }
    Py_DECREF(code);
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
#endif
}

void bind_frames(py::module_& m) {
  m.def("user_source", &user_source, py::arg("package_dir"),
        "'file.py:42' of the innermost Python frame whose file does not start with package_dir "
        "('' when every frame does).");
}

}  // namespace glassgrad
