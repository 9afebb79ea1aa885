// Bindings for the Tokenizer pipelines: TextRules (normalizers/bert_text.h), Encoded (the rows of
// processors/post_processing.h with the names to show them by), and the pipelines WordPiece
// (pipelines/wordpiece_tokenizer.h), ByteLevelBpe (pipelines/byte_level_bpe.h over an Encoder of
// python/py_encoder.h) and SpmTokenizer (pipelines/spm_tokenizer.h over the objects of
// python/bind_sentencepiece.cpp). PyPipeline (python/py_pipeline.h) holds what they share: the
// special-token policy, the post-processor's settings, batches on threads. Conversions come from
// python/convert.h.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "added_tokens/special_matcher.h"
#include "base/parallel.h"
#include "decoders/spm_decoder.h"
#include "decoders/wordpiece_decoder.h"
#include "models/sentencepiece/spm_bpe.h"
#include "models/sentencepiece/spm_unigram.h"
#include "models/sentencepiece/spm_vocab.h"
#include "models/wordpiece/wordpiece.h"
#include "normalizers/bert_text.h"
#include "normalizers/normalizer_factory.h"
#include "normalizers/spm_normalizer.h"
#include "pipelines/byte_level_bpe.h"
#include "pipelines/spm_models.h"
#include "pipelines/spm_tokenizer.h"
#include "pipelines/wordpiece_tokenizer.h"
#include "processors/post_processing.h"
#include "python/stage_convert.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/py_encoder.h"
#include "python/py_pipeline.h"
#include "trainers/chunk_counts.h"

namespace tokenforge::bindings {

namespace {

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

  // HF's decode: ids without a token (gaps in the vocabulary) are skipped, special ones too with
  // skip_special; an id outside the vocabulary raises ValueError naming it (HF skips it).
  nb::str decode(nb::handle ids_seq, bool skip_special) const {
    const std::shared_ptr<const TokenNames> names = this->names();
    const std::vector<std::string>& by_id = names->by_id;
    const size_t size = by_id.size();
    const std::vector<uint32_t> ids = vocabulary_ids(ids_seq, size);
    std::string text;
    {
      GilReleasedFor nogil(ids.size() * 8);
      std::vector<const std::string*> tokens;
      tokens.reserve(ids.size());
      for (uint32_t id : ids)
        if (!by_id[id].empty() && !(skip_special && special_[id])) tokens.push_back(&by_id[id]);
      text = decoder_.decode(tokens);
    }
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
  // plain_text: special-token text is plain text by default (tekken), instead of refused (tiktoken).
  explicit PyByteLevelBpe(const PyEncoder& encoder, bool plain_text = false)
      : PyPipeline(ByteLevelBpePipeline(encoder.encoder()).names(),
                   plain_text ? SpecialDefault::kPlainText : SpecialDefault::kRefuse, encoder.encoder()),
        encoder_(encoder.encoder()) {}

  const std::vector<std::string>& token_names() const { return names()->by_id; }

  // The text of ids: the tokens' bytes joined (special tokens left out when skip_special), read
  // as UTF-8 with U+FFFD for bytes that are not, as Encoding.decode. As HF's decode, an id below
  // the top one that no token has (cl100k's 100256) is skipped; one above it raises ValueError
  // naming it.
  nb::str decode(nb::handle ids_seq, bool skip_special) const {
    const uint32_t top = encoder_.max_token_id();
    const std::vector<uint32_t> ids = vocabulary_ids(ids_seq, uint64_t(top) + 1);
    std::string bytes;
    {
      GilReleasedFor nogil(ids.size() * 4);
      for (uint32_t id : ids) {
        const std::string* b = encoder_.token_bytes(id);
        if (b && !(skip_special && encoder_.is_special(id))) bytes += *b;
      }
    }
    PyObject* text = PyUnicode_DecodeUTF8(bytes.data(), Py_ssize_t(bytes.size()), "replace");
    if (!text) throw nb::python_error();
    return nb::steal<nb::str>(text);
  }

 private:
  const Encoder& encoder_;
};

// Each piece's text of a sentencepiece model, by id.
std::vector<std::string> pieces_of(const SpmVocab& vocab) {
  std::vector<std::string> pieces;
  pieces.reserve(vocab.size());
  for (uint32_t id = 0; id < vocab.size(); ++id) pieces.push_back(vocab.text(id));
  return pieces;
}

// sentencepiece's pipeline over a model object and a normalizer object (both kept alive by the
// binding), with its decoder. A class with a vocabulary of its own beside the model
// (transformers' MarianTokenizer) gives `names` (its tokens by id), the SpmOutput that makes the
// model's ids its own, and for decoding each of its ids' model id (past the model's: a text of
// `raw`, a token the model lacks); its added tokens are matched by default, as transformers does.
class PySpmTokenizer : public PyPipeline<SpmPipeline> {
 public:
  template <class Model>
  PySpmTokenizer(const SpmNormalizer& normalizer, const Model& model, SpmDecoder::Options options,
                 std::vector<std::string> names = {}, SpmOutput output = {}, std::vector<uint32_t> decode_ids = {},
                 std::vector<std::string> raw = {}, std::shared_ptr<const Normalizer> pre = nullptr)
      : PyPipeline(names.empty() ? pieces_of(model.vocab()) : std::move(names),
                   output.ids.empty() ? SpecialDefault::kPlainText : SpecialDefault::kAllowAll, normalizer,
                   spm_model_function(model), spm_reads(model), word_starts(model), std::move(output), std::move(pre)),
        decoder_(model.vocab(), std::move(options), std::move(raw)),
        decode_ids_(std::move(decode_ids)) {
    for (uint32_t id : decode_ids_)
      if (id >= decoder_.size()) throw nb::value_error("SpmTokenizer: a decode id is past the model and raw texts");
  }

