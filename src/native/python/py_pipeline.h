// What every Tokenizer pipeline binding shares (python/bind_pipelines.cpp for the fused pipelines,
// python/bind_staged.cpp for the staged one): PyPipeline holds a pipeline with the special-token
// policy, the post-processor's settings and batches on threads; PyEncoded is an encoding as Python
// sees it (its class is registered in bind_pipelines.cpp); bind_pipeline defines the methods they
// share. Pre-tokenized input (HF's is_pretokenized) is one entry over every pipeline's per-text
// encode: PyPipeline::encode_words. Conversions come from python/convert.h.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>

#include "added_tokens/special_matcher.h"
#include "base/parallel.h"
#include "processors/offset_trim.h"
#include "processors/post_processing.h"
#include "python/convert.h"

namespace tokenforge::bindings {

// Template pieces from Python: [(is_sequence, sequence, type_id, [special ids][, [their texts]]), ...].
inline std::vector<TemplatePiece> template_of(nb::handle seq) {
  std::vector<TemplatePiece> out;
  for (nb::handle item : seq) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    out.push_back(TemplatePiece{nb::cast<bool>(t[0]), nb::cast<uint32_t>(t[1]), nb::cast<uint32_t>(t[2]),
                                nb::cast<std::vector<uint32_t>>(t[3]),
                                t.size() > 4 ? nb::cast<std::vector<std::string>>(t[4]) : std::vector<std::string>{}});
    const TemplatePiece& p = out.back();
    if (!p.special_texts.empty() && p.special_texts.size() != p.special_ids.size())
      throw nb::value_error("a template's special token needs one text per id");
  }
  return out;
}

// Token names for Encoded.tokens: the vocabulary by id, and the padding token's text.
struct TokenNames {
  std::vector<std::string> by_id;
  std::string pad;
};

// An encoding whose ids came first (a kernel with encode_ids, one text without truncation or
// padding): the ids, and what it takes to build its rows on first need, by encoding the same
// text again the eager way (so the rows are the eager rows by construction). The rows are built
// once, under a lock taken with the GIL released where the text is long, so that threads reading
// one encoding at once share one build. It holds references to the Python objects the build
// needs (the pipeline, the added-token matcher), dropped with the GIL taken.
class LazyRows {
 public:
  LazyRows(nb::handle owner, nb::handle matcher) : owner_(owner.ptr()), matcher_(matcher.ptr()) {
    Py_XINCREF(owner_);
    Py_XINCREF(matcher_);
  }
  virtual ~LazyRows() {
    if (!owner_ && !matcher_) return;
    const PyGILState_STATE state = PyGILState_Ensure();  // any thread, GIL held or not
    Py_XDECREF(owner_);
    Py_XDECREF(matcher_);
    PyGILState_Release(state);
  }
  LazyRows(const LazyRows&) = delete;
  LazyRows& operator=(const LazyRows&) = delete;

  std::vector<uint32_t> ids;
  std::string text;  // the input's UTF-8
  // The type ids of the template's ids around the text's (those `ids` holds) and of the text's.
  PostProcessor::TypesAround types;

  // What the rows would say without building them (ids first has no padding, so every row
  // attends): row i's type id, and whether the template added it.
  uint32_t type_id(size_t i) const {
    const size_t before = types.before.size(), text_end = ids.size() - types.after.size();
    return i < before ? types.before[i] : i >= text_end ? types.after[i - text_end] : types.text;
  }
  bool special(size_t i) const { return i < types.before.size() || i >= ids.size() - types.after.size(); }

  // The rows (GIL held).
  const Encoded& rows() {
    if (!built_.load(std::memory_order_acquire)) {
      GilReleasedFor nogil(text.size());
      std::lock_guard<std::mutex> lock(mutex_);
      if (!built_.load(std::memory_order_relaxed)) {
        rows_ = build();
        built_.store(true, std::memory_order_release);
      }
    }
    return rows_;
  }

 protected:
  virtual Encoded build() const = 0;  // without the GIL

 private:
  PyObject* owner_;
  PyObject* matcher_;
  std::mutex mutex_;
  std::atomic<bool> built_{false};
  Encoded rows_;
};

