// Bindings for the Tokenizer pipelines: TextRules (normalizers/bert_text.h), Encoded (the rows of
// processors/post_processing.h with the names to show them by), and the pipelines WordPiece
// (pipelines/wordpiece_tokenizer.h), ByteLevelBpe (pipelines/byte_level_bpe.h over an Encoder of
// python/py_encoder.h) and SpmTokenizer (pipelines/spm_tokenizer.h over the objects of
// python/bind_sentencepiece.cpp). PyPipeline holds what they share: the special-token policy,
// the post-processor's settings, batches on threads. Conversions come from python/convert.h.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>

#include "added_tokens/special_matcher.h"
#include "base/parallel.h"
#include "decoders/spm_decoder.h"
#include "decoders/wordpiece_decoder.h"
#include "models/sentencepiece/spm_bpe.h"
#include "models/sentencepiece/spm_unigram.h"
#include "models/sentencepiece/spm_vocab.h"
#include "models/wordpiece/wordpiece.h"
#include "normalizers/bert_text.h"
#include "normalizers/spm_normalizer.h"
#include "pipelines/byte_level_bpe.h"
#include "pipelines/spm_models.h"
#include "pipelines/spm_tokenizer.h"
#include "pipelines/wordpiece_tokenizer.h"
#include "processors/post_processing.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/py_encoder.h"
#include "trainers/chunk_counts.h"

namespace tokenforge::bindings {

namespace {

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
nb::object row_ints(const Encoded& e, Field Row::* field) {
  const Row* rows = e.rows.data();
  return IdInts::instance().list_of(e.rows.size(), [rows, field](size_t i) { return uint32_t(rows[i].*field); });
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
    std::atomic_store(&names_,
                      std::shared_ptr<const TokenNames>(std::make_shared<TokenNames>(TokenNames{names()->by_id, pad})));
  }

  // The special-token policy: the default (see SpecialDefault) uses default_added, except
  // kRefuse, which must look for special text; any other asks the Python resolver (allowed, disallowed, texts) ->
  // matcher or None, which also raises for disallowed tokens found in texts.
  void set_policy(nb::object default_added, nb::object resolver) {
    default_added_ = std::move(default_added);
    resolver_ = std::move(resolver);
  }
  // The matcher for a call (kept alive by `keep`).
  const SpecialMatcher* added_for(nb::handle allowed, nb::handle disallowed, nb::handle texts, nb::object& keep) const {
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
    return PyEncoded{tok_.encode(a.data, a.size, b.data, b.size, has_pair, add_special, added, *post),
                     std::move(names)};
  }

  std::vector<PyEncoded> encode_batch(nb::handle texts, nb::handle pairs, bool add_special, const SpecialMatcher* added,
                                      size_t threads) const {
    const std::vector<Text> a = utf8_of_all(texts);
    const bool has_pairs = !pairs.is_none();
    const std::vector<Text> b = has_pairs ? utf8_of_all(pairs, true) : std::vector<Text>();
    if (has_pairs && b.size() != a.size())
      throw nb::value_error(
          ("got " + std::to_string(a.size()) + " texts but " + std::to_string(b.size()) + " pairs").c_str());
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
          const bool pair = has_pairs && b[i].data;  // None in pairs: that input is one text
          encoded[i] = tok_.encode(a[i].data, a[i].size, pair ? b[i].data : nullptr, pair ? b[i].size : 0, pair,
                                   add_special, added, post);
        },
        SignalPoll());
    post.pad_batch(encoded);
    for (size_t i = 0; i < out.size(); ++i) out[i] = PyEncoded{std::move(encoded[i]), names};
    return out;
  }

 protected:
  Pipeline tok_;
  std::shared_ptr<const PostProcessor> post_ = std::make_shared<PostProcessor>();
  std::shared_ptr<const TokenNames> names_;
  IdInts& ints_;
  SpecialDefault default_;
  nb::object default_added_ = nb::none(), resolver_ = nb::none();
};

class PyWordPiece : public PyPipeline<WordPieceTokenizer> {
 public:
  PyWordPiece(const std::vector<std::string>& tokens, uint32_t unk_id, const std::string& continuation_prefix,
              const std::string& word_prefix, size_t max_chars, const TextRules& rules, std::vector<std::string> names)
      : PyPipeline(std::move(names), SpecialDefault::kAllowAll,
                   WordPieceModel(tokens, unk_id, continuation_prefix, word_prefix, max_chars), rules) {}

  // Counts the words of texts into `counts`, texts spread over threads.
  void count_words(nb::handle texts, ChunkCounts& counts, size_t threads) const {
    std::vector<std::pair<const uint8_t*, size_t>> all;
    for (const Text& t : utf8_of_all(texts)) all.emplace_back(t.data, t.size);
    nb::gil_scoped_release nogil;
    tok_.count_words(all, counts, threads);
  }

  std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> words(nb::handle text,
                                                                           const SpecialMatcher* added) const {
    const Text t = utf8_of(text);
    nb::gil_scoped_release nogil;
    return tok_.words(t.data, t.size, added);
  }

