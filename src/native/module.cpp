// Python bindings: coarse calls (a whole text or a whole batch), the GIL released inside.
#include <Python.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <type_traits>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bpe_trainer.h"
#include "encoder.h"
#include "spm_bpe.h"
#include "spm_decoder.h"
#include "spm_normalizer.h"
#include "spm_tokenizer.h"
#include "spm_unigram.h"
#include "tiktoken_file.h"
#include "spm_bpe_trainer.h"
#include "unigram_trainer.h"
#include "wordpiece_tokenizer.h"
#include "wordpiece_trainer.h"

namespace nb = nanobind;
using namespace tokenforge;

namespace {

struct Text {
  const uint8_t* data;
  size_t size;
};

// The UTF-8 of a str (cached by CPython inside the object). Lone surrogates raise
// UnicodeEncodeError, which the Python layer handles as tiktoken does.
Text utf8_of(nb::handle h) {
  if (!PyUnicode_Check(h.ptr()))
    throw nb::type_error(("expected str, got " + std::string(Py_TYPE(h.ptr())->tp_name)).c_str());
  Py_ssize_t size;
  const char* p = PyUnicode_AsUTF8AndSize(h.ptr(), &size);
  if (!p) throw nb::python_error();
  return {reinterpret_cast<const uint8_t*>(p), size_t(size)};
}

std::vector<Text> utf8_of_all(nb::handle seq) {
  nb::object fast = nb::steal(PySequence_Fast(seq.ptr(), "expected a list of str"));
  if (!fast) throw nb::python_error();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  std::vector<Text> texts;
  texts.reserve(n);
  for (Py_ssize_t i = 0; i < n; ++i) texts.push_back(utf8_of(items[i]));
  return texts;
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
    for (size_t i = 0; i < n; ++i) {
      const uint32_t v = get(i);
      if (v < ints_.size()) items[i] = ints_[v];
      else if (!(items[i] = PyLong_FromUnsignedLong(v))) throw nb::python_error();
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
    parallel_for(all.size(), threads, [&](size_t i) { missing[i] = fill(lists[i], all[i].data(), all[i].size()); });
    for (size_t i = 0; i < all.size(); ++i)
      if (missing[i]) fill_missing(lists[i], all[i].data(), all[i].size());
    return outer;
  }

 private:
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
      throw nb::type_error(("token ids must be ints, got " + std::string(Py_TYPE(items[i])->tp_name) +
                            " at position " + std::to_string(i)).c_str());
    }
    if (overflow || v < 0 || uint64_t(v) >= limit) out_of_range(size_t(i), nb::handle(items[i]));
    ids[i] = uint32_t(v);
  }
  return ids;
}

// Token ids for the byte-level encoder: an id past 32 bits raises KeyError, as tiktoken's.
std::vector<uint32_t> ids_of(nb::handle seq) {
  return ids_of(seq, 0xFFFFFFFFull, [](size_t i, nb::handle item) {
    throw nb::key_error(("invalid token id " + std::string(nb::str(item).c_str()) + " at position " +
                         std::to_string(i)).c_str());
  });
}

// A yes/no argument: True or False (or a NumPy bool), else TypeError naming it (nanobind's own
// message would only say "incompatible function arguments").
bool flag_of(nb::handle h, const char* name) {
  if (PyBool_Check(h.ptr())) return h.ptr() == Py_True;
  const std::string type = Py_TYPE(h.ptr())->tp_name;
  if (type == "numpy.bool" || type == "numpy.bool_") return PyObject_IsTrue(h.ptr()) == 1;
  throw nb::type_error((std::string(name) + " must be True or False, got " + type).c_str());
}

std::string bytes_of(nb::handle h, const char* what) {
  if (!PyBytes_Check(h.ptr()))
    throw nb::type_error((std::string(what) + " must be bytes, got " + Py_TYPE(h.ptr())->tp_name).c_str());
  return std::string(PyBytes_AS_STRING(h.ptr()), size_t(PyBytes_GET_SIZE(h.ptr())));
}

std::vector<std::string> token_list(nb::handle seq) {
  std::vector<std::string> out;
  for (nb::handle item : seq) out.push_back(bytes_of(item, "token"));
  return out;
}

// [(bytes, id), ...] -> pairs
std::vector<std::pair<std::string, uint32_t>> special_list(nb::handle seq) {
  std::vector<std::pair<std::string, uint32_t>> out;
  for (nb::handle item : seq) {
    nb::tuple pair = nb::cast<nb::tuple>(item);
    out.emplace_back(bytes_of(pair[0], "special token"), nb::cast<uint32_t>(pair[1]));
  }
  return out;
}