  nb::str decode(nb::handle ids_seq, bool skip_control) const {
    const size_t size = names_->by_id.size();
    std::vector<uint32_t> ids = vocabulary_ids(ids_seq, size);
    std::string text;
    {
      GilReleasedFor nogil(ids.size() * 4);
      if (!decode_ids_.empty())
        for (uint32_t& id : ids) id = id < decode_ids_.size() ? decode_ids_[id] : id;
      text = decoder_.decode(ids.data(), ids.size(), skip_control);
    }
    return nb::str(text.data(), text.size());
  }

  // The special tokens decode_segments splits at (id -> text), what it writes after each and
  // what before the text before each (where the id before is not a special one); set once,
  // before any decode.
  void set_segments(const std::vector<std::pair<uint32_t, std::string>>& specials, std::string after,
                    std::string before) {
    after_special_ = std::move(after);
    before_special_ = std::move(before);
    special_text_.assign(names_->by_id.size(), std::string());
    is_special_.assign(names_->by_id.size(), 0);
    for (const auto& [id, text] : specials)
      if (id < is_special_.size()) is_special_[id] = 1, special_text_[id] = text;
  }

  // SpmPipeline::class_tokens of one text, the added tokens named as the tokenizer names them.
  std::vector<std::string> class_tokens(nb::handle text, const SpecialMatcher* added) const {
    const Text t = utf8_of(text);
    const std::shared_ptr<const TokenNames> names = this->names();
    std::vector<std::string> out;
    tok_.class_tokens(t.data, t.size, added, names->by_id, out);
    return out;
  }

  // M2M100Tokenizer's, MarianTokenizer's and GPTSw3Tokenizer's convert_tokens_to_string: the
  // ids between special tokens decoded on their own (control pieces invisible), each special
  // token's text (and around it what set_segments says: Marian's space after, GPT-SW3's before
  // the text before it); with skip_special the special ids left out and the rest decoded as one.
  nb::str decode_segments(nb::handle ids_seq, bool skip_special) const {
    const size_t size = names_->by_id.size();
    std::vector<uint32_t> ids = vocabulary_ids(ids_seq, size);
    std::string text;
    {
      GilReleasedFor nogil(ids.size() * 4);
      std::vector<uint32_t> run;
      run.reserve(ids.size());
      auto flush = [&] {
        text += decoder_.decode(run.data(), run.size(), true);
        run.clear();
      };
      bool after_special = false;  // whether the id before was a special one
      for (uint32_t id : ids) {
        if (id < is_special_.size() && is_special_[id]) {
          if (skip_special) continue;
          if (!after_special) text += before_special_;
          flush();
          text += special_text_[id];
          text += after_special_;
          after_special = true;
          continue;
        }
        run.push_back(id < decode_ids_.size() ? decode_ids_[id] : id);
        after_special = false;
      }
      flush();
    }
    return nb::str(text.data(), text.size());
  }