  // The decoder and the ids that skip_special_tokens drops; set once, before any decode.
  void set_decoder(WordPieceDecoder decoder, const std::vector<uint32_t>& special_ids) {
    decoder_ = std::move(decoder);
    special_.assign(names()->by_id.size(), 0);
    for (uint32_t id : special_ids)
      if (id < special_.size()) special_[id] = 1;
  }

  nb::str decode(nb::handle ids_seq, bool skip_special) const {
    const std::shared_ptr<const TokenNames> names = this->names();
    const std::vector<std::string>& by_id = names->by_id;
    const size_t size = by_id.size();
    auto not_in_vocabulary = [size](const std::string& id) {
      throw nb::value_error(
          ("token id " + id + " is not in this tokenizer's vocabulary (0.." + std::to_string(size - 1) + ")").c_str());
    };
    const std::vector<uint32_t> ids =
        ids_of(ids_seq, size, [&](size_t, nb::handle item) { not_in_vocabulary(nb::str(item).c_str()); });
    std::string text;
    size_t bad = ids.size();  // the first id without a token
    {
      GilReleasedFor nogil(ids.size() * 8);
      std::vector<const std::string*> tokens;
      tokens.reserve(ids.size());
      for (size_t i = 0; i < ids.size() && bad == ids.size(); ++i) {
        if (by_id[ids[i]].empty())
          bad = i;
        else if (!(skip_special && special_[ids[i]]))
          tokens.push_back(&by_id[ids[i]]);
      }
      if (bad == ids.size()) text = decoder_.decode(tokens);
    }
    if (bad < ids.size()) not_in_vocabulary(std::to_string(ids[bad]));
    return nb::str(text.data(), text.size());
  }

 private:
  WordPieceDecoder decoder_;
  std::vector<uint8_t> special_;
};

// A byte-level BPE Encoder (tiktoken's model) as a Tokenizer pipeline; the binding keeps the
// Encoder alive. Decoding is the Encoder's (Encoding.decode).
class PyByteLevelBpe : public PyPipeline<ByteLevelBpePipeline> {
 public:
  explicit PyByteLevelBpe(const PyEncoder& encoder)
      : PyPipeline(ByteLevelBpePipeline(encoder.encoder()).names(), SpecialDefault::kRefuse, encoder.encoder()),
        encoder_(encoder.encoder()) {}

  const std::vector<std::string>& token_names() const { return names()->by_id; }

  // The text of ids: the tokens' bytes joined (special tokens left out when skip_special), read
  // as UTF-8 with U+FFFD for bytes that are not, as Encoding.decode. An id without a token raises
  // ValueError naming it.
  nb::str decode(nb::handle ids_seq, bool skip_special) const {
    const uint32_t top = encoder_.max_token_id();
    auto not_in_vocabulary = [top](const std::string& id) {
      throw nb::value_error(
          ("token id " + id + " is not in this tokenizer's vocabulary (0.." + std::to_string(top) + ")").c_str());
    };
    const std::vector<uint32_t> ids =
        ids_of(ids_seq, uint64_t(top) + 1, [&](size_t, nb::handle item) { not_in_vocabulary(nb::str(item).c_str()); });
    std::string bytes;
    size_t bad = ids.size();  // the first id without a token
    {
      GilReleasedFor nogil(ids.size() * 4);
      for (size_t i = 0; i < ids.size(); ++i) {
        const std::string* b = encoder_.token_bytes(ids[i]);
        if (!b) {
          bad = i;
          break;
        }
        if (!(skip_special && encoder_.is_special(ids[i]))) bytes += *b;
      }
    }
    if (bad < ids.size()) not_in_vocabulary(std::to_string(ids[bad]));
    PyObject* text = PyUnicode_DecodeUTF8(bytes.data(), Py_ssize_t(bytes.size()), "replace");
    if (!text) throw nb::python_error();
    return nb::steal<nb::str>(text);
  }

 private:
  const Encoder& encoder_;
};

// sentencepiece's pipeline over a model object and a normalizer object (both kept alive by the
// binding), with its decoder.
class PySpmTokenizer : public PyPipeline<SpmPipeline> {
 public:
  template <class Model>
  PySpmTokenizer(const SpmNormalizer& normalizer, const Model& model, SpmDecoder::Options options)
      : PyPipeline(pieces_of(model.vocab()), SpecialDefault::kPlainText, normalizer, spm_model_function(model),
                   spm_reads(model)),
        decoder_(model.vocab(), std::move(options)) {}