nb::list bytes_list(const std::vector<std::string>& tokens) {
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
  // Python's main thread (the only one that runs signal handlers), read once at import.
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

class PyEncoder {
 public:
  const Encoder& encoder() const { return enc_; }

  PyEncoder(std::vector<std::string> tokens, std::vector<std::pair<std::string, uint32_t>> specials,
            int pattern)
      : enc_(std::move(tokens), std::move(specials), pattern), ints_(IdInts::instance()) {
    ints_.cover(enc_.id_limit());
  }

  nb::object encode(nb::handle text, const SpecialMatcher* allowed) const {
    Text t = utf8_of(text);
    return ids_list(t.size, [&](std::vector<uint32_t>& ids) { enc_.encode(t.data, t.size, allowed, ids); });
  }

  nb::object encode_batch(nb::handle texts, const SpecialMatcher* allowed, size_t threads) const {
    std::vector<Text> all = utf8_of_all(texts);
    std::vector<std::vector<uint32_t>> out(all.size());
    {
      nb::gil_scoped_release nogil;
      parallel_for(
          all.size(), threads, [&](size_t i) { enc_.encode(all[i].data, all[i].size, allowed, out[i]); },
          SignalPoll());
    }
    return ints_.lists(out, threads);
  }

  nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>> encode_to_numpy(nb::handle text,
                                                                const SpecialMatcher* allowed) const {
    Text t = utf8_of(text);
    auto* ids = new std::vector<uint32_t>();
    {
      nb::gil_scoped_release nogil;
      try {
        enc_.encode(t.data, t.size, allowed, *ids);
      } catch (...) {
        delete ids;
        throw;
      }
    }
    nb::capsule owner(ids, [](void* p) noexcept { delete static_cast<std::vector<uint32_t>*>(p); });
    return nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>>(ids->data(), {ids->size()}, owner);
  }

  // ids plus, for each token, the index of the character holding its first byte and the byte
  // offset of that first byte: three bytes objects of native uint32 values (4 bytes a token: a
  // list costs 40 for each offset, which for a text of 200 MB is 9 GB), which the Python layer
  // wraps as read-only sequences (tokenforge.packed.PackedInts).
  nb::tuple encode_with_offsets(nb::handle text, const SpecialMatcher* allowed) const {
    Text t = utf8_of(text);
    std::vector<uint32_t> ids;
    {
      GilReleasedFor nogil(t.size);
      enc_.encode(t.data, t.size, allowed, ids);
    }
    const Py_ssize_t size = Py_ssize_t(ids.size() * sizeof(uint32_t));
    nb::object out[3];
    for (nb::object& o : out)
      if (!(o = nb::steal(PyBytes_FromStringAndSize(nullptr, size)))) throw nb::python_error();
    uint32_t* id_out = reinterpret_cast<uint32_t*>(PyBytes_AS_STRING(out[0].ptr()));
    uint32_t* chars = reinterpret_cast<uint32_t*>(PyBytes_AS_STRING(out[1].ptr()));
    uint32_t* bytes = reinterpret_cast<uint32_t*>(PyBytes_AS_STRING(out[2].ptr()));
    {
      GilReleasedFor nogil(t.size);
      if (!ids.empty()) std::memcpy(id_out, ids.data(), size_t(size));
      size_t byte = 0, chars_before = 0, counted_to = 0;
      for (size_t i = 0; i < ids.size(); ++i) {
        for (; counted_to <= byte && counted_to < t.size; ++counted_to)
          chars_before += (t.data[counted_to] & 0xC0) != 0x80;
        chars[i] = uint32_t(chars_before ? chars_before - 1 : 0);
        bytes[i] = uint32_t(byte);
        byte += enc_.token_bytes(ids[i])->size();
      }
    }
    return nb::make_tuple(out[0], out[1], out[2]);
  }

  // Pieces already split by the caller's pattern (for patterns without a built-in scanner).
  nb::object encode_pieces(nb::handle pieces) const {
    std::vector<std::pair<const uint8_t*, size_t>> all;
    for (const Text& t : utf8_of_all(pieces)) all.emplace_back(t.data, t.size);
    std::vector<uint32_t> ids;
    {
      nb::gil_scoped_release nogil;
      enc_.encode_pieces(all, ids);
    }
    return ints_.list(ids);
  }

  nb::bytes decode_bytes(nb::handle ids_seq) const {
    std::vector<uint32_t> ids = ids_of(ids_seq);
    std::string out;
    size_t bad = ids.size();  // the first id without a token
    {
      GilReleasedFor nogil(ids.size() * 4);
      for (size_t i = 0; i < ids.size(); ++i) {
        const std::string* b = enc_.token_bytes(ids[i]);
        if (!b) {
          bad = i;
          break;
        }
        out += *b;
      }
    }
    if (bad < ids.size())
      throw nb::key_error(("invalid token id " + std::to_string(ids[bad]) + " at position " + std::to_string(bad)).c_str());
    return nb::bytes(out.data(), out.size());
  }

  nb::object token_bytes(uint32_t id) const {
    const std::string* b = enc_.token_bytes(id);
    if (!b) return nb::none();
    return nb::bytes(b->data(), b->size());
  }

  // Id of exactly these bytes as one ordinary token, or None.
  nb::object find(nb::bytes b) const {
    const uint32_t id = enc_.model().find(reinterpret_cast<const uint8_t*>(b.c_str()), b.size());
    if (id == kNoToken) return nb::none();
    return nb::int_(id);
  }

  nb::list ordinary_tokens() const { return bytes_list(enc_.model().tokens()); }

  size_t rank_count() const { return enc_.model().size(); }
  size_t token_count() const {
    size_t n = 0;
    for (const auto& t : enc_.model().tokens()) n += !t.empty();
    return n;
  }
  bool has_scanner() const { return enc_.has_scanner(); }

 private:
  Encoder enc_;
  IdInts& ints_;
};


// Template pieces from Python: [(is_sequence, sequence, type_id, [special ids]), ...].
std::vector<TemplatePiece> template_of(nb::handle seq) {
  std::vector<TemplatePiece> out;
  for (nb::handle item : seq) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    out.push_back(TemplatePiece{nb::cast<bool>(t[0]), nb::cast<uint32_t>(t[1]), nb::cast<uint32_t>(t[2]),
                                nb::cast<std::vector<uint32_t>>(t[3])});
  }
  return out;
}

// Token names for Encoded.tokens: the vocabulary by id, and the padding token's text.
struct TokenNames {
  std::vector<std::string> by_id;
  std::string pad;
};

// An Encoded as Python sees it: the rows, and the names to show its tokens with.
struct PyEncoded {
  Encoded e;
  std::shared_ptr<const TokenNames> names;
};

// One field of every row as a list of ints.
template <class Field>
nb::object row_ints(const Encoded& e, Field Row::*field) {
  const Row* rows = e.rows.data();
  return IdInts::instance().list_of(e.rows.size(), [rows, field](size_t i) { return uint32_t(rows[i].*field); });
}

// A native Tokenizer pipeline (WordPiece, sentencepiece) as Python sees it: encode with the
// special-token policy, batches on threads, the post-processor's settings and the token names.
template <class Pipeline>
class PyPipeline {
 public:
  // names: the text shown for each id. default_allows_all: whether the default policy is
  // allowed_special="all" (HF matches added tokens) or () (sentencepiece: special text is text).
  template <class... Args>
  PyPipeline(std::vector<std::string> names, bool default_allows_all, Args&&... pipeline_args)
      : tok_(std::forward<Args>(pipeline_args)...),
        names_(std::make_shared<TokenNames>(TokenNames{std::move(names), ""})),
        ints_(IdInts::instance()),
        default_allows_all_(default_allows_all) {
    ints_.cover(names_->by_id.size());
  }
  // Settings are immutable snapshots: a change builds a new post-processor (or name table) and
  // swaps it in; an encode takes the snapshots once, with the GIL held, and keeps them alive to
  // the end. So a setting changed while other threads encode never shows half-made (a lock would
  // serialize every encode behind it; a copy per change is cheap, changes are rare).
  std::shared_ptr<const PostProcessor> post() const { return std::atomic_load(&post_); }
  std::shared_ptr<const TokenNames> names() const { return std::atomic_load(&names_); }