// The lazy rows of one text through pipeline `tok` (its encode, as the eager path calls it).
template <class Pipeline>
class LazyRowsOf final : public LazyRows {
 public:
  LazyRowsOf(nb::handle owner, nb::handle matcher, const Pipeline& tok, bool add_special, const SpecialMatcher* added,
             std::shared_ptr<const PostProcessor> post)
      : LazyRows(owner, matcher), tok_(tok), add_special_(add_special), added_(added), post_(std::move(post)) {}

  // The ids of text (already in `text`): the template's around the kernel's; false where the
  // kernel cannot give ids first for it (the rows are then built eagerly by the caller).
  bool fill_ids() {
    std::vector<uint32_t> after;
    post_->ids_around(add_special_, ids, after, &types);
    const auto* s = reinterpret_cast<const uint8_t*>(text.data());
    const size_t start = ids.size();
    if (!tok_.encode_ids(s, text.size(), added_, ids)) return false;
    const bool empty = ids.size() == start;
    const auto skipped = std::ptrdiff_t(post_->present_after(add_special_, empty, empty ? 0 : ids.back()));
    ids.insert(ids.end(), after.begin() + skipped, after.end());
    types.after.erase(types.after.begin(), types.after.begin() + skipped);
    return true;
  }

 private:
  Encoded build() const override {
    const auto* s = reinterpret_cast<const uint8_t*>(text.data());
    return tok_.encode(s, text.size(), nullptr, 0, false, add_special_, added_, *post_);
  }

  const Pipeline& tok_;
  bool add_special_;
  const SpecialMatcher* added_;
  std::shared_ptr<const PostProcessor> post_;
};

// Whether Pipeline computes ids first (encode_ids(s, n, added, out) -> bool).
template <class P, class = void>
struct HasEncodeIds : std::false_type {};
template <class P>
struct HasEncodeIds<P, std::void_t<decltype(std::declval<const P&>().encode_ids(
                           nullptr, 0, nullptr, std::declval<std::vector<uint32_t>&>()))>> : std::true_type {};

// Whether Pipeline may trim offsets after truncation (offset_trim(), processors/offset_trim.h,
// and encode_sequence(s, n, added, trim): pipelines/staged.h, byte_level_hf_bpe.h).
template <class P, class = void>
struct TrimsOffsets : std::false_type {};
template <class P>
struct TrimsOffsets<P, std::void_t<decltype(std::declval<const P&>().offset_trim())>> : std::true_type {};

// One pre-tokenized sequence (HF's is_pretokenized): a list or tuple of str, read into a tuple
// that keeps its words alive (and unchanged) while they are encoded without the GIL.
struct Words {
  nb::object held;  // a tuple of the words
  std::vector<Text> texts;
  size_t bytes = 0;

  explicit Words(nb::handle seq) {
    static const char* kMessage = "PreTokenizedInputSequence must be Union[List[str], Tuple[str]]";
    if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr())) throw nb::type_error(kMessage);
    held = nb::steal(PySequence_Tuple(seq.ptr()));
    if (!held) throw nb::python_error();
    const Py_ssize_t n = PyTuple_GET_SIZE(held.ptr());
    texts.reserve(size_t(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* word = PyTuple_GET_ITEM(held.ptr(), i);
      if (!PyUnicode_Check(word)) throw nb::type_error(kMessage);
      texts.push_back(utf8_of(word));
      bytes += texts.back().size;
    }
  }
};

// A post-processor that does nothing (no template, truncation or padding): a word's own rows.
inline const PostProcessor& bare_post() {
  static const PostProcessor bare = [] {
    PostProcessor p;
    p.default_process = true;
    return p;
  }();
  return bare;
}

// An Encoded as Python sees it: the rows (or, ids first, the ids and the lazy rows), and the
// names to show its tokens with.
struct PyEncoded {
  Encoded e;  // the rows, unless `lazy`
  std::shared_ptr<const TokenNames> names;
  std::shared_ptr<LazyRows> lazy;  // set: the ids came first, rows are built on first need

  // The rows (built now where they came lazily; GIL held).
  const Encoded& get() const { return lazy ? lazy->rows() : e; }
  size_t size() const { return lazy ? lazy->ids.size() : e.size(); }
};

// One field of every row (field(row)) as a list of ints.
template <class Field>
nb::object row_ints(const Encoded& e, Field field) {
  const Row* rows = e.rows.data();
  return IdInts::instance().list_of(e.rows.size(), [rows, field](size_t i) { return uint32_t(field(rows[i])); });
}