  nb::str decode(nb::handle ids_seq, bool skip_control) const {
    const size_t size = names_->by_id.size();
    std::vector<uint32_t> ids = ids_of(ids_seq, size, [size](size_t, nb::handle item) {
      throw nb::value_error(("token id " + std::string(nb::str(item).c_str()) +
                             " is not in this tokenizer's vocabulary (0.." + std::to_string(size - 1) + ")")
                                .c_str());
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
        new (self) PySpmTokenizer(
            normalizer, model, SpmDecoder::Options{std::move(unk_surface), add_dummy_prefix, remove_extra_whitespaces});
      },
      nb::arg("normalizer"), nb::arg("model"), nb::arg("unk_surface"), nb::arg("add_dummy_prefix"),
      nb::arg("remove_extra_whitespaces"), nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>(),
      "unk_surface, add_dummy_prefix, remove_extra_whitespaces: the model's, for decoding.");
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
            return t.encode_with_policy(text, pair, flag_of(add_special, "add_special_tokens"), allowed, disallowed);
          },
          nb::arg("sequence"), nb::arg("pair").none() = nb::none(), nb::arg("add_special_tokens") = true, nb::kw_only(),
          nb::arg("allowed_special") = default_allowed, nb::arg("disallowed_special") = default_disallowed, encode_doc)
      .def(
          "encode_batch",
          [](const Py& t, nb::handle texts, nb::handle pairs, bool add_special, const SpecialMatcher* added,
             size_t threads) { return t.encode_batch(texts, pairs, add_special, added, threads); },
          nb::arg("texts"), nb::arg("pairs").none(), nb::arg("add_special_tokens"), nb::arg("added").none(),
          nb::arg("threads"));
}

}  // namespace

void bind_pipelines(nb::module_& m) {
  nb::class_<TextRules>(m, "TextRules",
                        "How text becomes words: BERT's normalizer and pre-tokenizer, or llama.cpp WPM's.")
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
                       if (!r.attention)
                         out.append(nb::str(o.names->pad.c_str()));
                       else if (r.id < by_id.size())
                         out.append(nb::str(by_id[r.id].c_str()));
                       else
                         throw nb::value_error(("token id " + std::to_string(r.id) + " has no name").c_str());
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
           "[(word, (start, end))]: the normalized words of text, spans in input code points.")
      .def(
          "set_decoder",
          [](PyWordPiece& t, bool wpm, const std::string& prefix, bool cleanup, const std::vector<uint32_t>& special) {
            t.set_decoder(WordPieceDecoder(wpm ? WordPieceDecoder::Kind::kWpm : WordPieceDecoder::Kind::kWordPiece,
                                           prefix, cleanup),
                          special);
          },
          nb::arg("wpm"), nb::arg("prefix"), nb::arg("cleanup"), nb::arg("special_ids"),
          "The decoder: HF's WordPiece (prefix, cleanup) or llama.cpp's WPM; special_ids: what "
          "skip_special_tokens drops.")
      .def("decode", &PyWordPiece::decode, nb::arg("ids"), nb::arg("skip_special_tokens") = true,
           "The text of ids, as the decoder set reads them.");
  bind_pipeline(wordpiece, nb::str("all"),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in "
                "the text become their ids when in allowed_special (default all, as HF matches them), raise when "
                "in disallowed_special, and are plain text otherwise.");

  nb::class_<PyByteLevelBpe> byte_level_bpe(m, "ByteLevelBpe",
                                            "A byte-level BPE Encoder as a Tokenizer pipeline: offsets, pairs, "
                                            "template, truncation and padding around the Encoder's own ids.");
  byte_level_bpe
      .def(nb::init<const PyEncoder&>(), nb::arg("encoder"), nb::keep_alive<1, 2>(),
           "encoder: the Encoding's native Encoder (needs a built-in split pattern).")
      .def("token_names", &PyByteLevelBpe::token_names,
           "Each id's token as HF shows byte-level BPE tokens (GPT-2's alphabet, 'Ġhello'); special tokens "
           "as their text, '' for ids without a token.")
      .def("decode", &PyByteLevelBpe::decode, nb::arg("ids"), nb::arg("skip_special_tokens") = true,
           "The text of ids (bytes joined, U+FFFD where not UTF-8); special tokens dropped unless "
           "skip_special_tokens=False.");
  bind_pipeline(byte_level_bpe, nb::tuple(),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Special-token "
                "text raises unless in allowed_special (as tiktoken's encode), or is plain text with "
                "disallowed_special=().",
                nb::str("all"));

  nb::class_<PySpmTokenizer> spm_tokenizer(m, "SpmTokenizer",
                                           "A sentencepiece model and normalizer as a Tokenizer pipeline, with "
                                           "sentencepiece's decoder.");
  def_spm_init<SpmBpeModel>(spm_tokenizer);
  def_spm_init<SpmUnigramModel>(spm_tokenizer);
  spm_tokenizer.def("decode", &PySpmTokenizer::decode, nb::arg("ids"), nb::arg("skip_control") = true,
                    "sentencepiece's decode; skip_control=False shows control pieces (<s>) as their text.");
  bind_pipeline(spm_tokenizer, nb::tuple(),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Special-token "
                "text (<s>) is plain text unless in allowed_special, and raises when in disallowed_special.");
}

}  // namespace tokenforge::bindings
