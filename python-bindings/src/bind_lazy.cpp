// Lazy tracing: handles (what glassgrad.Tensor holds), recording, realize, backward, the plan
// cache's statistics.
#include <pybind11/stl.h>

#include <array>
#include <unordered_map>

#include <structmember.h>

#include "bindings.h"
#include "glassgrad/autodiff/batchnorm_checks.h"
#include "glassgrad/autodiff/class_labels.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/executor.h"
#include "glassgrad/runtime/lazy.h"
#include "glassgrad/runtime/lazy_saved_mutation.h"
#include "glassgrad/runtime/lazy_updates.h"

namespace glassgrad {

// The hot properties of _C.Lazy (shape, dtype, device, realized, requires_grad, is_view) as
// CPython getset descriptors on the class made below (bind_handle_reads.cpp).
void bind_handle_reads(const py::object& lazy_class);

namespace {
ValueKind leaf_kind(const std::string& k) {
  if (k == "input") return ValueKind::Input;
  if (k == "parameter") return ValueKind::Parameter;
  if (k == "state") return ValueKind::State;
  if (k == "constant") return ValueKind::Constant;
  throw ValueError("leaf kind must be input, parameter, state or constant, got '" + k + "'");
}
std::vector<lazy::ValuePtr> values_of(const std::vector<lazy::Handle*>& hs) {
  std::vector<lazy::ValuePtr> v;
  v.reserve(hs.size());
  for (auto* h : hs) v.push_back(h->value());
  return v;
}
std::unique_ptr<lazy::Handle> wrap(lazy::ValuePtr v) { return std::make_unique<lazy::Handle>(std::move(v)); }

// An interned attribute name, made once and kept for the interpreter's life (a lookup by a C
// string would make and hash a new str on every call).
PyObject* interned(const char* name) {
  PyObject* s = PyUnicode_InternFromString(name);
  if (s == nullptr) throw py::error_already_set();
  return s;
}

// obj.<name> (name interned), or the lookup's error.
py::object attr_of(PyObject* obj, PyObject* name) {
  PyObject* v = PyObject_GetAttr(obj, name);
  if (v == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(v);
}

// The innermost entry of one of a thread's recording stacks (borrowed), or null when it is empty.
PyObject* top_object(PyObject* list) {
  if (!PyList_Check(list)) throw InternalError("lazy_record_op: a recording stack is not a list");
  const Py_ssize_t n = PyList_GET_SIZE(list);
  return n == 0 ? nullptr : PyList_GET_ITEM(list, n - 1);
}

// The metadata of the nodes recorded under one (scope, role, layer, user's line), interned once
// (lazy::share_meta) and found again by those four Python strings: a loop records its nodes
// under the same few, and converting them to C++ strings, hashing and comparing those cost about
// 1000 instructions a recorded op. Keys compare by identity first, then by value (Module.__call__
// formats its layer's label anew each call). Each entry holds a reference to its key's strings,
// so a cached address is never reused meanwhile. Touched only with the GIL held; bounded: a
// table that fills up starts again.
struct MetaKey {
  std::array<PyObject*, 4> parts{};  // scope, role, layer (null: the stack is empty), source
  Py_hash_t hash = 0;
};
bool same_part(PyObject* a, PyObject* b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  const int c = PyUnicode_Compare(a, b);
  if (c == -1 && PyErr_Occurred()) throw py::error_already_set();
  return c == 0;
}
struct MetaKeyHash {
  size_t operator()(const MetaKey& k) const { return static_cast<size_t>(k.hash); }
};
struct MetaKeyEqual {
  bool operator()(const MetaKey& a, const MetaKey& b) const {
    for (size_t i = 0; i < a.parts.size(); ++i) {
      if (!same_part(a.parts[i], b.parts[i])) return false;
    }
    return true;
  }
};
using MetaCache = std::unordered_map<MetaKey, lazy::SharedMeta, MetaKeyHash, MetaKeyEqual>;
MetaCache& meta_cache() {
  static auto* cache = new MetaCache();  // never freed: outlives interpreter exit
  return *cache;
}
void clear_meta_cache(MetaCache& cache) {
  for (const auto& e : cache) {
    for (PyObject* p : e.first.parts) Py_XDECREF(p);
  }
  cache.clear();
}

std::string str_or(PyObject* s, const char* empty) { return s ? py::cast<std::string>(s) : std::string(empty); }

}  // namespace

// The thread's (scopes, roles, layers) tuple of `stacks` (glassgrad._trace._Stacks, a
// threading.local), borrowed. Each read of a threading.local's attribute looks up the thread's
// dict (about 550 instructions), and every recorded op comes here; the tuple is made once per
// thread and never replaced (its lists are appended to and popped), so it is read once per
// (stacks object, thread state) and kept. The references it keeps (the object and the tuple) are
// given back when the next read replaces them, and left to the process when a thread ends.
PyObject* thread_stacks(PyObject* stacks) {
  static PyObject* const stacks_name = interned("stacks");
  struct Kept {
    PyObject* stacks = nullptr;  // a reference, so that its address names no other object meanwhile
    uint64_t thread = 0;         // PyThreadState::id: unique for the process's life
    PyObject* tuple = nullptr;   // a reference
  };
  thread_local Kept kept;
  const uint64_t thread = PyThreadState_Get()->id;
  if (kept.stacks == stacks && kept.thread == thread) return kept.tuple;
  py::object all = attr_of(stacks, stacks_name);
  if (!PyTuple_Check(all.ptr()) || PyTuple_GET_SIZE(all.ptr()) != 3) {
    throw InternalError("lazy_record_op: the recording stacks are not a (scopes, roles, layers) tuple");
  }
  Py_INCREF(stacks);
  Py_XDECREF(kept.stacks);
  Py_XDECREF(kept.tuple);
  kept = Kept{stacks, thread, all.release().ptr()};
  return kept.tuple;
}

namespace {

// A recorded node's metadata: its scope, role and layer the innermost of the thread's stacks
// (glassgrad._trace._Stacks), its source the user's line.
lazy::SharedMeta meta_from_python(const py::object& stacks, const py::str& package_dir) {
  constexpr size_t kCapacity = 4096;
  PyObject* const all = thread_stacks(stacks.ptr());
  const py::str source = user_source(package_dir);
  MetaKey key;
  key.parts = {top_object(PyTuple_GET_ITEM(all, 0)), top_object(PyTuple_GET_ITEM(all, 1)),
               top_object(PyTuple_GET_ITEM(all, 2)), source.ptr()};
  uint64_t h = 0;
  for (PyObject* p : key.parts) {
    if (p != nullptr && !PyUnicode_Check(p)) throw InternalError("lazy_record_op: a recording stack holds a non-str");
    const Py_hash_t ph = p ? PyObject_Hash(p) : 0;
    if (ph == -1) throw py::error_already_set();
    h = lazy::fold(h, static_cast<uint64_t>(ph));
  }
  key.hash = static_cast<Py_hash_t>(h);
  MetaCache& cache = meta_cache();
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const NodeMeta meta{str_or(key.parts[0], ""), py::cast<std::string>(source),
                      role_from_name(str_or(key.parts[1], "forward")), str_or(key.parts[2], "")};
  lazy::SharedMeta shared = lazy::share_meta(meta);
  if (cache.size() >= kCapacity) clear_meta_cache(cache);
  for (PyObject* p : key.parts) Py_XINCREF(p);
  cache.emplace(key, shared);
  return shared;
}

// tensor._h, as PyObject_GetAttr gives it. glassgrad.Tensor keeps its handle in a slot and
// defines __getattr__ (for a tensor that still holds its NumPy array), which sends every read
// through CPython's __getattr__ hook (about 280 instructions a read). When the type's
// __getattribute__ is object's and `_h` is a plain slot of it holding a value, the value is read
// from the slot, as object's __getattribute__ reads it (a slot is a data descriptor: it comes
// before the instance's dict and __getattr__); anything else takes the full lookup.
py::object handle_attr(PyObject* tensor) {
  static PyObject* const h_name = interned("_h");
  static PyObject* const getattribute_name = interned("__getattribute__");
  static PyObject* const generic = _PyType_Lookup(&PyBaseObject_Type, getattribute_name);  // object's, borrowed
  PyTypeObject* const type = Py_TYPE(tensor);
  PyObject* const slot = _PyType_Lookup(type, h_name);  // borrowed
  if (slot != nullptr && Py_IS_TYPE(slot, &PyMemberDescr_Type) && _PyType_Lookup(type, getattribute_name) == generic) {
    const PyMemberDef* m = reinterpret_cast<PyMemberDescrObject*>(slot)->d_member;
    if (m->type == T_OBJECT_EX && m->flags == 0) {
      PyObject* v = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(tensor) + m->offset);
      if (v != nullptr) return py::reinterpret_borrow<py::object>(v);
    }
  }
  return attr_of(tensor, h_name);
}

// The lazy::Handle a `_h` object wraps: an exact Lazy object's read directly (exact_handle,
// handle_list_caster.h); anything else goes through the caster, with its errors.
lazy::Handle* handle_ptr(const py::object& h) {
  if (lazy::Handle* p = exact_handle(h.ptr())) return p;
  return h.cast<lazy::Handle*>();
}

// The handle a tensor holds (its `_h`), alive while `held` is.
lazy::Handle* handle_of_tensor(PyObject* tensor, std::vector<py::object>& held) {
  held.push_back(handle_attr(tensor));
  return handle_ptr(held.back());
}

// The handles (`_h`) of a list of tensors, alive while `held` is.
std::vector<lazy::Handle*> handles_of_tensors(const py::handle& tensors, std::vector<py::object>& held) {
  if (!PyList_Check(tensors.ptr())) throw InternalError("lazy_record_group_updates: expected a list of tensors");
  const Py_ssize_t n = PyList_GET_SIZE(tensors.ptr());
  std::vector<lazy::Handle*> out;
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) out.push_back(handle_of_tensor(PyList_GET_ITEM(tensors.ptr(), i), held));
  return out;
}

// The schema of the op named `op`. A recording call names its op with a str constant of the
// package's code, the same object call after call, so the schema is kept by that object's
// identity (the registry's lookup compares the name with about nine others, and converting the
// str to a std::string comes before it). Each entry holds a reference to its str, so a cached
// address is never reused meanwhile; schemas live as long as the registry. Touched only with the
// GIL held; bounded: a table that fills up starts again.
const OpSchema& schema_named(const py::str& op) {
  constexpr size_t kCapacity = 1024;
  static auto* kept = new std::unordered_map<PyObject*, const OpSchema*>();  // never freed: outlives interpreter exit
  auto it = kept->find(op.ptr());
  if (it != kept->end()) return *it->second;
  const OpSchema& s = OpRegistry::instance().at(py::cast<std::string>(op));
  if (kept->size() >= kCapacity) {
    for (const auto& e : *kept) Py_DECREF(e.first);
    kept->clear();
  }
  Py_INCREF(op.ptr());
  kept->emplace(op.ptr(), &s);
  return s;
}

// glassgrad._tensor's recording call (lazy_record_op below): tensors in (each one's handle is its
// `_h`), the node's scope, role and layer the innermost of the thread's stacks and its source the
// user's line; the node is the one lazy_record makes with those arguments.
std::vector<std::unique_ptr<lazy::Handle>> record_from_python(const py::str& op, const py::object& tensors,
                                                              const py::object& attrs, const py::object& stacks,
                                                              const py::str& package_dir) {
  using lazy::Handle;
  const py::object seq = py::reinterpret_steal<py::object>(
      PySequence_Fast(tensors.ptr(), "lazy_record_op: inputs must be a list or tuple of tensors"));
  if (!seq) throw py::error_already_set();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  std::vector<py::object> held;  // the handles, alive for the call whatever their tensors do
  std::vector<Handle*> inputs;
  held.reserve(static_cast<size_t>(n));
  inputs.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    inputs.push_back(handle_of_tensor(items[i], held));
  }
  static const lazy::SharedAttrs none = lazy::share_attrs(Attrs());
  const lazy::SharedAttrs a = attrs.is_none() ? none : shared_attrs_from_dict(py::dict(attrs));
  return lazy::record_handles(schema_named(op), inputs, a, meta_from_python(stacks, package_dir));
}
// The object a gradient hook returns to make the gradient undefined (lazy::undefined_gradient),
// _C.undefined_gradient: made once, never freed (it outlives the interpreter's teardown).
const py::object& undefined_gradient_marker() {
  static const py::object* marker = new py::object(py::module_::import("builtins").attr("object")());
  return *marker;
}

}  // namespace

