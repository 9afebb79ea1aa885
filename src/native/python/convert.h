// Conversions between Python objects and the native types, shared by every binding (the
// python/bind_*.cpp files, declared in python/bindings.h and called from python/module.cpp): str
// to UTF-8 views, sequences to token ids and bytes, ids back to Python lists (IdInts), and the
// guards that release the GIL, pause the cyclic collector and poll for Ctrl-C around native work.
// Everything here is inline, and the process-wide tables (IdInts::instance(), the main thread's
// id) are statics of inline functions, so every translation unit shares one of each.
#pragma once
#include <Python.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
// The casters for standard containers, here so that every binding converts them alike.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "added_tokens/special_matcher.h"
#include "base/parallel.h"

namespace tokenforge::bindings {

namespace nb = nanobind;

struct Text {
  const uint8_t* data;
  size_t size;
};

// The UTF-8 of a str (cached by CPython inside the object). Lone surrogates raise
// UnicodeEncodeError, which the Python layer handles as tiktoken does.
inline Text utf8_of(nb::handle h) {
  if (!PyUnicode_Check(h.ptr()))
    throw nb::type_error(("expected str, got " + std::string(Py_TYPE(h.ptr())->tp_name)).c_str());
  Py_ssize_t size;
  const char* p = PyUnicode_AsUTF8AndSize(h.ptr(), &size);
  if (!p) throw nb::python_error();
  return {reinterpret_cast<const uint8_t*>(p), size_t(size)};
}

// The UTF-8 of each str of a sequence; with or_none, None items give {nullptr, 0}.
inline std::vector<Text> utf8_of_all(nb::handle seq, bool or_none = false) {
  nb::object fast = nb::steal(PySequence_Fast(seq.ptr(), "expected a list of str"));
  if (!fast) throw nb::python_error();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  std::vector<Text> texts;
  texts.reserve(n);
  for (Py_ssize_t i = 0; i < n; ++i)
    texts.push_back(or_none && items[i] == Py_None ? Text{nullptr, 0} : utf8_of(items[i]));
  return texts;
}

// The threads worth starting to encode `all` (base/parallel.h's threads_for), at most `threads`:
// a batch's thread count from tiktoken's default (8) is a ceiling, not a wish.
inline size_t threads_for_text(size_t threads, const std::vector<Text>& all) {
  size_t bytes = 0;
  for (const Text& t : all) bytes += t.size;
  return threads_for(threads, bytes, kTextPerThread);
}

// Keeps the cyclic garbage collector from running while it lives (GIL held), then puts back
// what was set.
class CollectorPaused {
 public:
  CollectorPaused() : was_enabled_(PyGC_Disable()) {}
  ~CollectorPaused() {
    if (was_enabled_) PyGC_Enable();
  }
  CollectorPaused(const CollectorPaused&) = delete;
  CollectorPaused& operator=(const CollectorPaused&) = delete;

 private:
  int was_enabled_;
};

// Python ints for token ids, made once per process and shared by every list returned. Like
// CPython's small ints they are never freed: each starts with a reference count far beyond
// any number of lists that could hold it, so putting one in a list needs no count update per
// item. Filling a list is then a load and a store per id, and can run on worker threads while
// this thread holds the GIL. Values not covered (offsets, ids past the table) get fresh ints.
class IdInts {
 public:
  // One table per process: an inline function's static is shared by every translation unit.
  static IdInts& instance() {
    static IdInts* one = new IdInts();  // never destroyed: the ints outlive every list
    return *one;
  }

  // Makes ints for 0..n-1 (GIL held).
  void cover(size_t n) {
    n = std::min(n, kMaxCovered);
    ints_.reserve(n);
    while (ints_.size() < n) {
      PyObject* o = PyLong_FromSize_t(ints_.size());
      if (!o) throw nb::python_error();
      Py_SET_REFCNT(o, Py_REFCNT(o) + kPermanent);  // a no-op for already immortal small ints
      ints_.push_back(o);
    }
  }