// A native Tokenizer pipeline (WordPiece, sentencepiece) as Python sees it: encode with the
// special-token policy, batches on threads, the post-processor's settings and the token names.
// What a surface does by default with special-token text in its input: matches every added
// token (allowed_special="all", as HF), reads it as plain text (allowed_special=(), as
// sentencepiece), or refuses it (disallowed_special="all", as tiktoken).
enum class SpecialDefault { kAllowAll, kPlainText, kRefuse };

template <class Pipeline>
class PyPipeline {
 public:
  // names: the text shown for each id; by_default: what the default policy does.
  template <class... Args>
  PyPipeline(std::vector<std::string> names, SpecialDefault by_default, Args&&... pipeline_args)
      : tok_(std::forward<Args>(pipeline_args)...),
        names_(std::make_shared<TokenNames>(TokenNames{std::move(names), ""})),
        ints_(IdInts::instance()),
        default_(by_default) {
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
    std::atomic_store(&post_, post_with(change));
  }
  // A copy of the post-processor with `change` applied and the ids it names checked, not stored
  // (change_post stores it; a call with settings of its own uses it for that call only).
  template <class Change>
  std::shared_ptr<const PostProcessor> post_with(Change change) const {
    auto next = std::make_shared<PostProcessor>(*post());
    change(*next);
    const size_t n = names()->by_id.size();
    auto check = [n](uint32_t id, const char* what) {
      if (id >= n)
        throw nb::value_error((std::string(what) + " id " + std::to_string(id) + " is not in the vocabulary (0.." +
                               std::to_string(n - 1) + ")")
                                  .c_str());
    };
    auto check_type = [](uint32_t type_id) {
      if (type_id > kMaxTypeId)
        throw nb::value_error(
            ("type id " + std::to_string(type_id) + " is past the largest supported, " + std::to_string(kMaxTypeId))
                .c_str());
    };
    for (auto* pieces : {&next->single, &next->pair})
      for (TemplatePiece& p : *pieces) {
        check_type(p.type_id);
        for (uint32_t id : p.special_ids) check(id, "special token");
        // (a text that is its id's name needs no name of its own)
        bool differs = false;
        for (size_t i = 0; i < p.special_texts.size(); ++i) {
          if (p.special_texts[i] == names()->by_id[p.special_ids[i]]) p.special_texts[i].clear();
          differs = differs || !p.special_texts[i].empty();
        }
        if (!differs) p.special_texts.clear();
      }
    if (next->pad) {
      check(next->padding.pad_id, "padding");
      check_type(next->padding.pad_type_id);
    }
    return next;
  }
  void set_pad_token(const std::string& pad) { std::atomic_store(&names_, names_with(pad)); }
  // The name table with `pad` as the padding token's text: the current one, or the last one made
  // for a call (kept, so that a call padding with its own token copies the names once, not per
  // call; the names by id never change in a pipeline's life, only the padding token's text).
  std::shared_ptr<const TokenNames> names_with(const std::string& pad) const {
    std::shared_ptr<const TokenNames> now = names();
    if (now->pad == pad) return now;
    std::shared_ptr<const TokenNames> made = std::atomic_load(&call_names_);
    if (made && made->pad == pad) return made;
    made = std::make_shared<TokenNames>(TokenNames{now->by_id, pad});
    std::atomic_store(&call_names_, made);
    return made;
  }