void bind_lazy(py::module_& m) {
  m.attr("undefined_gradient") = undefined_gradient_marker();
  // PyTorch raises AssertionError for a backward outside the allow_mutation_on_saved_tensors
  // context that recorded the graph (lazy_saved_mutation.h); registered after bind_errors', so
  // tried before it.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const lazy::SavedOutsideContextError& e) {
      PyErr_SetString(PyExc_AssertionError, e.what());
    }
  });
  using lazy::Handle;
  // shape, dtype, device, realized, requires_grad and is_view: getset descriptors added below
  // (bind_handle_reads.cpp).
  py::class_<Handle>(m, "Lazy", "A pin on a lazily computed value (what glassgrad.Tensor holds).")
      .def_property_readonly("is_leaf", [](const Handle& h) { return h.value()->is_leaf(); })
      .def_property_readonly("op", [](const Handle& h) {
        return h.value()->producer ? h.value()->producer->schema->name : std::string();
      })
      .def_property_readonly("producer_inputs", [](const Handle& h) {
             // The values the op that made this one read, in its input order (none for a leaf):
             // Tensor.grad_fn.next_functions walks them.
             py::list out;
             const lazy::ValuePtr& v = h.value();
             if (v->producer && !v->is_leaf()) {
               for (const lazy::ValuePtr& in : v->producer->inputs) out.append(py::cast(wrap(in)));
             }
             return out;
           })
      .def("replay", [](const Handle& h, const std::vector<Handle*>& inputs) -> py::object {
             // The op that made this value recorded again, with its attributes and metadata, on
             // `inputs` (its output of this value's index): a node hook's gradients of the node's
             // own inputs, from the op alone on leaves of their values. None for a leaf.
             const lazy::ValuePtr& v = h.value();
             if (!v->producer || v->is_leaf()) return py::none();
             std::vector<lazy::ValuePtr> in;
             in.reserve(inputs.size());
             for (const Handle* x : inputs) in.push_back(x->value());
             const lazy::TraceNode& node = *v->producer;
             return py::cast(wrap(lazy::record(node.schema->name, in, *node.attrs, *node.meta)
                                      .at(static_cast<size_t>(v->output_index))));
           })
      .def_property_readonly("producer_freed", [](const Handle& h) {
             // Whether a backward() without retain_graph freed what the op that made this value
             // saved (TraceNode::freed): grad_fn._saved_<name> then raises, as PyTorch's.
             const lazy::ValuePtr& v = h.value();
             return v->producer && !v->is_leaf() && v->producer->freed;
           })
      .def("producer_attr", [](const Handle& h, const std::string& key) -> py::object {
             // An attribute of the op that made this value (None for a leaf or a missing key):
             // Tensor.grad_fn names PyTorch's node from it.
             const lazy::ValuePtr& v = h.value();
             const AttrValue* a = v->producer && !v->is_leaf() ? v->producer->attrs->find(key) : nullptr;
             return a ? py::cast(*a) : py::none();
           }, py::arg("key"))
      .def_property("name", [](const Handle& h) { return h.value()->name.str(); },
                    [](Handle& h, const std::string& n) { h.value()->name = n; })
      .def("data", [](const Handle& h) { return lazy::data(h.value()); }, "Realizes and returns the runtime tensor.")
      .def("item", [](const Handle& h) -> py::object {
             // Tensor.item()'s number for a one-element tensor of a type Python holds exactly
             // (None for the others, which Python reads through NumPy), realizing first.
             const Tensor& t = lazy::data(h.value());
             if (t.numel() != 1 || !t.device().is_cpu()) return py::none();
             switch (t.dtype()) {
               case DType::Float32: return py::float_(static_cast<double>(*t.data<float>()));
               case DType::Float64: return py::float_(*t.data<double>());
               case DType::Int64: return py::int_(*t.data<int64_t>());
               case DType::Int32: return py::int_(*t.data<int32_t>());
               case DType::Bool: return py::bool_(*t.data<bool>());
               default: return py::none();
             }
           })
      .def("grad", [](const Handle& h) -> py::object {
        auto g = lazy::grad_handle(h.value());
        if (!g) return py::none();
        return py::cast(std::move(g));
      })
      .def("grad_value", [](const Handle& h) -> py::object {
             // The gradient as an op's input (an optimizer's update reads it): a plain handle on its
             // value, without the storage link grad() makes for writes through p.grad.
             const lazy::ValuePtr& g = h.value()->grad;
             return g ? py::cast(wrap(g)) : py::none();
           })
      .def("set_grad", [](Handle& h, Handle* g) { lazy::set_grad_from(h.value(), g); }, py::arg("grad").none(true))
      .def("set_requires_grad", [](Handle& h, bool on) { lazy::set_requires_grad(h.value(), on); })
      .def("add_grad_hook", [](Handle& h, const py::function& fn) {
             // The Python function outlives no interpreter state: released under the GIL.
             std::shared_ptr<py::function> f(new py::function(fn), [](py::function* p) {
               py::gil_scoped_acquire gil;
               delete p;
             });
             return lazy::add_grad_hook(h.value(), [f](const lazy::ValuePtr& grad) -> lazy::ValuePtr {
               // an undefined gradient (lazy::undefined_gradient) is given as None, as PyTorch's hooks get it
               const bool undefined = grad == lazy::undefined_gradient();
               py::object out = (*f)(undefined ? py::object(py::none()) : py::cast(wrap(grad)));
               if (out.is(undefined_gradient_marker())) return lazy::undefined_gradient();
               return out.is_none() ? nullptr : out.cast<Handle*>()->value();
             });
           },
           "Adds a gradient hook: fn(gradient handle, or None where it is undefined) -> a handle replacing it, "
           "None to keep it, or _C.undefined_gradient to make it undefined. Returns its key.")
      .def("remove_grad_hook", [](Handle& h, uint64_t key) { lazy::remove_grad_hook(h.value(), key); })
      .def("set_post_accumulate_hook", [](Handle& h, const py::object& fn) {
             if (fn.is_none()) return lazy::set_post_accumulate_hook(h.value(), nullptr);
             // The Python function outlives no interpreter state: released under the GIL.
             std::shared_ptr<py::object> f(new py::object(fn), [](py::object* p) {
               py::gil_scoped_acquire gil;
               delete p;
             });
             lazy::set_post_accumulate_hook(h.value(), [f]() { (*f)(); });
           },
           py::arg("fn").none(true),
           "Sets fn(), which backward() calls right after this leaf's .grad is accumulated (None clears).")
      .def_property("retains_grad", [](const Handle& h) { return h.value()->retains_grad; },
                    [](Handle& h, bool on) { h.value()->retains_grad = on; })
      .def("same_value", [](const Handle& a, const Handle& b) { return a.value() == b.value(); })
      .def_property_readonly("identity", [](const Handle& h) { return reinterpret_cast<uintptr_t>(h.value().get()); },
                             "Equal for handles that pin the same value")
      .def("reset", [](Handle& h, const Handle& other) { h.reset(other.value()); })
      .def("pin", [](const Handle& h) { return wrap(h.value()); }, "Another pin on the same value.")
      .def("backward", [](const Handle& h, Handle* seed, bool retain_graph) {
             lazy::backward(h.value(), seed ? seed->value() : nullptr, nullptr, retain_graph);
           },
           py::arg("seed").none(true) = nullptr, py::arg("retain_graph") = false)
      .def("leaves_requiring_grad", [](const Handle& h) {
             py::list out;
             for (const lazy::ValuePtr& v : lazy::leaves_requiring_grad(h.value())) out.append(py::cast(wrap(v)));
             return out;
           },
           "The leaves with requires_grad this value is computed from.")
      .def("gradients", [](const Handle& h, Handle* seed, const std::vector<Handle*>& inputs, bool retain_graph,
                           bool create_graph) {
             std::vector<lazy::ValuePtr> in;
             in.reserve(inputs.size());
             for (const Handle* x : inputs) in.push_back(x->value());
             py::list out;
             for (const lazy::ValuePtr& g : lazy::gradients(h.value(), seed ? seed->value() : nullptr, in, retain_graph,
                                                                      create_graph)) {
               out.append(g ? py::cast(wrap(g)) : py::none());
             }
             return out;
           },
           py::arg("seed").none(true), py::arg("inputs"), py::arg("retain_graph") = false,
           py::arg("create_graph") = false,
           "autograd.grad: the gradient handle of each input (None where the loss does not read it).")
      // In-place ops, views and aliases (lazy.h, alias.cpp).
      .def("write", [](Handle& h, const Handle& value, const std::string& op, uint64_t first_seq,
                       const std::string& source) {
             NodeMeta meta;
             meta.source = source;
             lazy::write(h, value.value(), op, first_seq, meta);
           },
           py::arg("value"), py::arg("op"), py::arg("first_seq"), py::arg("source") = "")
      .def("write_here", [](Handle& h, const Handle& value, const std::string& op, uint64_t first_seq,
                            const py::str& package_dir, const std::string& torch_node) {
             // write() with the user's line found here (one call where two were made)
             NodeMeta meta;
             meta.source = py::cast<std::string>(user_source(package_dir));
             lazy::write(h, value.value(), op, first_seq, meta, torch_node);
           },
           py::arg("value"), py::arg("op"), py::arg("first_seq"), py::arg("package_dir"), py::arg("torch_node") = "")
      .def("writes_as_is", [](const Handle& h, const Handle& value) { return lazy::writes_as_is(h, value); })
      .def("names_positions", [](const Handle& h, const std::vector<int64_t>& positions, const Handle& v) {
             return lazy::names_positions(h, positions, v);
           })
      .def("count_identity_write", [](Handle& h, const std::string& op) { lazy::count_identity_write(h, op); })
      .def("data_alias", [](const Handle& h) { return lazy::data_alias(h); })
      .def("detach_", [](Handle& h) { lazy::detach_inplace(h); })
      .def_property_readonly("version", [](const Handle& h) { return lazy::version_of(h); })
      .def_property_readonly("view_made_without_grad", [](const Handle& h) -> py::object {
             // PyTorch's CreationMeta NO_GRAD_MODE (its check of in-place ops on views): None unless
             // a view step after the chain's last detach() was recorded with gradients off; else
             // (whether that step is the view's own, the last; whether the storage's newest version
             // requires grad and no detach() is in the chain; the last step's op; its torch_node).
             const std::vector<lazy::ViewStep>& chain = h.chain();
             bool found = false, own = false;
             for (size_t i = chain.size(); i-- > 0 && chain[i].schema->name != "Detach";) {
               if (!chain[i].grad) {
                 found = true;
                 own = i + 1 == chain.size();
                 break;
               }
             }
             if (!found) return py::none();
             const lazy::ViewStep& last = chain.back();
             const AttrValue* node = last.attrs.find("torch_node");
             return py::make_tuple(own, !h.detached() && lazy::storage_requires_grad(h), last.schema->name,
                                   node ? py::cast(*node) : py::str(""));
           })
      .def_property_readonly("layout", [](const Handle& h) {
        const Layout l = lazy::layout_of(h);
        return py::make_tuple(py::tuple(py::cast(l.strides)), l.offset, l.is_contiguous());
      })
      .def("reshape_is_view", [](const Handle& h, const Shape& shape) {
        Layout out;
        return reshape_view(lazy::layout_of(h), shape, out);
      })
      .def("shares_storage", [](const Handle& a, const Handle& b) {
        return a.alias() && a.alias() == b.alias();
      })
      .def("pending_graph", [](const Handle& h) { return lazy::pending_graph_str(h.value()); });
  bind_handle_reads(m.attr("Lazy"));

  m.def("clear_grads",
        [](const std::vector<Handle*>& leaves) {
          for (Handle* h : leaves) lazy::set_grad_from(h->value(), nullptr);
        },
        "set_grad(None) on each handle in one call (optimizer.zero_grad(); Module.zero_grad())");
  m.def("lazy_leaf", [](const Tensor& t, const std::string& kind, bool requires_grad, const std::string& name) {
    return wrap(lazy::make_leaf(t, leaf_kind(kind), requires_grad, name));
  }, py::arg("tensor"), py::arg("kind") = "input", py::arg("requires_grad") = false, py::arg("name") = "");
  m.def("lazy_record",
        [](const std::string& op, const std::vector<Handle*>& inputs, const py::dict& attrs, const std::string& scope,
           const std::string& source, const std::string& role, const std::string& layer) {
          NodeMeta meta{scope, source, role_from_name(role), layer};
          return lazy::record_handles(op, inputs, attrs_from_dict(attrs), meta);
        },
        py::arg("op"), py::arg("inputs"), py::arg("attrs") = py::dict(), py::arg("scope") = "", py::arg("source") = "",
        py::arg("role") = "forward", py::arg("layer") = "");
  // glassgrad._tensor._op's call: tensors in (each one's handle is its `_h`), the first output's
  // handle out, the node's scope, role and layer the innermost of the thread's stacks and its
  // source the user's line. The same node as lazy_record with those arguments; one crossing into
  // the runtime where the Python wrapper made two and built the argument lists itself (every
  // op of a plain loop's forward comes here: docs/architecture.md, "One graph from the tracer to
  // the planner").
  // glassgrad._tensor._op's call (record_from_python): the first output's handle out. One crossing
  // into the runtime where the Python wrapper made two and built the argument lists itself (every
  // op of a plain loop's forward comes here: docs/architecture.md, "One graph from the tracer to
  // the planner").
  m.def("lazy_record_op",
        [](const py::str& op, const py::object& tensors, const py::object& attrs, const py::object& stacks,
           const py::str& package_dir) {
          auto outs = record_from_python(op, tensors, attrs, stacks, package_dir);
          if (outs.empty()) throw InternalError("lazy_record_op: " + py::cast<std::string>(op) + " has no outputs");
          return std::move(outs[0]);
        },
        py::arg("op"), py::arg("inputs"), py::arg("attrs"), py::arg("stacks"), py::arg("package_dir"));
  // x + y of two tensors (glassgrad._methods, Tensor.__add__): the Add's handle, or None where
  // the operator's general path decides (lazy.h, record_plain_sum).
  m.def("lazy_record_sum",
        [](const py::object& a, const py::object& b, const py::object& stacks, const py::str& package_dir) {
          std::vector<py::object> held;
          Handle* ha = handle_of_tensor(a.ptr(), held);
          Handle* hb = handle_of_tensor(b.ptr(), held);
          return lazy::record_plain_sum(*ha, *hb, meta_from_python(stacks, package_dir));
        },
        py::arg("a"), py::arg("b"), py::arg("stacks"), py::arg("package_dir"));
  // x[i, j, ...] with Python ints (glassgrad._indexing.int_view): the key's views in one call.
  m.def("lazy_select_positions",
        [](lazy::Handle& base, const std::vector<int64_t>& positions, const py::object& stacks,
           const py::str& package_dir) {
          return lazy::select_positions(base, positions, *meta_from_python(stacks, package_dir).meta);
        },
        py::arg("base"), py::arg("positions"), py::arg("stacks"), py::arg("package_dir"));
  // The same for an op of several outputs (glassgrad._tensor._op_multi): every output's handle.
  m.def("lazy_record_op_outputs", &record_from_python, py::arg("op"), py::arg("inputs"), py::arg("attrs"),
        py::arg("stacks"), py::arg("package_dir"));
  // A BatchNorm layer's training forward and statistics update in one call (lazy_updates.h,
  // record_batchnorm_training): the output's handle when the update was recorded, else the
  // forward's three handles in a list.
  m.def("lazy_batchnorm_training",
        [](const py::str& op, const py::object& inputs, const py::dict& attrs, const py::str& update,
           const py::object& running_mean, const py::object& running_var, const py::dict& update_attrs,
           const py::object& stacks, const py::str& package_dir, const py::object& counter) -> py::object {
          std::vector<py::object> held;
          std::vector<Handle*> ins = handles_of_tensors(inputs, held);
          auto outs = lazy::record_batchnorm_training(
              schema_named(op), ins, shared_attrs_from_dict(attrs), schema_named(update),
              *handle_of_tensor(running_mean.ptr(), held), *handle_of_tensor(running_var.ptr(), held),
              shared_attrs_from_dict(update_attrs), meta_from_python(stacks, package_dir),
              counter.is_none() ? nullptr : handle_of_tensor(counter.ptr(), held));
          return outs.size() == 1 ? py::cast(std::move(outs[0])) : py::cast(std::move(outs));
        },
        py::arg("op"), py::arg("inputs"), py::arg("attrs"), py::arg("update"), py::arg("running_mean"),
        py::arg("running_var"), py::arg("update_attrs"), py::arg("stacks"), py::arg("package_dir"),
        py::arg("counter") = py::none());
  // An optimizer's in-place updates in one call, logged in a step's journal (lazy_updates.h).
  py::class_<lazy::UpdateJournal>(m, "UpdateJournal",
                                  "The values an optimizer step's updates moved its tensors from, in order.")
      .def(py::init<>())
      .def("__len__", [](const lazy::UpdateJournal& j) { return j.old.size(); });
  m.def("lazy_record_updates",
        [](const std::string& op, const std::vector<std::vector<Handle*>>& rows,
           const std::vector<std::vector<Handle*>>& targets, const py::dict& attrs, const std::string& scope,
           const std::string& source, const std::string& role, const std::string& layer,
           lazy::UpdateJournal* journal) {
          lazy::record_updates(op, rows, targets, attrs_from_dict(attrs),
                               NodeMeta{scope, source, role_from_name(role), layer}, journal);
        },
        py::arg("op"), py::arg("rows"), py::arg("targets"), py::arg("attrs"), py::arg("scope"), py::arg("source"),
        py::arg("role"), py::arg("layer"), py::arg("journal").none(true) = nullptr);
  // Optimizer.step's common path: a parameter group's updates of one op (lazy_updates.h,
  // record_group_updates), parameters and state entries as lists of tensors.
  m.def("lazy_record_group_updates",
        [](const std::string& op, const py::list& params, const py::list& states, const std::vector<Handle*>& before,
           const std::vector<Handle*>& after, const py::dict& attrs, const py::object& stacks,
           const py::str& package_dir, lazy::UpdateJournal* journal) {
          std::vector<py::object> held;
          const std::vector<Handle*> ps = handles_of_tensors(params, held);
          std::vector<std::vector<Handle*>> kinds;
          kinds.reserve(states.size());
          for (const py::handle& kind : states) kinds.push_back(handles_of_tensors(kind, held));
          return lazy::record_group_updates(op, ps, kinds, before, after, attrs_from_dict(attrs),
                                            *meta_from_python(stacks, package_dir).meta, journal);
        },
        py::arg("op"), py::arg("params"), py::arg("states"), py::arg("before"), py::arg("after"), py::arg("attrs"),
        py::arg("stacks"), py::arg("package_dir"), py::arg("journal").none(true) = nullptr);
  m.def("lazy_reset_logged",
        [](lazy::UpdateJournal& journal, Handle& h, const Handle& v) { lazy::reset_logged(h, v.value(), journal); },
        py::arg("journal"), py::arg("handle"), py::arg("value"));
  m.def("lazy_revert_logged", &lazy::revert_logged, py::arg("handles"), py::arg("journal"));
  m.def("lazy_have_grads", &lazy::have_grads, py::arg("handles"));
  m.def("lazy_unrealized", &lazy::unrealized, py::arg("handles"));
  m.def("lazy_views", &lazy::views, py::arg("handles"));
  // The labels check of the CrossEntropy shape rule (class_labels.h) for labels that never reach
  // it: a NumPy array (dtype by NumPy's name), or a tensor feeding a loss composed in Python.
  m.def("check_class_labels",
        [](const std::string& op, const std::string& scope, const std::string& dtype, const Shape& shape,
           const Handle& logits) {
          check_class_labels(node_where(op, scope), dtype, shape, logits.value()->info, nullptr);
        },
        py::arg("op"), py::arg("scope"), py::arg("dtype"), py::arg("shape"), py::arg("logits"));
  m.def("check_class_labels",
        [](const std::string& op, const std::string& scope, const Handle& labels, const Handle& logits) {
          const TensorInfo& l = labels.value()->info;
          check_class_labels(node_where(op, scope), dtype_name(l.dtype), l.shape, logits.value()->info, &l);
        },
        py::arg("op"), py::arg("scope"), py::arg("labels"), py::arg("logits"));
  // Checks of the BatchNorm shape rules (batchnorm_checks.h) for paths composed in Python that
  // reach no BatchNorm rule: SyncBatchNorm's input, a running-statistics update with a tensor momentum.
  m.def("check_batchnorm_channels",
        [](const std::string& layer, const Handle& x, int64_t num_features) {
          check_batchnorm_channels(layer, x.value()->info, num_features);
        },
        py::arg("layer"), py::arg("x"), py::arg("num_features"));
  m.def("check_batchnorm_running_stats",
        [](const std::string& op, const std::string& scope, const Handle& running_mean, const Handle& running_var,
           const Handle& mean, const Handle& var) {
          check_batchnorm_running_stats(node_where(op, scope), running_mean.value()->info, running_var.value()->info,
                                        mean.value()->info, var.value()->info);
        },
        py::arg("op"), py::arg("scope"), py::arg("running_mean"), py::arg("running_var"), py::arg("mean"),
        py::arg("var"));
  m.def("lazy_reset_all", [](const std::vector<Handle*>& hs, const std::vector<Handle*>& vs) { lazy::reset_all(hs, values_of(vs)); },
        py::arg("handles"), py::arg("values"));
  m.def("lazy_revert_all", [](const std::vector<Handle*>& hs, const std::vector<Handle*>& old) { return lazy::revert_all(hs, values_of(old)); },
        py::arg("handles"), py::arg("old"));
  m.def("lazy_rebind_generation", &lazy::rebind_generation);
  m.def("lazy_realize", [](const std::vector<Handle*>& hs) { lazy::realize(values_of(hs)); }, py::arg("handles"));
  m.def("grad_enabled", &lazy::grad_enabled);
  m.def("set_grad_enabled", &lazy::set_grad_enabled);
  m.def("eager_views", &lazy::eager_views);
  m.def("set_eager_views", &lazy::set_eager_views);
  m.def("lazy_inspect", [](const std::vector<Handle*>& hs) {
    lazy::InspectedGraph g = lazy::inspect_graph(values_of(hs));
    py::list leaves;
    for (const auto& v : g.leaves) {
      if (v) leaves.append(py::cast(wrap(v)));
      else leaves.append(py::none());
    }
    return py::make_tuple(std::move(g.graph), leaves, g.outputs);
  }, py::arg("handles"), "(graph, the lazy value of each leaf by value id, the outputs' ids): lazy::inspect_graph");
  m.def("cache_stats", [] {
    const lazy::CacheStats s = lazy::cache_stats();
    py::dict d;
    d["compiles"] = s.compiles;
    d["hits"] = s.hits;
    d["realizes"] = s.realizes;
    d["plans"] = s.plans;
    d["graphs_built"] = s.graphs_built;
    d["gradients_built"] = s.gradients_built;
    d["gradients_reused"] = s.gradients_reused;
    d["update_copies"] = s.update_copies;
    d["export_seconds"] = s.export_seconds;
    d["compile_seconds"] = s.compile_seconds;
    d["run_seconds"] = s.run_seconds;
    return d;
  });
  m.def("reset_cache_stats", &lazy::reset_cache_stats);
  m.def("clear_plan_cache", &lazy::clear_cache);
  m.def("last_plan", [] { return std::const_pointer_cast<Plan>(lazy::last_plan()); });
  m.def("last_executor", &lazy::last_executor, "The executor of the most recent realize's plan, or None.");
  py::class_<lazy::CapturedRun>(m, "CapturedRun", "One plan run recorded by glassgrad.compile's capture.")
      .def_property_readonly("plan", [](const lazy::CapturedRun& r) { return std::const_pointer_cast<Plan>(r.plan); })
      .def_property_readonly("executor", [](const lazy::CapturedRun& r) { return r.executor; })
      // By value: def_readonly would hand out references that keep the whole run (and its
      // outputs, e.g. a step's gradients) alive for as long as any one input is held.
      .def_property_readonly("inputs", [](const lazy::CapturedRun& r) { return r.inputs; })
      .def_property_readonly("input_kinds", [](const lazy::CapturedRun& r) {
        std::vector<std::string> k;
        for (ValueKind v : r.input_kinds) k.push_back(value_kind_name(v));
        return k;
      })
      .def_readonly("input_seqs", &lazy::CapturedRun::input_seqs)
      .def_property_readonly("outputs", [](const lazy::CapturedRun& r) { return r.outputs; });
  m.def("set_plan_only", &lazy::set_plan_only);
  m.def("set_memory_budget", &lazy::set_memory_budget);
  m.def("memory_budget", [](const std::string& d) { return lazy::memory_budget_for(Device::parse(d)); },
        py::arg("device") = "cpu");
  m.def("take_plan_only_plans", [] {
    std::vector<std::shared_ptr<Plan>> out;
    for (auto& p : lazy::take_plan_only_plans()) out.push_back(std::const_pointer_cast<Plan>(p));
    return out;
  });
  m.def("arena_bytes", [](const std::string& d) { return lazy::arena_held_bytes(Device::parse(d)); });
  m.def("set_fusion", &lazy::set_fusion);
  m.def("set_deterministic_algorithms", &set_deterministic_algorithms);
  m.def("deterministic_algorithms", &deterministic_algorithms);
  m.def("fusion_enabled", &lazy::fusion_enabled);
  m.def("capture_begin", &lazy::capture_begin);
  m.def("capture_end", &lazy::capture_end);
  m.def("lazy_seq", &lazy::current_seq);
  m.def("lazy_allow_mutation_on_saved_since", &lazy::allow_mutation_on_saved_since, py::arg("since"),
        "autograd.graph.allow_mutation_on_saved_tensors: opens its context at the op sequence number "
        "`since` (lazy_seq()), 0 closes it (lazy_saved_mutation.h).");
  m.def("lazy_mutation_on_saved_allowed_since", &lazy::mutation_on_saved_allowed_since);
  m.def("plan_for", [](const std::vector<Handle*>& hs) { return std::const_pointer_cast<Plan>(lazy::plan_for(values_of(hs))); });
}

}  // namespace glassgrad