  // Stores values[0..n) into `list` (from PyList_New(n)); leaves NULL where a value is not
  // covered and returns how many. Makes no Python API calls, so any thread may run it while
  // the list is not yet visible to Python.
  size_t fill(PyObject* list, const uint32_t* values, size_t n) const {
    PyObject** items = reinterpret_cast<PyListObject*>(list)->ob_item;
    PyObject* const* ints = ints_.data();
    const size_t covered = ints_.size();
    size_t missing = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool ok = values[i] < covered;
      items[i] = ok ? ints[values[i]] : nullptr;
      missing += !ok;
    }
    return missing;
  }

  // Fresh ints where fill() left NULL (GIL held).
  static void fill_missing(PyObject* list, const uint32_t* values, size_t n) {
    PyObject** items = reinterpret_cast<PyListObject*>(list)->ob_item;
    for (size_t i = 0; i < n; ++i)
      if (!items[i] && !(items[i] = PyLong_FromUnsignedLong(values[i]))) throw nb::python_error();
  }

  // A new list of values (GIL held).
  nb::object list(const std::vector<uint32_t>& values) const {
    nb::object list = nb::steal(PyList_New(Py_ssize_t(values.size())));
    if (!list) throw nb::python_error();
    if (fill(list.ptr(), values.data(), values.size())) fill_missing(list.ptr(), values.data(), values.size());
    return list;
  }

  // A new list of get(0..n) (GIL held), without an intermediate array.
  template <class Get>
  nb::object list_of(size_t n, Get get) const {
    nb::object list = nb::steal(PyList_New(Py_ssize_t(n)));
    if (!list) throw nb::python_error();
    PyObject** items = reinterpret_cast<PyListObject*>(list.ptr())->ob_item;
    for (size_t i = 0; i < n; ++i) items[i] = int_of(get(i));
    return list;
  }

  // A reference to the int v (GIL held): the table's where covered (permanent, so taken
  // without a new reference), else a new one.
  PyObject* int_of(uint32_t v) const {
    if (v < ints_.size()) return ints_[v];
    PyObject* o = PyLong_FromUnsignedLong(v);
    if (!o) throw nb::python_error();
    return o;
  }

  // A new list of n (first, second) tuples of get(0..n) (GIL held): the ints from the table
  // where covered, each tuple untracked by the cyclic collector (it holds ints only, as
  // CPython's own collector would find), so a long list of offsets costs no collections.
  template <class Get>
  nb::object pair_list_of(size_t n, Get get) const {
    nb::object list = nb::steal(PyList_New(Py_ssize_t(n)));
    if (!list) throw nb::python_error();
    PyObject** items = reinterpret_cast<PyListObject*>(list.ptr())->ob_item;
    for (size_t i = 0; i < n; ++i) {
      const std::pair<uint32_t, uint32_t> v = get(i);
      PyObject* pair = PyTuple_New(2);
      if (!pair) throw nb::python_error();
      items[i] = pair;  // (the list owns it from here, whatever fails next)
      PyTuple_SET_ITEM(pair, 0, int_of(v.first));
      PyTuple_SET_ITEM(pair, 1, int_of(v.second));
      PyObject_GC_UnTrack(pair);
    }
    return list;
  }

  // New lists of values, filled on up to `threads` threads (GIL held throughout). The cyclic
  // collector waits while they are made: lists of ints hold no cycles, and a collection every
  // few hundred new lists would walk all the young ones each time.
  nb::object lists(const std::vector<std::vector<uint32_t>>& all, size_t threads) const {
    const CollectorPaused paused;
    nb::object outer = nb::steal(PyList_New(Py_ssize_t(all.size())));
    if (!outer) throw nb::python_error();
    std::vector<PyObject*> lists(all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      // On failure the lists made so far are owned by outer (NULL items are skipped on free).
      if (!(lists[i] = PyList_New(Py_ssize_t(all[i].size())))) throw nb::python_error();
      PyList_SET_ITEM(outer.ptr(), i, lists[i]);
    }
    std::vector<size_t> missing(all.size());
    size_t ids = 0;
    for (const std::vector<uint32_t>& one : all) ids += one.size();
    threads = threads_for(threads, ids, kIdsPerThread);
    parallel_for(all.size(), threads, [&](size_t i) { missing[i] = fill(lists[i], all[i].data(), all[i].size()); });
    for (size_t i = 0; i < all.size(); ++i)
      if (missing[i]) fill_missing(lists[i], all[i].data(), all[i].size());
    return outer;
  }