  // The special-token policy: the default (see SpecialDefault) uses default_added, except
  // kRefuse, which must look for special text; any other asks the Python resolver (allowed, disallowed, texts) ->
  // matcher or None, which also raises for disallowed tokens found in texts.
  void set_policy(nb::object default_added, nb::object resolver) {
    default_added_ = std::move(default_added);
    resolver_ = std::move(resolver);
  }
  // The matcher for a call (kept alive by `keep`).
  // allowed None: the pipeline's default ("all" or (), as `default_` says; a binding whose
  // pipelines differ in it takes None for its default).
  const SpecialMatcher* added_for(nb::handle allowed, nb::handle disallowed, nb::handle texts, nb::object& keep) const {
    nb::object stands_in;
    if (allowed.is_none()) {
      stands_in = default_ == SpecialDefault::kAllowAll ? nb::object(nb::str("all")) : nb::object(nb::tuple());
      allowed = stands_in;
    }
    const bool default_allowed =
        default_ == SpecialDefault::kAllowAll
            ? PyUnicode_Check(allowed.ptr()) && PyUnicode_CompareWithASCIIString(allowed.ptr(), "all") == 0
            : default_ == SpecialDefault::kPlainText && PyTuple_Check(allowed.ptr()) &&
                  PyTuple_GET_SIZE(allowed.ptr()) == 0;
    const bool default_policy =
        default_allowed && PyTuple_Check(disallowed.ptr()) && PyTuple_GET_SIZE(disallowed.ptr()) == 0;
    keep = default_policy ? default_added_ : resolver_(allowed, disallowed, texts);
    return keep.is_none() ? nullptr : nb::cast<const SpecialMatcher*>(keep);
  }

  // owner: this pipeline's Python object (a lazy encoding keeps it alive; none: rows eagerly).
  PyEncoded encode_with_policy(nb::handle text, nb::handle pair, bool add_special, nb::handle allowed,
                               nb::handle disallowed, nb::handle owner = nb::handle()) const {
    nb::object keep;
    const SpecialMatcher* added = added_for(allowed, disallowed, nb::make_tuple(text, pair), keep);
    return encode(text, pair, add_special, added, owner, keep);
  }

  // One text or pair. A kernel with encode_ids gives one text's ids first where the
  // post-processor only adds the template's ids (no truncation, no padding): the rows come when
  // first read (LazyRows; `owner` and `matcher`, the Python objects of this and of `added`, are
  // kept alive for them).
  PyEncoded encode(nb::handle text, nb::handle pair, bool add_special, const SpecialMatcher* added,
                   nb::handle owner = nb::handle(), nb::handle matcher = nb::handle()) const {
    const Text a = utf8_of(text);
    const bool has_pair = !pair.is_none();
    const Text b = has_pair ? utf8_of(pair) : Text{nullptr, 0};
    std::shared_ptr<const PostProcessor> post = this->post();
    std::shared_ptr<const TokenNames> names = this->names();
    if constexpr (HasEncodeIds<Pipeline>::value) {
      if (owner.is_valid() && post->ids_only(has_pair)) {
        auto lazy = std::make_shared<LazyRowsOf<Pipeline>>(owner, matcher, tok_, add_special, added, post);
        bool done;
        {
          GilReleasedFor nogil(a.size);
          lazy->text.assign(reinterpret_cast<const char*>(a.data), a.size);
          done = lazy->fill_ids();
        }
        if (done) return PyEncoded{Encoded(), std::move(names), std::move(lazy)};
      }
    }
    GilReleasedFor nogil(a.size + b.size);
    return PyEncoded{tok_.encode(a.data, a.size, b.data, b.size, has_pair, add_special, added, *post), std::move(names),
                     nullptr};
  }

  // Pre-tokenized input, as HF's is_pretokenized: each word runs through the pipeline as a text
  // of its own (normalizer, pre-tokenizer, added tokens, model), its tokens of word w (its index)
  // with offsets in the word's characters; the words' rows are joined, and the post-processor
  // runs once over the sequence (and the pair): truncation, template, padding. A pipeline that
  // trims offsets (ByteLevel's trim_offsets) trims the joined rows after truncation, as HF.
  Encoded encode_words(const std::vector<Text>& a, const std::vector<Text>* b, bool add_special,
                       const SpecialMatcher* added, const PostProcessor& post) const {
    Encoded first = words_rows(a, added), second;
    if (b) second = words_rows(*b, added);
    Encoded* pair = b ? &second : nullptr;
    if constexpr (TrimsOffsets<Pipeline>::value) {
      const OffsetTrim& trim = tok_.offset_trim();
      if (trim.on()) return trim.process_trimming_parts(post, std::move(first), pair, add_special);
    }
    return process_keeping_texts(post, std::move(first), pair, add_special);
  }

