// The parts of the Python module tokenforge._core, one per translation unit so they compile in
// parallel: each python/bind_*.cpp registers its classes and functions on the module, converting
// with python/convert.h and calling the native pipeline stages. python/module.cpp calls them in
// the order below, which is the order of the module's attributes; a part may name classes of the
// parts before it.
#pragma once
#include <nanobind/nanobind.h>

namespace tokenforge::bindings {

// SpecialMatcher, Encoder (tiktoken's byte-level BPE) and char_classes, the character classes'
// test hook (python/bind_encoding.cpp).
void bind_encoding(nanobind::module_& m);

// ChunkCounts and the byte-level BPE and WordPiece trainers (python/bind_trainers.cpp).
void bind_trainers(nanobind::module_& m);

// sentencepiece's normalizer, its Unigram and BPE trainers, its BPE and Unigram models, and
// SpmEncoder (python/bind_sentencepiece.cpp).
void bind_sentencepiece(nanobind::module_& m);

// The Tokenizer pipelines: TextRules, Encoded, WordPiece, ByteLevelBpe and SpmTokenizer
// (python/bind_pipelines.cpp).
void bind_pipelines(nanobind::module_& m);

// _piece_ends, the built-in scanners' test hook, and parse_tiktoken (python/bind_tools.cpp).
void bind_tools(nanobind::module_& m);

// The staged pipeline: Staged (python/bind_staged.cpp).
void bind_staged(nanobind::module_& m);
// unicode_normalize (NFC, NFD, NFKC, NFKD as HF tokenizers gives them) and
// unicode_normalize_changes, its alignments' test hook (python/bind_unicode_normalization.cpp).
void bind_unicode_normalization(nanobind::module_& m);
// BpeModel, HF tokenizers' BPE model (python/bind_bpe_model.cpp).
void bind_bpe_model(nanobind::module_& m);
// Regex, the Oniguruma-run patterns of tokenizer files, as a test hook (python/bind_regex.cpp).
void bind_regex(nanobind::module_& m);
// ByteLevelHfBpe, the fused byte-level BPE of tokenizer.json files, and _hf_split_ends, its
// scanners' test hook (python/bind_byte_level_hf_bpe.cpp).
void bind_byte_level_hf_bpe(nanobind::module_& m);
// grapheme_clusters, the extended grapheme clusters' test hook (python/bind_graphemes.cpp).
void bind_graphemes(nanobind::module_& m);
// SpmHfBpe, the fused sentencepiece-style BPE of tokenizer.json files (python/bind_spm_hf_bpe.cpp).
void bind_spm_hf_bpe(nanobind::module_& m);
// UnigramHf, the fused Unigram of tokenizer.json files (python/bind_unigram_hf.cpp).
void bind_unigram_hf(nanobind::module_& m);
// gguf_strings, the string arrays of GGUF files' metadata (python/bind_gguf.cpp).
void bind_gguf(nanobind::module_& m);
// dump_chunk_counts and add_dumped_chunk_counts, the chunk table as bytes for cluster workers
// (python/bind_cluster.cpp).
void bind_cluster(nanobind::module_& m);
// encode_flat, a corpus work unit's documents as one flat array of ids (python/bind_corpus.cpp).
void bind_corpus(nanobind::module_& m);
// _pre_split_ends, the test hook of DeepSeek's built-in pre-tokenizer stages
// (python/bind_split_sequence.cpp).
void bind_split_sequence(nanobind::module_& m);

}  // namespace tokenforge::bindings