 private:
  static constexpr size_t kIdsPerThread = size_t(1) << 16;  // a thread's share of ids to put in lists
  static constexpr size_t kMaxCovered = size_t(1) << 22;
  static constexpr Py_ssize_t kPermanent = Py_ssize_t(1) << 40;
  std::vector<PyObject*> ints_;
};

// Token ids from a sequence of ints (or of objects with __index__: NumPy integers), each below
// `limit`. An id that is not an int raises TypeError; one out of range calls
// out_of_range(position, the item), which throws.
template <class OutOfRange>
std::vector<uint32_t> ids_of(nb::handle seq, uint64_t limit, OutOfRange out_of_range) {
  nb::object fast = nb::steal(PySequence_Fast(seq.ptr(), "expected a sequence of token ids"));
  if (!fast) throw nb::python_error();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  std::vector<uint32_t> ids(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(items[i], &overflow);
    if (v == -1 && PyErr_Occurred()) {
      if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw nb::python_error();
      PyErr_Clear();
      throw nb::type_error(("token ids must be ints, got " + std::string(Py_TYPE(items[i])->tp_name) + " at position " +
                            std::to_string(i))
                               .c_str());
    }
    if (overflow || v < 0 || uint64_t(v) >= limit) out_of_range(size_t(i), nb::handle(items[i]));
    ids[i] = uint32_t(v);
  }
  return ids;
}

// Token ids for a Tokenizer of `size` ids: one outside 0..size-1 raises ValueError naming it.
inline std::vector<uint32_t> vocabulary_ids(nb::handle seq, uint64_t size) {
  return ids_of(seq, size, [size](size_t, nb::handle item) {
    throw nb::value_error(("token id " + std::string(nb::str(item).c_str()) +
                           " is not in this tokenizer's vocabulary (0.." + std::to_string(size - 1) + ")")
                              .c_str());
  });
}

// Token ids for the byte-level encoder: an id past 32 bits raises KeyError, as tiktoken's.
inline std::vector<uint32_t> ids_of(nb::handle seq) {
  return ids_of(seq, 0xFFFFFFFFull, [](size_t i, nb::handle item) {
    throw nb::key_error(
        ("invalid token id " + std::string(nb::str(item).c_str()) + " at position " + std::to_string(i)).c_str());
  });
}

// A yes/no argument: True or False (or a NumPy bool), else TypeError naming it (nanobind's own
// message would only say "incompatible function arguments").
inline bool flag_of(nb::handle h, const char* name) {
  if (PyBool_Check(h.ptr())) return h.ptr() == Py_True;
  const std::string type = Py_TYPE(h.ptr())->tp_name;
  if (type == "numpy.bool" || type == "numpy.bool_") return PyObject_IsTrue(h.ptr()) == 1;
  throw nb::type_error((std::string(name) + " must be True or False, got " + type).c_str());
}

inline std::string bytes_of(nb::handle h, const char* what) {
  if (!PyBytes_Check(h.ptr()))
    throw nb::type_error((std::string(what) + " must be bytes, got " + Py_TYPE(h.ptr())->tp_name).c_str());
  return std::string(PyBytes_AS_STRING(h.ptr()), size_t(PyBytes_GET_SIZE(h.ptr())));
}

inline std::vector<std::string> token_list(nb::handle seq) {
  std::vector<std::string> out;
  for (nb::handle item : seq) out.push_back(bytes_of(item, "token"));
  return out;
}