  // Applies `change` to a copy of the post-processor, checks the ids it names, then swaps it in.
  template <class Change>
  void change_post(Change change) {
    auto next = std::make_shared<PostProcessor>(*post());
    change(*next);
    const size_t n = names()->by_id.size();
    auto check = [n](uint32_t id, const char* what) {
      if (id >= n)
        throw nb::value_error((std::string(what) + " id " + std::to_string(id) + " is not in the vocabulary (0.." +
                               std::to_string(n - 1) + ")").c_str());
    };
    auto check_type = [](uint32_t type_id) {
      if (type_id > kMaxTypeId)
        throw nb::value_error(("type id " + std::to_string(type_id) + " is past the largest supported, " +
                               std::to_string(kMaxTypeId)).c_str());
    };
    for (const auto* pieces : {&next->single, &next->pair})
      for (const TemplatePiece& p : *pieces) {
        check_type(p.type_id);
        for (uint32_t id : p.special_ids) check(id, "special token");
      }
    if (next->pad) {
      check(next->padding.pad_id, "padding");
      check_type(next->padding.pad_type_id);
    }
    std::atomic_store(&post_, std::shared_ptr<const PostProcessor>(std::move(next)));
  }
  void set_pad_token(const std::string& pad) {
    std::atomic_store(&names_, std::shared_ptr<const TokenNames>(std::make_shared<TokenNames>(TokenNames{names()->by_id, pad})));
  }

  // The special-token policy: the default (see default_allows_all, none disallowed) uses
  // default_added; any other asks the Python resolver (allowed, disallowed, texts) -> matcher or
  // None, which also raises for disallowed tokens found in texts.
  void set_policy(nb::object default_added, nb::object resolver) {
    default_added_ = std::move(default_added);
    resolver_ = std::move(resolver);
  }
  // The matcher for a call (kept alive by `keep`).
  const SpecialMatcher* added_for(nb::handle allowed, nb::handle disallowed, nb::handle texts, nb::object& keep) const {
    const bool default_allowed =
        default_allows_all_
            ? PyUnicode_Check(allowed.ptr()) && PyUnicode_CompareWithASCIIString(allowed.ptr(), "all") == 0
            : PyTuple_Check(allowed.ptr()) && PyTuple_GET_SIZE(allowed.ptr()) == 0;
    const bool default_policy =
        default_allowed && PyTuple_Check(disallowed.ptr()) && PyTuple_GET_SIZE(disallowed.ptr()) == 0;
    keep = default_policy ? default_added_ : resolver_(allowed, disallowed, texts);
    return keep.is_none() ? nullptr : nb::cast<const SpecialMatcher*>(keep);
  }

  PyEncoded encode_with_policy(nb::handle text, nb::handle pair, bool add_special, nb::handle allowed,
                               nb::handle disallowed) const {
    nb::object keep;
    const SpecialMatcher* added = added_for(allowed, disallowed, nb::make_tuple(text, pair), keep);
    return encode(text, pair, add_special, added);
  }

  PyEncoded encode(nb::handle text, nb::handle pair, bool add_special, const SpecialMatcher* added) const {
    const Text a = utf8_of(text);
    const bool has_pair = !pair.is_none();
    const Text b = has_pair ? utf8_of(pair) : Text{nullptr, 0};
    std::shared_ptr<const PostProcessor> post = this->post();
    std::shared_ptr<const TokenNames> names = this->names();
    GilReleasedFor nogil(a.size + b.size);
    return PyEncoded{tok_.encode(a.data, a.size, b.data, b.size, has_pair, add_special, added, *post), std::move(names)};
  }

  std::vector<PyEncoded> encode_batch(nb::handle texts, nb::handle pairs, bool add_special,
                                      const SpecialMatcher* added, size_t threads) const {
    const std::vector<Text> a = utf8_of_all(texts);
    const bool has_pairs = !pairs.is_none();
    const std::vector<Text> b = has_pairs ? utf8_of_all(pairs) : std::vector<Text>();
    if (has_pairs && b.size() != a.size())
      throw nb::value_error(("got " + std::to_string(a.size()) + " texts but " + std::to_string(b.size()) +
                             " pairs").c_str());
    std::vector<Encoded> encoded;
    std::vector<PyEncoded> out(a.size());
    const std::shared_ptr<const PostProcessor> snapshot = this->post();
    const std::shared_ptr<const TokenNames> names = this->names();
    const PostProcessor& post = *snapshot;
    nb::gil_scoped_release nogil;
    encoded.resize(a.size());
    parallel_for(
        a.size(), threads,
        [&](size_t i) {
          encoded[i] = tok_.encode(a[i].data, a[i].size, has_pairs ? b[i].data : nullptr, has_pairs ? b[i].size : 0,
                                   has_pairs, add_special, added, post);
        },
        SignalPoll());
    for (size_t i = 0; i < out.size(); ++i) out[i] = PyEncoded{std::move(encoded[i]), names};
    if (post.pad) {
      size_t longest = 0;
      for (const PyEncoded& o : out) longest = std::max(longest, o.e.size());
      for (PyEncoded& o : out) post.pad_to(o.e, longest);
    }
    return out;
  }

 protected:
  Pipeline tok_;
  std::shared_ptr<const PostProcessor> post_ = std::make_shared<PostProcessor>();
  std::shared_ptr<const TokenNames> names_;
  IdInts& ints_;
  bool default_allows_all_;
  nb::object default_added_ = nb::none(), resolver_ = nb::none();
};

class PyWordPiece : public PyPipeline<WordPieceTokenizer> {
 public:
  PyWordPiece(const std::vector<std::string>& tokens, uint32_t unk_id, const std::string& continuation_prefix,
              const std::string& word_prefix, size_t max_chars, const TextRules& rules, std::vector<std::string> names)
      : PyPipeline(std::move(names), true, WordPieceModel(tokens, unk_id, continuation_prefix, word_prefix, max_chars),
                   rules) {}

  // Counts the words of texts into `counts`, texts spread over threads.
  void count_words(nb::handle texts, ChunkCounts& counts, size_t threads) const {
    const std::vector<Text> all = utf8_of_all(texts);
    nb::gil_scoped_release nogil;
    threads = std::max<size_t>(1, std::min(threads, all.size()));
    std::vector<ChunkCounts> parts(threads);
    parallel_for(threads, threads, [&](size_t part) {
      for (size_t i = part; i < all.size(); i += threads) tok_.count_words(all[i].data, all[i].size, parts[part]);
    });
    for (ChunkCounts& part : parts)
      for (const auto& [word, n] : part) counts[word] += n;
  }

  std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> words(nb::handle text,
                                                                          const SpecialMatcher* added) const {
    const Text t = utf8_of(text);
    nb::gil_scoped_release nogil;
    return tok_.words(t.data, t.size, added);
  }
};