  // One pre-tokenized sequence (or pair: `pair` not None) under the special-token policy.
  PyEncoded encode_words_with_policy(nb::handle seq, nb::handle pair, bool add_special, nb::handle allowed,
                                     nb::handle disallowed) const {
    const Words a(seq);
    const bool has_pair = !pair.is_none();
    const Words b = has_pair ? Words(pair) : Words(nb::tuple());
    nb::object keep;
    nb::object all = has_pair ? nb::steal(PySequence_Concat(a.held.ptr(), b.held.ptr())) : a.held;
    if (!all) throw nb::python_error();
    const SpecialMatcher* added = added_for(allowed, disallowed, all, keep);
    std::shared_ptr<const PostProcessor> post = this->post();
    std::shared_ptr<const TokenNames> names = this->names();
    GilReleasedFor nogil(a.bytes + b.bytes);
    return PyEncoded{encode_words(a.texts, has_pair ? &b.texts : nullptr, add_special, added, *post), std::move(names),
                     nullptr};
  }

  // A batch of pre-tokenized sequences (`texts`, each a list of words), with `pairs` None or one
  // per sequence (None where it has none), on threads; padding as encode_batch's.
  std::vector<PyEncoded> encode_words_batch(nb::handle texts, nb::handle pairs, bool add_special,
                                            const SpecialMatcher* added, size_t threads,
                                            std::shared_ptr<const PostProcessor> with_post = nullptr,
                                            std::shared_ptr<const TokenNames> with_names = nullptr) const {
    nb::object fast = nb::steal(PySequence_Fast(texts.ptr(), "expected a list of pre-tokenized sequences"));
    if (!fast) throw nb::python_error();
    const size_t n = size_t(PySequence_Fast_GET_SIZE(fast.ptr()));
    std::vector<Words> a, b;
    a.reserve(n);
    for (size_t i = 0; i < n; ++i) a.emplace_back(nb::handle(PySequence_Fast_GET_ITEM(fast.ptr(), Py_ssize_t(i))));
    const bool has_pairs = !pairs.is_none();
    std::vector<uint8_t> paired(n, 0);
    if (has_pairs) {
      nb::object fast_pairs = nb::steal(PySequence_Fast(pairs.ptr(), "expected a list of pre-tokenized pairs"));
      if (!fast_pairs) throw nb::python_error();
      if (size_t(PySequence_Fast_GET_SIZE(fast_pairs.ptr())) != n)
        throw nb::value_error(("got " + std::to_string(n) + " sequences but " +
                               std::to_string(PySequence_Fast_GET_SIZE(fast_pairs.ptr())) + " pairs")
                                  .c_str());
      b.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        PyObject* item = PySequence_Fast_GET_ITEM(fast_pairs.ptr(), Py_ssize_t(i));
        paired[i] = item != Py_None;
        b.emplace_back(paired[i] ? nb::handle(item) : nb::handle(nb::tuple()));
      }
    }
    const std::shared_ptr<const PostProcessor> snapshot = with_post ? std::move(with_post) : this->post();
    const std::shared_ptr<const TokenNames> names = with_names ? std::move(with_names) : this->names();
    const PostProcessor& post = *snapshot;
    std::vector<Encoded> encoded(n);
    {
      nb::gil_scoped_release nogil;
      parallel_for(
          n, threads,
          [&](size_t i) {
            encoded[i] = encode_words(a[i].texts, paired[i] ? &b[i].texts : nullptr, add_special, added, post);
          },
          SignalPoll());
      post.pad_batch(encoded);
    }
    std::vector<PyEncoded> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = PyEncoded{std::move(encoded[i]), names, nullptr};
    return out;
  }

  // Each text (or pair) as encode gives it, on threads; texts without a pair come ids first
  // where encode's would (owner and matcher as there), and padding to the batch's longest makes
  // every row eager.
  // `with_post` and `with_names`, where given, replace the settings for this call only.
  std::vector<PyEncoded> encode_batch(nb::handle texts, nb::handle pairs, bool add_special, const SpecialMatcher* added,
                                      size_t threads, nb::handle owner = nb::handle(),
                                      nb::handle matcher = nb::handle(),
                                      std::shared_ptr<const PostProcessor> with_post = nullptr,
                                      std::shared_ptr<const TokenNames> with_names = nullptr) const {
    const std::vector<Text> a = utf8_of_all(texts);
    const bool has_pairs = !pairs.is_none();
    const std::vector<Text> b = has_pairs ? utf8_of_all(pairs, true) : std::vector<Text>();
    if (has_pairs && b.size() != a.size())
      throw nb::value_error(
          ("got " + std::to_string(a.size()) + " texts but " + std::to_string(b.size()) + " pairs").c_str());
    std::vector<Encoded> encoded;
    std::vector<PyEncoded> out(a.size());
    const std::shared_ptr<const PostProcessor> snapshot = with_post ? std::move(with_post) : this->post();
    const std::shared_ptr<const TokenNames> names = with_names ? std::move(with_names) : this->names();
    const PostProcessor& post = *snapshot;
    std::vector<std::shared_ptr<LazyRowsOf<Pipeline>>> lazy;  // ids first where set
    std::vector<uint8_t> eager;                               // lazy[i] could not: rows in encoded[i]
    if constexpr (HasEncodeIds<Pipeline>::value) {
      if (owner.is_valid() && post.ids_only(false)) {
        lazy.resize(a.size());
        for (size_t i = 0; i < a.size(); ++i)
          if (!(has_pairs && b[i].data))
            lazy[i] = std::make_shared<LazyRowsOf<Pipeline>>(owner, matcher, tok_, add_special, added, snapshot);
      }
    }
    eager.assign(a.size(), 0);
    {
      nb::gil_scoped_release nogil;
      encoded.resize(a.size());
      parallel_for(
          a.size(), threads,
          [&](size_t i) {
            const bool pair = has_pairs && b[i].data;  // None in pairs: that input is one text
            if (!lazy.empty() && lazy[i]) {
              if constexpr (HasEncodeIds<Pipeline>::value) {
                lazy[i]->text.assign(reinterpret_cast<const char*>(a[i].data), a[i].size);
                if (lazy[i]->fill_ids()) return;
              }
              eager[i] = 1;
            }
            encoded[i] = tok_.encode(a[i].data, a[i].size, pair ? b[i].data : nullptr, pair ? b[i].size : 0, pair,
                                     add_special, added, post);
          },
          SignalPoll());
      post.pad_batch(encoded);
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (!lazy.empty() && lazy[i] && !eager[i])
        out[i] = PyEncoded{Encoded(), names, std::move(lazy[i])};
      else
        out[i] = PyEncoded{std::move(encoded[i]), names, nullptr};
    }
    return out;
  }

 protected:
  // The rows of one pre-tokenized sequence (see encode_words), before the post-processor; a
  // pipeline that trims offsets leaves them untrimmed here.
  Encoded words_rows(const std::vector<Text>& words, const SpecialMatcher* added) const {
    Encoded out;
    for (size_t w = 0; w < words.size(); ++w) {
      const Text& t = words[w];
      Encoded e;
      bool done = false;
      if constexpr (TrimsOffsets<Pipeline>::value) {
        if (tok_.offset_trim().on()) {
          e = tok_.encode_sequence(t.data, t.size, added, false);
          done = true;
        }
      }
      if (!done) e = tok_.encode(t.data, t.size, nullptr, 0, false, false, added, bare_post());
      const uint32_t word = uint32_t(w);
      out.rows.reserve(out.rows.size() + e.rows.size());
      for (Row r : e.rows) {
        r.word = word;
        if (e.names.empty())
          out.rows.push_back(r);
        else
          out.push_row_of(e, r);
      }
      for (TokenText& text : e.texts) {
        text.word = word;
        text.row = ~uint32_t(0);
        out.texts.push_back(std::move(text));
      }
    }
    return out;
  }

  Pipeline tok_;
  std::shared_ptr<const PostProcessor> post_ = std::make_shared<PostProcessor>();
  std::shared_ptr<const TokenNames> names_;
  mutable std::shared_ptr<const TokenNames> call_names_;  // names_with's last table (atomic access)
  IdInts& ints_;
  SpecialDefault default_;
  nb::object default_added_ = nb::none(), resolver_ = nb::none();
};