// [(bytes, id), ...] -> pairs
inline std::vector<std::pair<std::string, uint32_t>> special_list(nb::handle seq) {
  std::vector<std::pair<std::string, uint32_t>> out;
  for (nb::handle item : seq) {
    nb::tuple pair = nb::cast<nb::tuple>(item);
    out.emplace_back(bytes_of(pair[0], "special token"), nb::cast<uint32_t>(pair[1]));
  }
  return out;
}

// Added tokens as Python gives them: [(utf-8 bytes, id), ...] or [(utf-8 bytes, id, flags), ...]
// (flags: added_tokens/special_matcher.h's AddedTokenFlags).
inline std::vector<AddedTokenSpec> added_token_list(nb::handle seq) {
  std::vector<AddedTokenSpec> out;
  for (nb::handle item : seq) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    if (t.size() != 2 && t.size() != 3) throw nb::value_error("an added token is (bytes, id) or (bytes, id, flags)");
    AddedTokenSpec spec{bytes_of(t[0], "added token"), nb::cast<uint32_t>(t[1]), 0};
    if (t.size() == 3) {
      const uint32_t flags = nb::cast<uint32_t>(t[2]);
      if (flags > 255 || (flags & kAddedLlama && flags & (kAddedPythonSpaces | kAddedStripPunctuation)))
        throw nb::value_error("an added token's flags are 0..255, with 64 not beside 32 or 128");
      spec.flags = uint8_t(flags);
    }
    out.push_back(std::move(spec));
  }
  return out;
}

inline nb::list bytes_list(const std::vector<std::string>& tokens) {
  nb::list out;
  for (const auto& t : tokens) out.append(nb::bytes(t.data(), t.size()));
  return out;
}

// Lets Ctrl-C (and any other Python signal handler) interrupt long native work that runs with
// the GIL released: the thread that called in, on Python's main thread, takes the GIL at most
// every kInterval to run the pending handlers; an exception from one (KeyboardInterrupt) stops
// the work (parallel_for stops every thread after its current item) and reaches the caller.
class SignalPoll {
 public:
  SignalPoll() : active_(PyThread_get_thread_ident() == main_thread_ident()) {}
  void operator()() {
    if (!active_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_) return;
    next_ = now + kInterval;
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
  }
  // Python's main thread (the only one that runs signal handlers), read once at import
  // (python/module.cpp); one for the process, as IdInts::instance().
  static unsigned long& main_thread_ident() {
    static unsigned long ident = 0;
    return ident;
  }

 private:
  static constexpr std::chrono::milliseconds kInterval{100};
  bool active_;
  std::chrono::steady_clock::time_point next_ = std::chrono::steady_clock::now() + kInterval;
};

// Releases the GIL while a text of `bytes` is encoded, unless the text is short: releasing and
// taking it back would then cost more than the time it gives other threads.
class GilReleasedFor {
 public:
  explicit GilReleasedFor(size_t bytes) : state_(bytes >= kShortText ? PyEval_SaveThread() : nullptr) {}
  ~GilReleasedFor() {
    if (state_) PyEval_RestoreThread(state_);
  }
  GilReleasedFor(const GilReleasedFor&) = delete;
  GilReleasedFor& operator=(const GilReleasedFor&) = delete;

 private:
  static constexpr size_t kShortText = 4096;
  PyThreadState* state_;
};

// The ids `encode(ids)` appends for a text of `bytes` (see GilReleasedFor), as a list. The ids
// go to a buffer per thread, reused: a fresh one per call costs page faults on every call.
template <class Encode>
nb::object ids_list(size_t bytes, Encode encode) {
  constexpr size_t kKeptIds = size_t(1) << 20;  // larger per-thread buffers are freed
  thread_local std::vector<uint32_t> ids;
  ids.clear();
  {
    GilReleasedFor nogil(bytes);
    encode(ids);
  }
  nb::object list = IdInts::instance().list(ids);
  if (ids.capacity() > kKeptIds) std::vector<uint32_t>().swap(ids);
  return list;
}

}  // namespace tokenforge::bindings