 private:
  // Which pieces start a word, as the tokenizer.json transformers converts the model to splits
  // them (see pipelines/spm_tokenizer.h): none for BPE (a stretch is a word), "▁..." for Unigram.
  static std::vector<uint8_t> word_starts(const SpmBpeModel&) { return {}; }
  static std::vector<uint8_t> word_starts(const SpmUnigramModel& model) {
    const SpmVocab& vocab = model.vocab();
    std::vector<uint8_t> starts(vocab.size(), 0);
    for (uint32_t id = 0; id < vocab.size(); ++id) starts[id] = vocab.text(id).rfind("\xE2\x96\x81", 0) == 0;
    return starts;
  }

  SpmDecoder decoder_;
  std::vector<uint32_t> decode_ids_;  // by id, the id the decoder reads (empty: the same)
  std::vector<uint8_t> is_special_;   // by id, whether decode_segments splits there
  std::vector<std::string> special_text_;
  std::string after_special_, before_special_;
};

// SpmTokenizer(normalizer, model, ...) for one model class (BPE, Unigram).
template <class Model>
void def_spm_init(nb::class_<PySpmTokenizer>& c) {
  c.def(
      "__init__",
      [](PySpmTokenizer* self, const SpmNormalizer& normalizer, const Model& model, std::string unk_surface,
         bool add_dummy_prefix, bool remove_extra_whitespaces, std::vector<std::string> names,
         std::vector<uint32_t> ids, nb::dict vocabulary_dict, uint32_t unknown, bool leading_code,
         std::vector<uint32_t> decode_ids, std::vector<std::string> raw, nb::handle pre_normalizer) {
        const size_t pieces = model.vocab().size();
        if (!ids.empty() && ids.size() != pieces)
          throw nb::value_error("SpmTokenizer: ids must give one id for each of the model's pieces");
        for (uint32_t id : ids)
          if (id >= names.size()) throw nb::value_error("SpmTokenizer: an id in ids has no name in names");
        // (a dict read by hand: ChunkCounts, an unordered_map bound as a class, keeps its binding)
        std::unordered_map<std::string, uint32_t> vocabulary;
        vocabulary.reserve(vocabulary_dict.size());
        for (auto [key, value] : vocabulary_dict) {
          const uint32_t id = nb::cast<uint32_t>(value);
          if (id >= names.size()) throw nb::value_error("SpmTokenizer: an id in vocabulary has no name in names");
          vocabulary.emplace(nb::cast<std::string>(key), id);
        }
        if (ids.empty() && (leading_code || !vocabulary.empty()))
          throw nb::value_error("SpmTokenizer: vocabulary and leading_code need ids");
        if (!ids.empty() && unknown >= names.size())
          throw nb::value_error("SpmTokenizer: the unknown id has no name in names");
        if (!decode_ids.empty() && decode_ids.size() != names.size())
          throw nb::value_error("SpmTokenizer: decode_ids must give one id for each name");
        SpmOutput output{std::move(ids), std::move(vocabulary), unknown, model.vocab().unk_id(), {}, leading_code};
        if (!output.ids.empty()) output.pieces = pieces_of(model.vocab());
        std::shared_ptr<const Normalizer> pre;
        if (!pre_normalizer.is_none()) {
          const OptionValue stage = stage_of(pre_normalizer, "pre_normalizer", "normalizers");
          if (stage.kind != OptionValue::Kind::kNull) pre = make_normalizer(stage);
        }
        new (self) PySpmTokenizer(
            normalizer, model, SpmDecoder::Options{std::move(unk_surface), add_dummy_prefix, remove_extra_whitespaces},
            std::move(names), std::move(output), std::move(decode_ids), std::move(raw), std::move(pre));
      },
      nb::arg("normalizer"), nb::arg("model"), nb::arg("unk_surface"), nb::arg("add_dummy_prefix"),
      nb::arg("remove_extra_whitespaces"), nb::arg("names") = std::vector<std::string>{},
      nb::arg("ids") = std::vector<uint32_t>{}, nb::arg("vocabulary") = nb::dict(), nb::arg("unknown") = 0,
      nb::arg("leading_code") = false, nb::arg("decode_ids") = std::vector<uint32_t>{},
      nb::arg("raw") = std::vector<std::string>{}, nb::arg("pre_normalizer") = nb::none(), nb::keep_alive<1, 2>(),
      nb::keep_alive<1, 3>(),
      "unk_surface, add_dummy_prefix, remove_extra_whitespaces: the model's, for decoding. A vocabulary of "
      "the class's own (MarianTokenizer's vocab.json): names (its tokens by id), ids (by piece, the id given), "
      "vocabulary (text -> id: a run of unknown characters and a language code by their text, `unknown` for "
      "a text it lacks), leading_code (a text's leading >>xx<< one token), decode_ids (by id, the piece "
      "decoded: past the model's, raw[id - pieces] written as it is). pre_normalizer: [(type, options), ...] "
      "of HF normalizers that rewrite each text before the model's normalizer (GPTSw3Tokenizer's "
      "preprocess_text); offsets map back through them.");
}

// A Python int as an index (HF's usize / u32 arguments): OverflowError when negative or past
// `max`, TypeError when not an integer.
uint64_t index_of(nb::handle value, uint64_t max) {
  PyObject* index = PyNumber_Index(value.ptr());
  if (!index) throw nb::python_error();
  const unsigned long long v = PyLong_AsUnsignedLongLong(index);
  Py_DECREF(index);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) throw nb::python_error();
  if (v > max) {
    PyErr_SetString(PyExc_OverflowError, "index out of range");
    throw nb::python_error();
  }
  return v;
}
constexpr uint64_t kAnyIndex = ~uint64_t(0);

template <class T>
nb::object maybe(const std::optional<T>& v) {
  return v ? nb::cast(*v) : nb::none();
}
template <class T>
nb::object maybe_pair(const std::optional<std::pair<T, T>>& v) {
  return v ? nb::object(nb::make_tuple(v->first, v->second)) : nb::none();
}

// HF Encoding's word and sequence accessors (tokenizer/encoding.rs, with its Python binding's
// names and defaults): misses are None, as HF's.
void bind_encoded_accessors(nb::class_<PyEncoded>& c) {
  auto word_ids = [](const PyEncoded& o) {
    nb::list out;
    for (const Row& r : o.get().rows) out.append(r.word == kNoWord ? nb::none() : nb::cast(r.word));
    return out;
  };
  c.def_prop_ro("word_ids", word_ids,
                "Each token's word: the index of the pre-tokenized piece it came from in its text (an added token "
                "in the text is a word of its own); None for the special tokens the template adds and padding.")
      .def_prop_ro(
          "words",
          [word_ids](const PyEncoded& o) {
            if (PyErr_WarnEx(PyExc_DeprecationWarning,
                             "Encoding.words is deprecated, please use Encoding.word_ids instead.", 1) < 0)
              throw nb::python_error();
            return word_ids(o);
          },
          "word_ids (deprecated, as HF's).")
      .def_prop_ro(
          "sequence_ids",
          [](const PyEncoded& o) {
            nb::list out;
            const Encoded& e = o.get();
            for (size_t i = 0; i < e.size(); ++i) out.append(maybe(e.sequence_of(i)));
            return out;
          },
          "Each token's text: 0 (the first), 1 (the pair), None for template special tokens and padding.")
      .def_prop_ro(
          "n_sequences",
          [](const PyEncoded& o) {
            return o.lazy ? size_t(1) : o.e.n_sequences();  // (ids first: one text, no pair)
          },
          "How many texts were encoded.")
      .def(
          "word_to_tokens",
          [](const PyEncoded& o, nb::handle word, nb::handle sequence) {
            return maybe_pair(
                o.get().word_to_tokens(uint32_t(index_of(word, UINT32_MAX)), index_of(sequence, kAnyIndex)));
          },
          nb::arg("word_index"), nb::arg("sequence_index") = 0,
          "(first token, last token + 1) of the word in the given text, or None.")
      .def(
          "word_to_chars",
          [](const PyEncoded& o, nb::handle word, nb::handle sequence) {
            return maybe_pair(
                o.get().word_to_chars(uint32_t(index_of(word, UINT32_MAX)), index_of(sequence, kAnyIndex)));
          },
          nb::arg("word_index"), nb::arg("sequence_index") = 0,
          "The word's span of input code points in the given text, or None.")
      .def(
          "token_to_sequence",
          [](const PyEncoded& o, nb::handle token) {
            return maybe(o.get().token_to_sequence(index_of(token, kAnyIndex)));
          },
          nb::arg("token_index"), "The text the token is of (0 or 1), or None.")
      .def(
          "token_to_chars",
          [](const PyEncoded& o, nb::handle token) {
            return maybe_pair(o.get().token_to_chars(index_of(token, kAnyIndex)));
          },
          nb::arg("token_index"), "The token's span of input code points, or None (template specials, padding).")
      .def(
          "token_to_word",
          [](const PyEncoded& o, nb::handle token) { return maybe(o.get().token_to_word(index_of(token, kAnyIndex))); },
          nb::arg("token_index"), "The token's word in its text, or None.")
      .def(
          "char_to_token",
          [](const PyEncoded& o, nb::handle pos, nb::handle sequence) {
            return maybe(o.get().char_to_token(index_of(pos, kAnyIndex), index_of(sequence, kAnyIndex)));
          },
          nb::arg("char_pos"), nb::arg("sequence_index") = 0,
          "The token holding the input code point char_pos of the given text, or None.")
      .def(
          "char_to_word",
          [](const PyEncoded& o, nb::handle pos, nb::handle sequence) {
            return maybe(o.get().char_to_word(index_of(pos, kAnyIndex), index_of(sequence, kAnyIndex)));
          },
          nb::arg("char_pos"), nb::arg("sequence_index") = 0,
          "The word holding the input code point char_pos of the given text, or None.");
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

  nb::class_<PyEncoded> encoded(
      m, "Encoded",
      "One text (or pair) encoded: ids, tokens, offsets (code-point spans of the input; (0, 0) "
      "for special tokens the template adds), type ids, attention mask, special-tokens mask, and "
      "the overflowing parts that truncation cut off.");
  encoded.def("__len__", [](const PyEncoded& o) { return o.size(); })
      .def_prop_ro("ids",
                   [](const PyEncoded& o) {
                     // Ids first: one fill from the contiguous ids, no rows built.
                     if (o.lazy) return IdInts::instance().list(o.lazy->ids);
                     return row_ints(o.e, [](const Row& r) { return r.id; });
                   })
      // (Ids first: the masks from the template, no rows built.)
      .def_prop_ro("type_ids",
                   [](const PyEncoded& o) {
                     if (const LazyRows* l = o.lazy.get())
                       return IdInts::instance().list_of(l->ids.size(), [l](size_t i) { return l->type_id(i); });
                     return row_ints(o.e, [](const Row& r) { return r.type_id; });
                   })
      .def_prop_ro("special_tokens_mask",
                   [](const PyEncoded& o) {
                     if (const LazyRows* l = o.lazy.get())
                       return IdInts::instance().list_of(l->ids.size(),
                                                         [l](size_t i) { return uint32_t(l->special(i)); });
                     return row_ints(o.e, [](const Row& r) { return r.special; });
                   })
      .def_prop_ro("attention_mask",
                   [](const PyEncoded& o) {
                     if (o.lazy) return IdInts::instance().list_of(o.lazy->ids.size(), [](size_t) { return 1u; });
                     return row_ints(o.e, [](const Row& r) { return r.attention; });
                   })
      .def_prop_ro("offsets",
                   [](const PyEncoded& o) {
                     const Row* rows = o.get().rows.data();
                     return IdInts::instance().pair_list_of(o.get().rows.size(), [rows](size_t i) {
                       return std::pair<uint32_t, uint32_t>(rows[i].start, rows[i].end);
                     });
                   })
      .def_prop_ro("tokens",
                   [](const PyEncoded& o) {
                     nb::list out;
                     const Encoded& e = o.get();
                     const std::vector<std::string>& by_id = o.names->by_id;
                     // A row of Encoded::texts shows its own text (HF's Unigram unknown pieces); rows
                     // of equal id, word and offsets take their texts in order. The texts are sorted
                     // by that key (then by place), so each row finds its group in log time and
                     // takes the group's next text.
                     using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;
                     auto key_of = [](const TokenText& t) { return Key{t.sequence, t.word, t.start, t.end, t.id}; };
                     std::vector<uint32_t> order(e.texts.size());
                     for (size_t i = 0; i < order.size(); ++i) order[i] = uint32_t(i);
                     std::stable_sort(order.begin(), order.end(),
                                      [&](uint32_t a, uint32_t b) { return key_of(e.texts[a]) < key_of(e.texts[b]); });
                     std::vector<uint32_t> taken(order.size(), 0);  // at a group's first place: texts taken
                     auto text_of = [&](const Key& key) -> const std::string* {
                       const auto first =
                           std::lower_bound(order.begin(), order.end(), key,
                                            [&](uint32_t i, const Key& k) { return key_of(e.texts[i]) < k; });
                       if (first == order.end() || key_of(e.texts[*first]) != key) return nullptr;
                       const size_t at = size_t(first - order.begin());
                       const size_t next = at + taken[at];
                       if (next >= order.size() || key_of(e.texts[order[next]]) != key) return nullptr;
                       ++taken[at];
                       return &e.texts[order[next]].text;
                     };
                     // A row without a sequence (an overflowing part's: HF gives those no ranges) came
                     // from either text: the first's texts are taken first, as its rows come first.
                     auto own_text = [&](const Row& r) -> const std::string* {
                       if (r.special || r.word == kNoWord) return nullptr;
                       if (r.sequence != kNoSequence)
                         return text_of(Key{uint32_t(r.sequence), r.word, r.start, r.end, r.id});
                       const std::string* t = text_of(Key{0u, r.word, r.start, r.end, r.id});
                       return t ? t : text_of(Key{1u, r.word, r.start, r.end, r.id});
                     };
                     for (const Row& r : e.rows) {
                       const std::string* own = e.texts.empty() || !r.attention ? nullptr : own_text(r);
                       if (own)
                         out.append(nb::str(own->data(), own->size()));
                       else if (!r.attention)
                         out.append(nb::str(o.names->pad.c_str()));
                       else if (r.name && r.name <= e.names.size())
                         out.append(nb::str(e.names[r.name - 1].data(), e.names[r.name - 1].size()));
                       else if (r.id < by_id.size())
                         out.append(nb::str(by_id[r.id].c_str()));
                       else
                         throw nb::value_error(("token id " + std::to_string(r.id) + " has no name").c_str());
                     }
                     return out;
                   })
      .def_prop_ro("overflowing", [](const PyEncoded& o) {
        std::vector<PyEncoded> out;
        if (o.lazy) return out;  // (ids first: nothing truncated)
        const Encoded& e = o.get();
        for (const Encoded& part : e.overflowing) {
          out.push_back(PyEncoded{part, o.names, nullptr});
          out.back().e.texts = e.texts;  // the parts' rows are among the whole's
        }
        return out;
      });
  bind_encoded_accessors(encoded);
  encoded.def("__repr__", [](const PyEncoded& o) {
    // A lazy encoding (ids first) has no overflowing parts: truncation builds rows eagerly.
    if (o.lazy) return "Encoded(" + std::to_string(o.size()) + " tokens, 0 overflowing, ids first)";
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
      .def(nb::init<const PyEncoder&, bool>(), nb::arg("encoder"), nb::arg("plain_text") = false,
           nb::keep_alive<1, 2>(),
           "encoder: the Encoding's native Encoder (needs a built-in split pattern); plain_text: the default "
           "policy (allowed_special=(), disallowed_special=()) reads special-token text as plain text without "
           "a call back into Python (tekken's default; encode's own defaults stay tiktoken's).")
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
  spm_tokenizer.def("set_segments", &PySpmTokenizer::set_segments, nb::arg("specials"), nb::arg("after"),
                    nb::arg("before") = "",
                    "The special tokens (id, text) decode_segments splits at, what it writes after each and what "
                    "before the text before each (where the id before is not a special one); set once, before any "
                    "decode.");
  spm_tokenizer.def("decode_segments", &PySpmTokenizer::decode_segments, nb::arg("ids"), nb::arg("skip_special"),
                    "M2M100's, Marian's and GPT-SW3's convert_tokens_to_string: the ids between special tokens "
                    "decoded on their own, each special token's text and set_segments' `before` and `after` (none "
                    "with skip_special).");
  spm_tokenizer.def("class_tokens", &PySpmTokenizer::class_tokens, nb::arg("text"), nb::arg("added").none(),
                    "The tokens a Python class over sentencepiece gives for a text where it keeps a vocabulary of "
                    "its own (its tokenize): sentencepiece's pieces by their text, also where the vocabulary lacks "
                    "one (an unknown run by its normalized text), a leading language code by its text, each added "
                    "token `added` matches by its name.");
  bind_pipeline(spm_tokenizer, nb::none(),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Special-token "
                "text (<s>) is plain text unless in allowed_special (None: the pipeline's default, () or, with a "
                "vocabulary of its own, \"all\" added tokens), and raises when in disallowed_special.");
}

}  // namespace tokenforge::bindings
