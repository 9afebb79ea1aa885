// A byte-level BPE (tiktoken's Encoder: its built-in split, the merges, special tokens) as a
// Tokenizer pipeline: rows with offsets, pairs, then the template, truncation and padding of
// processors/post_processing.h. The ids are the Encoder's own (pipelines/encoder.h runs the
// text exactly as Encoding.encode does), so the fused tiktoken path and this one cannot differ;
// a text whose template only adds ids gets them first (encode_ids), its rows when read.
//
// Offsets are spans of input code points, as HF's byte-level tokenizers report them: a token
// spans from the character holding its first byte to the one holding its last, so the tokens
// that split one character between them all span that character. Special tokens matched in the
// text are rows like any other (special_tokens_mask marks only what the template adds, as HF).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "added_tokens/special_matcher.h"
#include "base/pool.h"
#include "base/utf8.h"
#include "pipelines/encoder.h"
#include "pre_tokenizers/byte_level_alphabet.h"
#include "processors/post_processing.h"

namespace tokenforge {

class ByteLevelBpePipeline {
 public:
  // `encoder` must outlive the pipeline (the binding keeps its owner alive).
  explicit ByteLevelBpePipeline(const Encoder& encoder) : encoder_(encoder) {
    if (!encoder.has_scanner())
      throw std::invalid_argument("this byte-level BPE splits text with a pattern that has no native scanner");
    // Token lengths in one byte each (a vocabulary of 200k fits in cache; the token strings do
    // not); kLong sends longer tokens and far-away special ids to the encoder's own table.
    length_.resize(encoder.id_limit(), kLong);
    for (uint32_t id = 0; id < length_.size(); ++id)
      if (const std::string* bytes = encoder.token_bytes(id); bytes && bytes->size() < kLong)
        length_[id] = uint8_t(bytes->size());
  }

  // Each id's name: ordinary tokens in GPT-2's byte-level alphabet ("Ġhello"), special tokens as
  // their text, "" for ids without a token.
  std::vector<std::string> names() const {
    std::vector<std::string> out(encoder_.id_limit());
    const ByteLevelAlphabet& alphabet = ByteLevelAlphabet::instance();
    const BytePairModel& model = encoder_.model();
    for (uint32_t id = 0; id < out.size(); ++id) {
      if (model.has(id))
        out[id] = alphabet.name(model.bytes_of(id));
      else if (const std::string* special = encoder_.token_bytes(id))
        out[id] = *special;
    }
    return out;
  }

  // One text, or a pair, through the template; `added` (may be null) finds the allowed special
  // tokens; `post` is a snapshot the caller keeps alive (see WordPieceTokenizer).
  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special,
                 const SpecialMatcher* added, const PostProcessor& post) const {
    Pool<Scratch>::Lease scratch(scratch_);
    Encoded first = encode_sequence(a, na, added, scratch.get());
    if (!pair) return post.process(std::move(first), nullptr, add_special);
    Encoded second = encode_sequence(b, nb, added, scratch.get());
    return post.process(std::move(first), &second, add_special);
  }

  // The ids of one text alone, appended to `out` (ids first: python/py_pipeline.h builds the
  // rows with encode when they are first read): the Encoder's own encode, as Encoding.encode
  // runs it, without the bookkeeping of the pieces' ends and the characters.
  bool encode_ids(const uint8_t* s, size_t n, const SpecialMatcher* added, std::vector<uint32_t>& out) const {
    encoder_.encode(s, n, added, out);
    return true;
  }

 private:
  struct Scratch {
    std::vector<uint32_t> ids;
    std::vector<size_t> ends;  // the pieces' ends, for word ids
    void trim() {
      release_if_large(ids);
      release_if_large(ends);
    }
  };

  Encoded encode_sequence(const uint8_t* s, size_t n, const SpecialMatcher* added, Scratch& scratch) const {
    // Word ids (HF's: the index of the pre-tokenizer's piece, or of the added token): the scan
    // that encodes also says where each piece ends, and a token's word is the piece its first
    // byte is in.
    std::vector<uint32_t>& ids = scratch.ids;
    std::vector<size_t>& ends = scratch.ends;
    ids.clear();
    ends.clear();
    encoder_.encode_with_ends(s, n, added, ids, ends);
    uint32_t word = 0;
    Encoded e;
    e.rows.reserve(ids.size() + 2);  // room for a template's tokens too
    e.rows.resize(ids.size());
    Row* row = e.rows.data();
    size_t at = 0;
    if (count_characters(s, 0, n, n) == n) {  // ASCII: characters are bytes
      for (uint32_t id : ids) {
        const size_t end = at + length(id);
        while (ends[word] <= at) ++word;
        *row++ = token_row(id, uint32_t(at), uint32_t(end), word);
        at = end;
      }
      return e;
    }
    // chars = the characters that start before byte `at`; a token [at, end) starts in the
    // character holding byte `at` (one before, where `at` continues a character) and ends after
    // the one holding byte end - 1.
    uint32_t chars = 0;
    for (uint32_t id : ids) {
      const size_t end = at + length(id);
      const uint32_t first_char = chars - ((s[at] & 0xC0) == 0x80);
      for (size_t i = at; i < end; ++i) chars += (s[i] & 0xC0) != 0x80;
      while (ends[word] <= at) ++word;
      *row++ = token_row(id, first_char, chars, word);
      at = end;
    }
    return e;
  }

  size_t length(uint32_t id) const {
    return id < length_.size() && length_[id] != kLong ? length_[id] : encoder_.token_bytes(id)->size();
  }

  static constexpr uint8_t kLong = 255;
  const Encoder& encoder_;
  std::vector<uint8_t> length_;    // by id: the token's length in bytes, or kLong
  mutable Pool<Scratch> scratch_;  // reused per thread
};

}  // namespace tokenforge