// A truncation strategy as TruncationParams reads it (ValueError for another number).
inline int check_strategy(int strategy) {
  if (strategy < 0 || strategy > 5)
    throw nb::value_error(("truncation strategy " + std::to_string(strategy) + " is not 0..5").c_str());
  return strategy;
}

// The methods every pipeline class shares; `default_allowed` and `default_disallowed` are
// allowed_special's and disallowed_special's defaults.
template <class Py>
void bind_pipeline(nb::class_<Py>& c, nb::object default_allowed, const char* encode_doc,
                   nb::object default_disallowed = nb::tuple()) {
  c.def(
       "set_pad_token", [](Py& t, const std::string& pad) { t.set_pad_token(pad); }, nb::arg("pad_token"))
      .def(
          "set_template",
          [](Py& t, nb::handle single, nb::handle pair, bool default_process, bool parts_typed,
             bool skip_present_special) {
            std::vector<TemplatePiece> one = template_of(single), two = template_of(pair);
            t.change_post([&](PostProcessor& p) {
              p.single = std::move(one);
              p.pair = std::move(two);
              p.default_process = default_process;
              p.parts_typed = parts_typed;
              p.skip_present_special = skip_present_special;
            });
          },
          nb::arg("single"), nb::arg("pair"), nb::arg("default_process") = false, nb::arg("parts_typed") = false,
          nb::arg("skip_present_special") = false,
          "Pieces [(is_sequence, sequence 0|1, type_id, [special ids][, [the texts they show]])] for one and for two "
          "texts; "
          "default_process=True where there is no post-processor (sequence ranges as HF's default_process); "
          "parts_typed=True where overflowing parts take the template's type ids when special tokens are added "
          "(HF's RobertaProcessing, BertProcessing), not their sequence's index; skip_present_special=True where a "
          "special token of one id after a sequence is left out when the sequence ends with it (transformers' "
          "_add_eos_if_not_present).")
      .def(
          "set_truncation",
          [](Py& t, bool enabled, size_t max_length, size_t stride, int strategy, bool from_left) {
            check_strategy(strategy);
            t.change_post([&](PostProcessor& p) {
              p.truncate = enabled;
              p.truncation = TruncationParams{max_length, stride, strategy, from_left};
            });
          },
          nb::arg("enabled"), nb::arg("max_length") = 0, nb::arg("stride") = 0, nb::arg("strategy") = 0,
          nb::arg("from_left") = false,
          "strategy: 0 longest first, 1 only first, 2 only second; 3, 4, 5 the same as transformers' Python classes "
          "cut (the first text keeps an odd total's extra token; a text may be cut to nothing).")
      .def(
          "set_padding",
          [](Py& t, bool enabled, size_t length, size_t multiple_of, uint32_t pad_id, uint32_t pad_type_id, bool left) {
            t.change_post([&](PostProcessor& p) {
              p.pad = enabled;
              p.padding = PaddingParams{length, multiple_of, pad_id, pad_type_id, left};
            });
          },
          nb::arg("enabled"), nb::arg("length") = 0, nb::arg("multiple_of") = 0, nb::arg("pad_id") = 0,
          nb::arg("pad_type_id") = 0, nb::arg("left") = false, "length 0: the longest of a batch.")
      .def(
          "added_tokens", [](Py& t, bool pair) { return t.post()->added(pair); }, nb::arg("pair"))
      .def(
          "set_policy", [](Py& t, nb::object added, nb::object resolver) { t.set_policy(added, resolver); },
          nb::arg("default_added").none(), nb::arg("resolver"))
      .def(
          "encode",
          [](const Py& t, nb::handle text, nb::handle pair, nb::handle add_special, nb::handle allowed,
             nb::handle disallowed) {
            return t.encode_with_policy(text, pair, flag_of(add_special, "add_special_tokens"), allowed, disallowed,
                                        nb::find(&t));
          },
          nb::arg("sequence"), nb::arg("pair").none() = nb::none(), nb::arg("add_special_tokens") = true, nb::kw_only(),
          nb::arg("allowed_special").none() = default_allowed, nb::arg("disallowed_special") = default_disallowed,
          encode_doc)
      // is_pretokenized given: a second overload, so that the common call (above) reads no more
      // arguments than it did before pre-tokenized input (nanobind tries the overloads in order).
      .def(
          "encode",
          [](const Py& t, nb::handle text, nb::handle pair, nb::handle add_special, nb::handle allowed,
             nb::handle disallowed, nb::handle pretokenized) {
            const bool add = flag_of(add_special, "add_special_tokens");
            if (flag_of(pretokenized, "is_pretokenized"))
              return t.encode_words_with_policy(text, pair, add, allowed, disallowed);
            return t.encode_with_policy(text, pair, add, allowed, disallowed, nb::find(&t));
          },
          nb::arg("sequence"), nb::arg("pair").none() = nb::none(), nb::arg("add_special_tokens") = true, nb::kw_only(),
          nb::arg("allowed_special").none() = default_allowed, nb::arg("disallowed_special") = default_disallowed,
          nb::arg("is_pretokenized"),
          "encode with is_pretokenized: True reads `sequence` (and `pair`) as lists (or tuples) of words, "
          "each encoded on its own (HF tokenizers' is_pretokenized).")
      .def(
          "_encode_eager",
          [](const Py& t, nb::handle text, nb::handle pair, nb::handle add_special, nb::handle allowed,
             nb::handle disallowed) {
            return t.encode_with_policy(text, pair, flag_of(add_special, "add_special_tokens"), allowed, disallowed);
          },
          nb::arg("sequence"), nb::arg("pair").none() = nb::none(), nb::arg("add_special_tokens") = true, nb::kw_only(),
          nb::arg("allowed_special").none() = default_allowed, nb::arg("disallowed_special") = default_disallowed,
          "encode with every row built at once, as before ids came first (a test and benchmark hook).")
      .def(
          "encode_batch",
          [](const Py& t, nb::handle texts, nb::handle pairs, bool add_special, const SpecialMatcher* added,
             size_t threads, bool pretokenized) {
            if (pretokenized) return t.encode_words_batch(texts, pairs, add_special, added, threads);
            return t.encode_batch(texts, pairs, add_special, added, threads, nb::find(&t),
                                  added ? nb::handle(nb::find(added)) : nb::handle());
          },
          nb::arg("texts"), nb::arg("pairs").none(), nb::arg("add_special_tokens"), nb::arg("added").none(),
          nb::arg("threads"), nb::kw_only(), nb::arg("is_pretokenized") = false,
          "is_pretokenized: texts (and pairs) are lists of words.")
      .def(
          "encode_batch_with",
          [](const Py& t, nb::handle texts, nb::handle pairs, bool add_special, const SpecialMatcher* added,
             size_t threads, nb::handle truncation, nb::handle padding, const std::string& pad_token,
             bool pretokenized) {
            // settings for this call only: the stored ones stay (other threads keep encoding with them)
            const bool truncate = !truncation.is_none(), pad = !padding.is_none();
            TruncationParams tp{};
            PaddingParams pp{};
            if (truncate) {
              nb::tuple tt = nb::cast<nb::tuple>(truncation);
              tp = TruncationParams{nb::cast<size_t>(tt[0]), nb::cast<size_t>(tt[1]),
                                    check_strategy(nb::cast<int>(tt[2])), nb::cast<bool>(tt[3])};
            }
            if (pad) {
              nb::tuple pt = nb::cast<nb::tuple>(padding);
              pp = PaddingParams{nb::cast<size_t>(pt[0]), nb::cast<size_t>(pt[1]), nb::cast<uint32_t>(pt[2]),
                                 nb::cast<uint32_t>(pt[3]), nb::cast<bool>(pt[4])};
            }
            std::shared_ptr<const PostProcessor> post = t.post_with([&](PostProcessor& p) {
              p.truncate = truncate;
              if (truncate) p.truncation = tp;
              p.pad = pad;
              if (pad) p.padding = pp;
            });
            if (pretokenized)
              return t.encode_words_batch(texts, pairs, add_special, added, threads, std::move(post),
                                          t.names_with(pad_token));
            return t.encode_batch(texts, pairs, add_special, added, threads, nb::find(&t),
                                  added ? nb::handle(nb::find(added)) : nb::handle(), std::move(post),
                                  t.names_with(pad_token));
          },
          nb::arg("texts"), nb::arg("pairs").none(), nb::arg("add_special_tokens"), nb::arg("added").none(),
          nb::arg("threads"), nb::arg("truncation").none(), nb::arg("padding").none(), nb::arg("pad_token"),
          nb::kw_only(), nb::arg("is_pretokenized") = false,
          "encode_batch with truncation (max_length, stride, strategy, from_left) or None and padding "
          "(length, multiple_of, pad_id, pad_type_id, left) or None for this call only, the padding "
          "token shown as pad_token; is_pretokenized: texts (and pairs) are lists of words.");
}

}  // namespace tokenforge::bindings
