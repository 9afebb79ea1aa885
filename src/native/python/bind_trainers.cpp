// Bindings for byte-level BPE and WordPiece training: ChunkCounts (the chunk or word table of a
// corpus, trainers/chunk_counts.h), the BPE trainer (trainers/bpe_trainer.h, which may continue
// from an Encoder of python/py_encoder.h) and the WordPiece trainer (trainers/wordpiece_trainer.h).
// The Python drivers are tokenforge/trainers/; sentencepiece's trainers are bound in
// python/bind_sentencepiece.cpp. Conversions come from python/convert.h.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>

#include "python/bindings.h"
#include "python/convert.h"
#include "python/py_encoder.h"
#include "trainers/bpe_trainer.h"
#include "trainers/chunk_counts.h"
#include "trainers/wordpiece_trainer.h"

namespace tokenforge::bindings {

void bind_trainers(nb::module_& m) {
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
          [](const ChunkCounts& words, const std::string& prefix, uint32_t first_id, size_t max_chars,
             double floor_decay) {
            std::vector<std::string> alphabet;
            WordPieceTrainer* t;
            {
              nb::gil_scoped_release nogil;
              t = new WordPieceTrainer(
                  WordPieceTrainer::from_words(words, prefix, first_id, alphabet, max_chars, floor_decay));
            }
            return std::make_pair(t, alphabet);
          },
          nb::arg("words"), nb::arg("prefix"), nb::arg("first_id"), nb::arg("max_chars") = 0,
          nb::arg("floor_decay") = 0.0, nb::rv_policy::take_ownership,
          "(trainer, alphabet): the alphabet (word-initial characters, then later ones with the prefix) "
          "gets ids from first_id; words over max_chars characters (0: any) are left out. floor_decay "
          "in [0, 1] (0: the score alone): only pairs occurring at least `floor` times compete, the "
          "floor starting at the highest pair count and falling by that factor when none is left "
          "(ValueError outside [0, 1]).")
      .def(
          "train",
          [](WordPieceTrainer& t, size_t merges, int64_t min_frequency) {
            nb::gil_scoped_release nogil;
            return t.train(merges, min_frequency);
          },
          nb::arg("merges"), nb::arg("min_frequency") = 1,
          "Up to `merges` more merges: [(left id, right id), ...], each making the next id.");
}

}  // namespace tokenforge::bindings
