// Bindings for sentencepiece's parts: SpmNormalizer (normalizers/spm_normalizer.h), the Unigram
// and BPE trainers (trainers/unigram_trainer.h, trainers/spm_bpe_trainer.h over
// trainers/spm_training_corpus.h; tokenforge/trainers/sentencepiece.py drives them), the BPE and
// Unigram models with their sampling (models/sentencepiece/), and SpmEncoder, a model behind its
// normalizer (pipelines/spm_tokenizer.h, the models called as pipelines/spm_models.h says), and
// spm_model_records, the pieces of a `.model` file (formats/spm_model_file.h). The
// Tokenizer pipeline over the same objects, SpmTokenizer, is in python/bind_pipelines.cpp;
// conversions come from python/convert.h.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>

#include "base/parallel.h"
#include "formats/spm_model_file.h"
#include "models/sentencepiece/spm_bpe.h"
#include "models/sentencepiece/spm_unigram.h"
#include "models/sentencepiece/spm_vocab.h"
#include "normalizers/spm_normalizer.h"
#include "pipelines/spm_models.h"
#include "pipelines/spm_tokenizer.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "trainers/spm_bpe_trainer.h"
#include "trainers/spm_training_corpus.h"
#include "trainers/unigram_trainer.h"

namespace tokenforge::bindings {

namespace {

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
        new (self) SpmEncoder(normalizer, spm_model_function(model), spm_reads(model));
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
             std::vector<std::string> meta_pieces, std::vector<std::string> user_defined, int max_piece_length,
             bool split_by_whitespace, bool split_by_unicode_script, bool split_by_number, bool split_digits,
             bool allow_whitespace_only_pieces, double character_coverage, size_t threads, nb::kwargs options) {
            SpmNormalizer normalizer(std::string_view(charsmap.c_str(), charsmap.size()),
                                     {add_dummy_prefix, remove_extra_whitespaces, true, false},
                                     std::move(user_defined));
            SpmTrainingCorpus::Options o;
            o.rules = {max_piece_length, split_by_whitespace, split_by_unicode_script,
                       split_by_number,  split_digits,        allow_whitespace_only_pieces};
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
          nb::arg("threads"), nb::arg("options"), "Unigram takes seed_size= and shrinking_factor= as well.")
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

void bind_sentencepiece(nb::module_& m) {
  m.def(
      "spm_model_records",
      [](nb::bytes data) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(data.c_str());
        SpmModelRecords records;
        {
          nb::gil_scoped_release release;
          records = read_spm_model_records(bytes, data.size());
        }
        const size_t n = records.pieces.size();
        nb::list texts, scores, types, others;
        for (size_t i = 0; i < n; ++i) {
          const SpmPieceRecord& p = records.pieces[i];
          PyObject* text = PyUnicode_DecodeUTF8(data.c_str() + p.start, Py_ssize_t(p.length), nullptr);
          if (text == nullptr) throw nb::python_error();  // (checked UTF-8: memory only)
          texts.append(nb::steal(text));
          scores.append(double(p.score));
          types.append(int(p.type));
        }
        for (const SpmOtherField& f : records.others) {
          nb::object value = f.wire_type == 2 ? nb::object(nb::bytes(data.c_str() + f.start, f.length))
                                              : nb::object(nb::int_(f.value));
          others.append(nb::make_tuple(nb::int_(f.number), int(f.wire_type), value));
        }
        nb::object error =
            records.error.empty() ? nb::none() : nb::object(nb::make_tuple(records.error_where, records.error));
        return nb::make_tuple(texts, scores, types, others, error);
      },
      nb::arg("data"),
      "The pieces of a sentencepiece ModelProto's bytes as (texts, scores, types, others, error): "
      "its other top-level fields as (number, wire type, value: int or bytes) in file order, and "
      "the first problem in the wire format or a piece as (where, message), or None (then the "
      "lists stop there).");
  nb::class_<SpmNormalizer>(m, "SpmNormalizer", "sentencepiece's normalizer from a model's normalizer spec.")
      .def(
          "__init__",
          [](SpmNormalizer* self, nb::bytes charsmap, bool add_dummy_prefix, bool remove_extra_whitespaces,
             bool escape_whitespaces, bool whitespace_as_suffix, std::vector<std::string> user_defined) {
            new (self)
                SpmNormalizer(std::string_view(charsmap.c_str(), charsmap.size()),
                              {add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces, whitespace_as_suffix},
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
            std::vector<uint32_t> offsets;
            {
              nb::gil_scoped_release nogil;
              out = n.normalize_with_offsets(t.data, t.size, offsets);
            }
            return std::make_pair(nb::str(out.data(), out.size()), IdInts::instance().list(offsets));
          },
          nb::arg("text"),
          "(normalized, offsets): for each normalized character, and for the end, the input character it "
          "came from, as sentencepiece's normalize(text, with_offsets=True).");
  bind_spm_trainer<UnigramTrainer>(m, "UnigramTrainer",
                                   "sentencepiece's Unigram trainer; trainers/sentencepiece.py drives it.")
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
  bind_spm_trainer<SpmBpeTrainer>(m, "SpmBpeTrainer",
                                  "sentencepiece's BPE trainer; trainers/sentencepiece.py drives it.")
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
              with_rng(seed,
                       [&](std::mt19937_64& rng) { model.sample_encode(t.data, t.size, alpha, nbest_size, rng, ids); });
            }
            return IdInts::instance().list(ids);
          },
          nb::arg("normalized"), nb::arg("alpha"), nb::arg("nbest_size"), nb::arg("seed").none(),
          "A segmentation drawn with probability proportional to exp(alpha * score), among the nbest_size best "
          "(all if negative).");
  nb::class_<SpmEncoder> spm_encoder(m, "SpmEncoder",
                                     "A sentencepiece model behind its normalizer: sentencepiece's encode.");
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
            threads = threads_for_text(threads, all);
            {
              nb::gil_scoped_release nogil;
              parallel_for(
                  all.size(), threads, [&](size_t i) { e.encode(all[i].data, all[i].size, out[i]); }, SignalPoll());
            }
            return IdInts::instance().lists(out, threads);
          },
          nb::arg("texts"), nb::arg("threads"));
}

}  // namespace tokenforge::bindings