// A sentencepiece model object as SpmEncoder calls it (the binding keeps the model alive), and
// what it reads: the BPE model reads escaped input as it is, and both read spaces as "▁" (the
// Unigram model where "▁" is a piece).
template <class Model>
SpmEncoder::Model model_function(const Model& model) {
  return [&model](const uint8_t* s, size_t n, SpmEscaping how, std::vector<uint32_t>& ids,
                  std::vector<uint32_t>* lengths) { model.encode(s, n, ids, lengths, how); };
}
SpmReads reads(const SpmBpeModel&) { return {true, true}; }
SpmReads reads(const SpmUnigramModel& model) { return {false, model.reads_spaces_escaped()}; }

// sentencepiece's pipeline over a model object and a normalizer object (both kept alive by the
// binding), with its decoder.
class PySpmTokenizer : public PyPipeline<SpmPipeline> {
 public:
  template <class Model>
  PySpmTokenizer(const SpmNormalizer& normalizer, const Model& model, SpmDecoder::Options options)
      : PyPipeline(pieces_of(model.vocab()), false, normalizer, model_function(model), reads(model)),
        decoder_(model.vocab(), std::move(options)) {}

  nb::str decode(nb::handle ids_seq, bool skip_control) const {
    const size_t size = names_->by_id.size();
    std::vector<uint32_t> ids = ids_of(ids_seq, size, [size](size_t, nb::handle item) {
      throw nb::value_error(("token id " + std::string(nb::str(item).c_str()) +
                             " is not in this tokenizer's vocabulary (0.." + std::to_string(size - 1) + ")").c_str());
    });
    std::string text;
    {
      GilReleasedFor nogil(ids.size() * 4);
      text = decoder_.decode(ids.data(), ids.size(), skip_control);
    }
    return nb::str(text.data(), text.size());
  }

 private:
  static std::vector<std::string> pieces_of(const SpmVocab& vocab) {
    std::vector<std::string> pieces;
    pieces.reserve(vocab.size());
    for (uint32_t id = 0; id < vocab.size(); ++id) pieces.push_back(vocab.text(id));
    return pieces;
  }

  SpmDecoder decoder_;
};

// SpmTokenizer(normalizer, model, ...) for one model class (BPE, Unigram).
template <class Model>
void def_spm_init(nb::class_<PySpmTokenizer>& c) {
  c.def(
      "__init__",
      [](PySpmTokenizer* self, const SpmNormalizer& normalizer, const Model& model, std::string unk_surface,
         bool add_dummy_prefix, bool remove_extra_whitespaces) {
        new (self) PySpmTokenizer(normalizer, model,
                                  SpmDecoder::Options{std::move(unk_surface), add_dummy_prefix, remove_extra_whitespaces});
      },
      nb::arg("normalizer"), nb::arg("model"), nb::arg("unk_surface"), nb::arg("add_dummy_prefix"),
      nb::arg("remove_extra_whitespaces"), nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>(),
      "unk_surface, add_dummy_prefix, remove_extra_whitespaces: the model's, for decoding.");
}

// The methods every pipeline class shares; `default_allowed` is allowed_special's default.
template <class Py>
void bind_pipeline(nb::class_<Py>& c, nb::object default_allowed, const char* encode_doc) {
  c.def("set_pad_token", [](Py& t, const std::string& pad) { t.set_pad_token(pad); }, nb::arg("pad_token"))
      .def(
          "set_template",
          [](Py& t, nb::handle single, nb::handle pair) {
            std::vector<TemplatePiece> one = template_of(single), two = template_of(pair);
            t.change_post([&](PostProcessor& p) {
              p.single = std::move(one);
              p.pair = std::move(two);
            });
          },
          nb::arg("single"), nb::arg("pair"),
          "Pieces [(is_sequence, sequence 0|1, type_id, [special ids])] for one and for two texts.")
      .def(
          "set_truncation",
          [](Py& t, bool enabled, size_t max_length, size_t stride, int strategy, bool from_left) {
            t.change_post([&](PostProcessor& p) {
              p.truncate = enabled;
              p.truncation = TruncationParams{max_length, stride, strategy, from_left};
            });
          },
          nb::arg("enabled"), nb::arg("max_length") = 0, nb::arg("stride") = 0, nb::arg("strategy") = 0,
          nb::arg("from_left") = false, "strategy: 0 longest first, 1 only first, 2 only second.")
      .def(
          "set_padding",
          [](Py& t, bool enabled, size_t length, size_t multiple_of, uint32_t pad_id, uint32_t pad_type_id,
             bool left) {
            t.change_post([&](PostProcessor& p) {
              p.pad = enabled;
              p.padding = PaddingParams{length, multiple_of, pad_id, pad_type_id, left};
            });
          },
          nb::arg("enabled"), nb::arg("length") = 0, nb::arg("multiple_of") = 0, nb::arg("pad_id") = 0,
          nb::arg("pad_type_id") = 0, nb::arg("left") = false, "length 0: the longest of a batch.")
      .def("added_tokens", [](Py& t, bool pair) { return t.post()->added(pair); }, nb::arg("pair"))
      .def("set_policy", [](Py& t, nb::object added, nb::object resolver) { t.set_policy(added, resolver); },
           nb::arg("default_added").none(), nb::arg("resolver"))
      .def("encode",
           [](const Py& t, nb::handle text, nb::handle pair, nb::handle add_special, nb::handle allowed,
              nb::handle disallowed) {
             return t.encode_with_policy(text, pair, flag_of(add_special, "add_special_tokens"), allowed, disallowed);
           },
           nb::arg("sequence"), nb::arg("pair").none() = nb::none(),
           nb::arg("add_special_tokens") = true, nb::kw_only(), nb::arg("allowed_special") = default_allowed,
           nb::arg("disallowed_special") = nb::tuple(), encode_doc)
      .def("encode_batch",
           [](const Py& t, nb::handle texts, nb::handle pairs, bool add_special, const SpecialMatcher* added,
              size_t threads) { return t.encode_batch(texts, pairs, add_special, added, threads); },
           nb::arg("texts"), nb::arg("pairs").none(),
           nb::arg("add_special_tokens"), nb::arg("added").none(), nb::arg("threads"));
}

// Runs f with a random generator: a fresh one seeded with `seed`, or else this thread's own,
// seeded once from std::random_device.
template <class F>
void with_rng(std::optional<uint64_t> seed, F&& f) {
  if (seed) {
    std::mt19937_64 rng(*seed);
    f(rng);
    return;
  }
  thread_local std::mt19937_64 rng(std::random_device{}());
  f(rng);
}

// A sentencepiece model class, built from the vocabulary's pieces, scores and types; SpmEncoder
// and SpmTokenizer encode with it.
template <class Model>
nb::class_<Model> bind_spm_model(nb::module_& m, const char* name, const char* doc) {
  return nb::class_<Model>(m, name, doc)
      .def(
          "__init__",
          [](Model* self, std::vector<std::string> pieces, std::vector<float> scores, std::vector<uint8_t> types,
             bool byte_fallback) {
            const size_t n = pieces.size();
            new (self) Model(SpmVocab(std::move(pieces), std::move(scores), std::move(types), byte_fallback));
            IdInts::instance().cover(n);
          },
          nb::arg("pieces"), nb::arg("scores"), nb::arg("types"), nb::arg("byte_fallback"));
}

// SpmEncoder(normalizer, model) for one model class (BPE, Unigram); both are kept alive.
template <class Model>
void def_spm_encoder_init(nb::class_<SpmEncoder>& c) {
  c.def(
      "__init__",
      [](SpmEncoder* self, const SpmNormalizer& normalizer, const Model& model) {
        new (self) SpmEncoder(normalizer, model_function(model), reads(model));
      },
      nb::arg("normalizer"), nb::arg("model"), nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>());
}

// A sentencepiece trainer class over a training corpus: built from the normalizer spec, the
// special pieces to cut out of the text (user-defined ones also pass the normalizer unchanged)
// and the piece rules; add_sentences feeds it.
template <class Trainer>
nb::class_<Trainer> bind_spm_trainer(nb::module_& m, const char* name, const char* doc) {
  return nb::class_<Trainer>(m, name, doc)
      .def(
          "__init__",
          [](Trainer* self, nb::bytes charsmap, bool add_dummy_prefix, bool remove_extra_whitespaces,
             std::vector<std::string> meta_pieces, std::vector<std::string> user_defined, int max_piece_length, bool split_by_whitespace,
             bool split_by_unicode_script, bool split_by_number, bool split_digits, bool allow_whitespace_only_pieces,
             double character_coverage, size_t threads, nb::kwargs options) {
            SpmNormalizer normalizer(std::string_view(charsmap.c_str(), charsmap.size()),
                                     {add_dummy_prefix, remove_extra_whitespaces, true, false}, std::move(user_defined));
            SpmTrainingCorpus::Options o;
            o.rules = {max_piece_length, split_by_whitespace, split_by_unicode_script, split_by_number, split_digits,
                       allow_whitespace_only_pieces};
            o.character_coverage = character_coverage;
            o.threads = std::max<size_t>(1, threads);
            SpmTrainingCorpus corpus(std::move(normalizer), meta_pieces, o);
            if constexpr (std::is_same_v<Trainer, UnigramTrainer>) {
              UnigramTrainer::Options u;
              u.seed_size = nb::cast<size_t>(options["seed_size"]);
              u.shrinking_factor = nb::cast<double>(options["shrinking_factor"]);
              new (self) UnigramTrainer(std::move(corpus), u);
            } else {
              if (nb::len(options)) throw std::invalid_argument("the BPE trainer takes no further options");
              new (self) Trainer(std::move(corpus));
            }
          },
          nb::arg("precompiled_charsmap"), nb::arg("add_dummy_prefix"), nb::arg("remove_extra_whitespaces"),
          nb::arg("meta_pieces"), nb::arg("user_defined_symbols"), nb::arg("max_piece_length"),
          nb::arg("split_by_whitespace"), nb::arg("split_by_unicode_script"), nb::arg("split_by_number"),
          nb::arg("split_digits"), nb::arg("allow_whitespace_only_pieces"), nb::arg("character_coverage"),
          nb::arg("threads"), nb::arg("options"),
          "Unigram takes seed_size= and shrinking_factor= as well.")
      .def(
          "add_sentences",
          [](Trainer& t, nb::list lines) {
            std::vector<std::string_view> raw;
            raw.reserve(lines.size());
            for (nb::handle line : lines) {
              const Text s = utf8_of(line);
              raw.emplace_back(reinterpret_cast<const char*>(s.data), s.size);
            }
            nb::gil_scoped_release nogil;
            t.corpus().add_sentences(raw);
          },
          nb::arg("lines"), "Normalizes and keeps raw training sentences.")
      .def_prop_ro("sentence_count", [](Trainer& t) { return t.corpus().sentence_count(); });
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "tokenforge's native core: pre-tokenizers and the BPE merge.";
  m.attr("UNICODE_VERSION") = TOKENFORGE_UNICODE_VERSION;
  m.attr("MAX_TYPE_ID") = kMaxTypeId;
  SignalPoll::main_thread_ident() =
      nb::cast<unsigned long>(nb::module_::import_("threading").attr("main_thread")().attr("ident"));

  nb::class_<SpecialMatcher>(m, "SpecialMatcher")
      .def("__init__",
           [](SpecialMatcher* self, nb::handle tokens) { new (self) SpecialMatcher(special_list(tokens)); },
           nb::arg("tokens"), "tokens: [(utf-8 bytes, id), ...]")
      .def("find",
           [](const SpecialMatcher& self, nb::handle text) -> nb::object {
             Text t = utf8_of(text);
             SpecialMatch match = self.find(t.data, t.size, 0);
             if (match.pos >= t.size) return nb::none();
             return nb::bytes(reinterpret_cast<const char*>(t.data + match.pos), match.len);
           },
           "The first special-token text found in `text` (as UTF-8 bytes), or None.")
      .def("split",
           [](const SpecialMatcher& self, nb::handle text) {
             // [str, id, str, id, ..., str]: the text around each special token, in one pass.
             Text t = utf8_of(text);
             nb::list out;
             auto text_part = [&](size_t from, size_t to) {
               PyObject* part = PyUnicode_DecodeUTF8(reinterpret_cast<const char*>(t.data + from),
                                                     Py_ssize_t(to - from), "strict");
               if (!part) throw nb::python_error();
               out.append(nb::steal(part));
             };
             size_t start = 0;
             for (SpecialMatch m; (m = self.find(t.data, t.size, start)).pos < t.size;) {
               text_part(start, m.pos);
               out.append(nb::int_(m.id));
               start = m.pos + m.len;
             }
             text_part(start, t.size);
             return out;
           },
           nb::arg("text"), "Split `text` around special tokens: [str, id, str, ..., str].");

  nb::class_<PyEncoder>(m, "Encoder")
      .def("__init__",
           [](PyEncoder* self, nb::handle tokens, nb::handle specials, int pattern) {
             new (self) PyEncoder(token_list(tokens), special_list(specials), pattern);
           },
           nb::arg("tokens"), nb::arg("specials"), nb::arg("pattern"),
           "tokens: bytes indexed by rank (b'' for unused); specials: [(bytes, id)]; pattern: "
           "native scanner id or -1")
      .def_static("from_tiktoken",
                  [](nb::bytes data, uint64_t rank_limit, nb::handle specials, int pattern) {
                    std::string_view view(data.c_str(), data.size());
                    return new PyEncoder(parse_tiktoken(view, rank_limit), special_list(specials), pattern);
                  },
                  nb::arg("data"), nb::arg("rank_limit"), nb::arg("specials"), nb::arg("pattern"),
                  "Build straight from a .tiktoken file's bytes (no Python objects per token).")
      .def("encode", &PyEncoder::encode, nb::arg("text"), nb::arg("allowed").none())
      .def("encode_batch", &PyEncoder::encode_batch, nb::arg("texts"), nb::arg("allowed").none(),
           nb::arg("threads"))
      .def("encode_to_numpy", &PyEncoder::encode_to_numpy, nb::arg("text"), nb::arg("allowed").none())
      .def("encode_with_offsets", &PyEncoder::encode_with_offsets, nb::arg("text"),
           nb::arg("allowed").none())
      .def("encode_pieces", &PyEncoder::encode_pieces, nb::arg("pieces"))
      .def("decode_bytes", &PyEncoder::decode_bytes, nb::arg("ids"))
      .def("token_bytes", &PyEncoder::token_bytes, nb::arg("id"))
      .def("find", &PyEncoder::find, nb::arg("token"))
      .def("ordinary_tokens", &PyEncoder::ordinary_tokens)
      .def_prop_ro("rank_count", &PyEncoder::rank_count, "one more than the largest ordinary rank")
      .def_prop_ro("token_count", &PyEncoder::token_count, "number of ordinary tokens")
      .def_prop_ro("has_scanner", &PyEncoder::has_scanner);

  m.def("char_classes",
        [](uint32_t first, uint32_t last) {
          std::string out;
          for (uint32_t cp = first; cp <= last; ++cp) out.push_back(char(class_of(cp)));
          return nb::bytes(out.data(), out.size());
        },
        nb::arg("first"), nb::arg("last"),
        "Class flags (1 letter, 2 number, 4 space, 8 o200k-upper, 16 o200k-lower) of code points "
        "first..last, for testing the generated tables.");

  nb::class_<ChunkCounts>(m, "ChunkCounts", "The chunk table of a training corpus: {chunk bytes: count}.")
      .def(nb::init<>())
      .def(
          "add_texts",
          [](ChunkCounts& counts, nb::handle texts, int pattern, size_t threads) {
            std::vector<Text> all = utf8_of_all(texts);
            std::vector<std::pair<const uint8_t*, size_t>> views;
            for (const Text& t : all) views.emplace_back(t.data, t.size);
            nb::gil_scoped_release nogil;
            count_chunks(views, Pattern(pattern), threads, counts);
          },
          nb::arg("texts"), nb::arg("pattern"), nb::arg("threads"),
          "Counts the pieces the built-in scanner `pattern` cuts each text into, on threads.")
      .def(
          "add",
          [](ChunkCounts& counts, nb::bytes chunk, int64_t n) {
            counts[std::string(chunk.c_str(), chunk.size())] += n;
          },
          nb::arg("chunk"), nb::arg("count") = 1)
      .def("__len__", [](const ChunkCounts& counts) { return counts.size(); })
      .def("memory", &table_memory, "Estimated heap bytes the table takes.")
      .def(
          "items",
          [](const ChunkCounts& counts) {
            std::vector<std::pair<nb::bytes, int64_t>> out;
            for (const auto& [chunk, n] : counts) out.emplace_back(nb::bytes(chunk.data(), chunk.size()), n);
            return out;
          },
          "[(chunk bytes, count), ...] in no particular order.")
      .def("memory_by_count", &memory_by_count,
           "{count: (chunks seen exactly that many times, table bytes they take)}.")
      .def(
          "spill",
          [](ChunkCounts& counts, const std::vector<std::string>& paths) {
            nb::gil_scoped_release nogil;
            spill_chunks(counts, paths);
          },
          nb::arg("paths"), "Appends the table to partition files split by hash, then empties it.")
      .def(
          "read_spilled",
          [](ChunkCounts& counts, const std::string& path, int64_t min_count) {
            nb::gil_scoped_release nogil;
            read_spilled(counts, path, min_count);
          },
          nb::arg("path"), nb::arg("min_count") = 1,
          "Adds a spill file's chunks seen at least min_count times (in that file) to the table.");

  nb::class_<BpeTrainer>(m, "BpeTrainer")
      .def(
          "__init__",
          [](BpeTrainer* self, const ChunkCounts& chunks, const PyEncoder* base, uint32_t first_id) {
            nb::gil_scoped_release nogil;
            new (self) BpeTrainer(chunks, base ? &base->encoder() : nullptr, first_id);
          },
          nb::arg("chunks"), nb::arg("base").none() = nb::none(), nb::arg("first_id") = 256,
          "A trainer over `chunks`; with `base` (an Encoder), training continues from its vocabulary "
          "and new ids start at `first_id`.")
      .def(
          "train",
          [](BpeTrainer& t, size_t merges, int64_t min_frequency, size_t max_length) {
            nb::gil_scoped_release nogil;
            return t.train(merges, min_frequency, max_length);
          },
          nb::arg("merges"), nb::arg("min_frequency"), nb::arg("max_length") = 0,
          "Up to `merges` more merges, none making a token over max_length bytes (0: any); "
          "[(left id, right id), ...], merge k of the training making id first_id + k.");

  nb::class_<WordPieceTrainer>(m, "WordPieceTrainer")
      .def_static(
          "from_words",
          [](const ChunkCounts& words, const std::string& prefix, uint32_t first_id, size_t max_chars) {
            std::vector<std::string> alphabet;
            WordPieceTrainer* t;
            {
              nb::gil_scoped_release nogil;
              t = new WordPieceTrainer(WordPieceTrainer::from_words(words, prefix, first_id, alphabet, max_chars));
            }
            return std::make_pair(t, alphabet);
          },
          nb::arg("words"), nb::arg("prefix"), nb::arg("first_id"), nb::arg("max_chars") = 0,
          nb::rv_policy::take_ownership,
          "(trainer, alphabet): the alphabet (word-initial characters, then later ones with the prefix) "
          "gets ids from first_id; words over max_chars characters (0: any) are left out.")
      .def(
          "train",
          [](WordPieceTrainer& t, size_t merges, int64_t min_frequency) {
            nb::gil_scoped_release nogil;
            return t.train(merges, min_frequency);
          },
          nb::arg("merges"), nb::arg("min_frequency") = 1,
          "Up to `merges` more merges: [(left id, right id), ...], each making the next id.");

  nb::class_<SpmNormalizer>(m, "SpmNormalizer", "sentencepiece's normalizer from a model's normalizer spec.")
      .def(
          "__init__",
          [](SpmNormalizer* self, nb::bytes charsmap, bool add_dummy_prefix, bool remove_extra_whitespaces,
             bool escape_whitespaces, bool whitespace_as_suffix, std::vector<std::string> user_defined) {
            new (self) SpmNormalizer(std::string_view(charsmap.c_str(), charsmap.size()),
                                     {add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces,
                                      whitespace_as_suffix},
                                     std::move(user_defined));
          },
          nb::arg("precompiled_charsmap"), nb::arg("add_dummy_prefix"), nb::arg("remove_extra_whitespaces"),
          nb::arg("escape_whitespaces"), nb::arg("treat_whitespace_as_suffix"),
          nb::arg("user_defined_symbols") = std::vector<std::string>(),
          "user_defined_symbols pass through unchanged, as sentencepiece's prefix matcher does.")
      .def(
          "normalize",
          [](const SpmNormalizer& n, nb::handle text) {
            const Text t = utf8_of(text);
            std::string out;
            {
              nb::gil_scoped_release nogil;
              out = n.normalize(t.data, t.size);
            }
            return nb::str(out.data(), out.size());
          },
          nb::arg("text"))
      .def(
          "normalize_with_offsets",
          [](const SpmNormalizer& n, nb::handle text) {
            const Text t = utf8_of(text);
            std::string out;
            std::vector<uint32_t> to_orig, offsets;
            {
              nb::gil_scoped_release nogil;
              out = n.normalize(t.data, t.size, &to_orig);
              // Input byte offsets to code points, taken at each output character and at the end.
              std::vector<uint32_t> char_at(t.size + 1);
              for (size_t i = 0, chars = 0; i <= t.size; ++i) {
                char_at[i] = uint32_t(chars);
                if (i < t.size) chars += (t.data[i] & 0xC0) != 0x80;
              }
              for (size_t i = 0; i < out.size(); ++i)
                if ((uint8_t(out[i]) & 0xC0) != 0x80) offsets.push_back(char_at[to_orig[i]]);
              offsets.push_back(to_orig.empty() ? 0 : char_at[to_orig.back()]);  // empty text: [0], as sentencepiece
            }
            return std::make_pair(nb::str(out.data(), out.size()), IdInts::instance().list(offsets));
          },
          nb::arg("text"),
          "(normalized, offsets): for each normalized character, and for the end, the input character it "
          "came from, as sentencepiece's normalize(text, with_offsets=True).");
  bind_spm_trainer<UnigramTrainer>(m, "UnigramTrainer", "sentencepiece's Unigram trainer; trainers/sentencepiece.py drives it.")
      .def("make_seeds", &UnigramTrainer::make_seeds, nb::arg("meta_count"), nb::arg("vocab_size"),
           nb::call_guard<nb::gil_scoped_release>(), "Chooses the alphabet and seed pieces; returns the alphabet size.")
      .def(
          "em_iteration",
          [](UnigramTrainer& t) {
            nb::gil_scoped_release nogil;
            const auto s = t.em_iteration();
            return std::make_pair(s.objective, s.pieces);
          },
          "One EM iteration; returns (objective, pieces left).")
      .def_prop_ro("size", &UnigramTrainer::size)
      .def("prune", &UnigramTrainer::prune, nb::arg("desired"), nb::call_guard<nb::gil_scoped_release>())
      .def("finalize", &UnigramTrainer::finalize, nb::arg("size"), nb::call_guard<nb::gil_scoped_release>(),
           "The final [(piece, score)], best first.");
  bind_spm_trainer<SpmBpeTrainer>(m, "SpmBpeTrainer", "sentencepiece's BPE trainer; trainers/sentencepiece.py drives it.")
      .def("prepare", &SpmBpeTrainer::prepare, nb::arg("meta_count"), nb::arg("vocab_size"),
           nb::call_guard<nb::gil_scoped_release>(), "Chooses the alphabet and indexes the pairs; returns its size.")
      .def("train", &SpmBpeTrainer::train, nb::arg("wanted"), nb::call_guard<nb::gil_scoped_release>(),
           "Learns up to `wanted` more pieces; returns how many.")
      .def_prop_ro("learned", &SpmBpeTrainer::learned)
      .def("finalize", &SpmBpeTrainer::finalize, nb::call_guard<nb::gil_scoped_release>(),
           "The final [(piece, score)]: learned pieces in order, then the characters.");
  bind_spm_model<SpmBpeModel>(m, "SpmBpe", "sentencepiece's BPE model over normalized text.")
      .def(
          "sample_encode",
          [](const SpmBpeModel& model, nb::handle normalized, double alpha, std::optional<uint64_t> seed) {
            const Text t = utf8_of(normalized);
            std::vector<uint32_t> ids;
            {
              nb::gil_scoped_release nogil;
              with_rng(seed, [&](std::mt19937_64& rng) { model.sample_encode(t.data, t.size, alpha, rng, ids); });
            }
            return IdInts::instance().list(ids);
          },
          nb::arg("normalized"), nb::arg("alpha"), nb::arg("seed").none(),
          "BPE-dropout: each merge skipped with probability alpha.");
  bind_spm_model<SpmUnigramModel>(m, "SpmUnigram", "sentencepiece's Unigram model (Viterbi) over normalized text.")
      .def(
          "encode_nbest",
          [](const SpmUnigramModel& model, nb::handle normalized, size_t nbest_size) {
            const Text t = utf8_of(normalized);
            std::vector<std::vector<uint32_t>> out;
            {
              nb::gil_scoped_release nogil;
              out = model.encode_nbest(t.data, t.size, nbest_size);
            }
            return IdInts::instance().lists(out, 1);
          },
          nb::arg("normalized"), nb::arg("nbest_size"), "The nbest_size best segmentations, best first.")
      .def(
          "sample_encode",
          [](const SpmUnigramModel& model, nb::handle normalized, float alpha, int nbest_size,
             std::optional<uint64_t> seed) {
            const Text t = utf8_of(normalized);
            std::vector<uint32_t> ids;
            {
              nb::gil_scoped_release nogil;
              with_rng(seed, [&](std::mt19937_64& rng) {
                model.sample_encode(t.data, t.size, alpha, nbest_size, rng, ids);
              });
            }
            return IdInts::instance().list(ids);
          },
          nb::arg("normalized"), nb::arg("alpha"), nb::arg("nbest_size"), nb::arg("seed").none(),
          "A segmentation drawn with probability proportional to exp(alpha * score), among the nbest_size best "
          "(all if negative).");
  nb::class_<SpmEncoder> spm_encoder(m, "SpmEncoder", "A sentencepiece model behind its normalizer: sentencepiece's encode.");
  def_spm_encoder_init<SpmBpeModel>(spm_encoder);
  def_spm_encoder_init<SpmUnigramModel>(spm_encoder);
  spm_encoder
      .def(
          "encode",
          [](const SpmEncoder& e, nb::handle text) {
            const Text t = utf8_of(text);
            return ids_list(t.size, [&](std::vector<uint32_t>& ids) { e.encode(t.data, t.size, ids); });
          },
          nb::arg("text"))
      .def(
          "encode_batch",
          [](const SpmEncoder& e, nb::handle texts, size_t threads) {
            const std::vector<Text> all = utf8_of_all(texts);
            std::vector<std::vector<uint32_t>> out(all.size());
            {
              nb::gil_scoped_release nogil;
              parallel_for(
                  all.size(), threads, [&](size_t i) { e.encode(all[i].data, all[i].size, out[i]); }, SignalPoll());
            }
            return IdInts::instance().lists(out, threads);
          },
          nb::arg("texts"), nb::arg("threads"));

  nb::class_<TextRules>(m, "TextRules", "How text becomes words: BERT's normalizer and pre-tokenizer, or llama.cpp WPM's.")
      .def(
          "__init__",
          [](TextRules* self, bool clean_text, bool cjk_spaces, bool strip_accents, bool lowercase, bool wpm) {
            new (self) TextRules{clean_text, cjk_spaces, strip_accents, lowercase, wpm};
          },
          nb::arg("clean_text"), nb::arg("cjk_spaces"), nb::arg("strip_accents"), nb::arg("lowercase"),
          nb::arg("wpm") = false);

  nb::class_<PyEncoded>(m, "Encoded",
                        "One text (or pair) encoded: ids, tokens, offsets (code-point spans of the input; (0, 0) "
                        "for special tokens the template adds), type ids, attention mask, special-tokens mask, and "
                        "the overflowing parts that truncation cut off.")
      .def("__len__", [](const PyEncoded& o) { return o.e.size(); })
      .def_prop_ro("ids", [](const PyEncoded& o) { return row_ints(o.e, &Row::id); })
      .def_prop_ro("type_ids", [](const PyEncoded& o) { return row_ints(o.e, &Row::type_id); })
      .def_prop_ro("special_tokens_mask", [](const PyEncoded& o) { return row_ints(o.e, &Row::special); })
      .def_prop_ro("attention_mask", [](const PyEncoded& o) { return row_ints(o.e, &Row::attention); })
      .def_prop_ro("offsets",
                   [](const PyEncoded& o) {
                     nb::list out;
                     for (const Row& r : o.e.rows) out.append(nb::make_tuple(r.start, r.end));
                     return out;
                   })
      .def_prop_ro("tokens",
                   [](const PyEncoded& o) {
                     nb::list out;
                     const std::vector<std::string>& by_id = o.names->by_id;
                     for (const Row& r : o.e.rows) {
                       if (!r.attention) out.append(nb::str(o.names->pad.c_str()));
                       else if (r.id < by_id.size()) out.append(nb::str(by_id[r.id].c_str()));
                       else throw nb::value_error(("token id " + std::to_string(r.id) + " has no name").c_str());
                     }
                     return out;
                   })
      .def_prop_ro("overflowing",
                   [](const PyEncoded& o) {
                     std::vector<PyEncoded> out;
                     for (const Encoded& part : o.e.overflowing) out.push_back(PyEncoded{part, o.names});
                     return out;
                   })
      .def("__repr__", [](const PyEncoded& o) {
        return "Encoded(" + std::to_string(o.e.size()) + " tokens, " + std::to_string(o.e.overflowing.size()) +
               " overflowing)";
      });

  nb::class_<PyWordPiece> wordpiece(m, "WordPiece");
  wordpiece
      .def(nb::init<const std::vector<std::string>&, uint32_t, const std::string&, const std::string&, size_t,
                    const TextRules&, std::vector<std::string>>(),
           nb::arg("tokens"), nb::arg("unk_id"), nb::arg("continuation_prefix"), nb::arg("word_prefix"),
           nb::arg("max_chars"), nb::arg("rules"), nb::arg("names"),
           "tokens: str by id; names: the text shown for each id (added tokens included). Each call takes "
           "`added`, a SpecialMatcher of the added tokens to match in the raw text (None: none).")
      .def("count_words", &PyWordPiece::count_words, nb::arg("texts"), nb::arg("counts"), nb::arg("threads"),
           "Adds the words of texts to a ChunkCounts table (on threads).")
      .def("words", &PyWordPiece::words, nb::arg("text"), nb::arg("added").none(),
           "[(word, (start, end))]: the normalized words of text, spans in input code points.");
  bind_pipeline(wordpiece, nb::str("all"),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in "
                "the text become their ids when in allowed_special (default all, as HF matches them), raise when "
                "in disallowed_special, and are plain text otherwise.");

  nb::class_<PySpmTokenizer> spm_tokenizer(m, "SpmTokenizer",
                                           "A sentencepiece model and normalizer as a Tokenizer pipeline, with "
                                           "sentencepiece's decoder.");
  def_spm_init<SpmBpeModel>(spm_tokenizer);
  def_spm_init<SpmUnigramModel>(spm_tokenizer);
  spm_tokenizer
      .def("decode", &PySpmTokenizer::decode, nb::arg("ids"), nb::arg("skip_control") = true,
           "sentencepiece's decode; skip_control=False shows control pieces (<s>) as their text.");
  bind_pipeline(spm_tokenizer, nb::tuple(),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Special-token "
                "text (<s>) is plain text unless in allowed_special, and raises when in disallowed_special.");

  m.def("_piece_ends",
        [](nb::handle text, int pattern, bool windowed) {
          Text t = utf8_of(text);
          const Pattern pat = Pattern(pattern);
          Scanner scan(t.data, t.size);
          std::vector<size_t> ends;
          for (size_t p = 0; p < t.size;) {
            if (windowed || pat == Pattern::kGpt2) p = scan.next(pat, p);
            else p = pat == Pattern::kCl100k ? scan.cl100k_scalar(p) : scan.o200k_scalar(p);
            ends.push_back(p);
          }
          return ends;
        },
        nb::arg("text"), nb::arg("pattern"), nb::arg("windowed"),
        "Byte offsets where the built-in scanner `pattern` ends each piece of `text`; "
        "windowed=False uses only the character-by-character scanner (for tests).");

  m.def("parse_tiktoken",
        [](nb::bytes data, uint64_t rank_limit) {
          std::string_view view(data.c_str(), data.size());
          return bytes_list(parse_tiktoken(view, rank_limit));
        },
        nb::arg("data"), nb::arg("rank_limit") = ~uint64_t(0),
        "Parse a .tiktoken file's bytes into a list of token bytes indexed by rank.");
}
