// A sentencepiece model as a Tokenizer pipeline. Allowed special tokens are matched in the raw
// text first; each text between them is encoded as sentencepiece encodes a whole text
// (normalized, then the model), so "A<s>B" gives A's tokens, <s>, then B's. Offsets are
// sentencepiece's (a token spans the input from where its first normalized byte came from to
// where the byte after its last came from), in code points of the input. Then the template
// (bos/eos), truncation and padding.
//
// Word ids are those of the tokenizer.json transformers converts the model to: a BPE model
// (Llama's) has no splitting pre-tokenizer there, so each stretch between added tokens is one
// word; a Unigram model gets Metaspace(split=True), so a word starts at each piece that starts
// with "▁" (and at each stretch's first piece). Added tokens are words of their own.
//
// SpmOutput renames the model's ids where a class keeps a vocabulary of its own beside the
// model (transformers' MarianTokenizer: vocab.json's id of each piece, the unknown id for a
// piece it lacks) and takes the language code a stretch starts with (">>fr<<") as one token.
// A class that rewrites each text before sentencepiece sees it (GPTSw3Tokenizer's
// preprocess_text) gives that rewrite as a staged-pipeline normalizer (normalizers/normalizer.h),
// the encoder's `pre`: offsets then map back through its alignments.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/bytes.h"
#include "base/default_init.h"
#include "base/pool.h"
#include "base/utf8.h"
#include "processors/post_processing.h"
#include "added_tokens/special_matcher.h"
#include "normalizers/normalizer.h"
#include "normalizers/spm_normalizer.h"
#include "text/normalized_text.h"

namespace tokenforge {

// What a model can read besides normalized text (see SpmEscaping): `input`, a text that its
// normalizer only escapes, as it is (the model then counts what its ids cover in characters);
// `spaces`, normalized text with its spaces left as " ".
struct SpmReads {
  bool input = false, spaces = false;
};

// A model behind its normalizer: one text as sentencepiece encodes it.
class SpmEncoder {
 public:
  // Encodes the model's input s[0..n), read as `how` says (SpmBpeModel::encode): appends its ids,
  // and to `lengths` what each covers of it.
  using Encode = std::function<void(const uint8_t*, size_t, SpmEscaping how, std::vector<uint32_t>& ids,
                                    std::vector<uint32_t>* lengths)>;
  // Normalizes text s[0..n) into `normalized` (with spaces as is where the model reads them so)
  // and appends its ids, in one pass where it can; false where it cannot for this text
  // (nothing appended then). With lengths, also what each id covers of the normalized text,
  // norm_to_orig and the characters of s as SpmNormalizer::normalize gives them in characters.
  using Fused = std::function<bool(const uint8_t*, size_t, std::string& normalized, std::vector<uint32_t>& ids,
                                   std::vector<uint32_t>* lengths, DefaultInitVector<uint32_t>* norm_to_orig,
                                   uint32_t* characters)>;
  // A model: its Encode, and optionally what makes its Fused for a normalizer (given whether
  // spaces stay as they are; it may return none).
  struct Model {
    Encode encode;
    std::function<Fused(const SpmNormalizer&, bool spaces_as_is)> fuse;
    Model() = default;
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Model>>>
    Model(F f) : encode(std::move(f)) {}  // NOLINT: an Encode is a Model
  };

  // `normalizer` must outlive the encoder (the bindings keep its owner alive). Where the
  // normalizer only escapes and the model reads such input, the text skips the normalizer; where
  // the model reads spaces as "▁", the normalizer leaves them as they are.
  SpmEncoder(const SpmNormalizer& normalizer, Model model, SpmReads reads,
             std::shared_ptr<const Normalizer> pre = nullptr)
      : pre_(std::move(pre)),
        normalizer_(normalizer),
        model_(std::move(model.encode)),
        counts_characters_(reads.input),
        escaped_(reads.input && normalizer.escapes_only()),
        spaces_as_is_(reads.spaces && normalizer.escaping().escape) {
    if (model.fuse && !escaped_) fused_ = model.fuse(normalizer, spaces_as_is_);
  }

  // Appends the ids of text s[0..n) to ids. With `bounds`, also (replacing its contents) where
  // each starts in the input, in characters, and where the last ends (sentencepiece's offsets:
  // an id that ends inside a character ends at its start), and returns the characters of
  // s[0..n) (the normalizer counts them as it aligns); without, 0.
  uint32_t encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids,
                  std::vector<uint32_t>* bounds = nullptr) const {
    if (pre_) return encode_rewritten(s, n, ids, bounds);
    return encode_as_is(s, n, ids, bounds);
  }

  // The normalized text of each `unknown` id the model gives text s[0..n), in order: what
  // sentencepiece's pieces show for a run of unknown characters (a slower pass, for the texts
  // that have one).
  void unknown_texts(const uint8_t* s, size_t n, uint32_t unknown, std::vector<std::string>& out) const {
    if (pre_) {
      NormalizedText text(reinterpret_cast<const char*>(s), n, 0, false);
      pre_->normalize(text);
      const std::string& t = text.text();
      return unknown_texts_as_is(reinterpret_cast<const uint8_t*>(t.data()), t.size(), unknown, out);
    }
    unknown_texts_as_is(s, n, unknown, out);
  }

  // encode() without `pre`.
  uint32_t encode_as_is(const uint8_t* s, size_t n, std::vector<uint32_t>& ids,
                        std::vector<uint32_t>* bounds = nullptr) const {
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& scratch = lease.get();
    std::vector<uint32_t>& lengths = scratch.lengths;
    lengths.clear();
    uint32_t characters = 0;
    if (escaped_) {
      model_(s, n, normalizer_.escaping(), ids, bounds ? &lengths : nullptr);
    } else if (fused_ && fused_(s, n, scratch.normalized, ids, bounds ? &lengths : nullptr,
                                bounds ? &scratch.norm_to_orig : nullptr, bounds ? &characters : nullptr)) {
      if (!bounds) return 0;
    } else {
      // With bounds, the alignment comes in input characters: for each normalized byte the
      // input character it came from (a byte inside a character counts as its start).
      normalizer_.normalize(s, n, scratch.normalized, bounds ? &scratch.norm_to_orig : nullptr, spaces_as_is_,
                            bounds ? &characters : nullptr);
      model_(reinterpret_cast<const uint8_t*>(scratch.normalized.data()), scratch.normalized.size(),
             SpmEscaping{false, spaces_as_is_}, ids, bounds ? &lengths : nullptr);
    }
    if (!bounds) return 0;
    bounds->resize(lengths.empty() ? 0 : lengths.size() + 1);
    if (escaped_) characters = count_characters(s, 0, n, n);
    if (lengths.empty()) return characters;
    uint32_t* b = bounds->data();
    uint32_t at = 0;
    if (escaped_) {  // the model counted the input's characters
      b[0] = 0;
      for (size_t i = 0; i < lengths.size(); ++i) b[i + 1] = at += lengths[i];
      return characters;
    }
    const std::string& text = scratch.normalized;
    const uint32_t* to_orig = scratch.norm_to_orig.data();
    b[0] = to_orig[0];
    if (counts_characters_) {  // lengths in normalized characters
      for (size_t i = 0; i < lengths.size(); ++i) {
        for (uint32_t k = 0; k < lengths[i]; ++k) at += uint32_t(utf8_length(uint8_t(text[at])));
        b[i + 1] = to_orig[at];
      }
    } else {
      const uint32_t* length = lengths.data();
      for (size_t i = 0; i < lengths.size(); ++i) b[i + 1] = to_orig[at += length[i]];
    }
    return characters;
  }

  // unknown_texts() without `pre`.
  void unknown_texts_as_is(const uint8_t* s, size_t n, uint32_t unknown, std::vector<std::string>& out) const {
    std::string normalized;
    normalizer_.normalize<std::vector<uint32_t>>(s, n, normalized, nullptr, spaces_as_is_);
    std::vector<uint32_t> ids, lengths;
    model_(reinterpret_cast<const uint8_t*>(normalized.data()), normalized.size(), SpmEscaping{false, spaces_as_is_},
           ids, &lengths);
    size_t at = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      size_t bytes = lengths[i];
      if (counts_characters_) {  // (lengths in characters)
        bytes = 0;
        for (uint32_t k = 0; k < lengths[i]; ++k) bytes += utf8_length(uint8_t(normalized[at + bytes]));
      }
      if (ids[i] == unknown) {
        std::string text = normalized.substr(at, bytes);
        if (spaces_as_is_)  // (the model read each space as "▁")
          for (size_t k; (k = text.find(' ')) != std::string::npos;) text.replace(k, 1, "\xE2\x96\x81");
        out.push_back(std::move(text));
      }
      at += bytes;
    }
  }

 private:
  // encode() through `pre`: the rewritten text encoded, its bounds (in its characters) mapped
  // to the input's characters through the rewrite's alignments (a bound at a character the
  // rewrite made starts where the input character it came from starts; the end, where the last
  // character the text kept ends: characters removed between two tokens belong to the first).
  uint32_t encode_rewritten(const uint8_t* s, size_t n, std::vector<uint32_t>& ids,
                            std::vector<uint32_t>* bounds) const {
    NormalizedText text(reinterpret_cast<const char*>(s), n, 0, bounds != nullptr);
    pre_->normalize(text);
    const std::string& t = text.text();
    const uint8_t* r = reinterpret_cast<const uint8_t*>(t.data());
    encode_as_is(r, t.size(), ids, bounds);
    if (!bounds) return 0;
    const uint32_t characters = count_characters(s, 0, n, n);
    if (bounds->empty()) return characters;
    const std::vector<NormalizedText::Span>& align = text.alignments();
    // the input's character at each byte (a byte inside a character counts as its start)
    std::vector<uint32_t> char_at(n + 1);
    for (uint32_t i = 0, c = 0; i < n; ++i) {
      c += (s[i] & 0xC0) != 0x80;  // (lead bytes so far: this character's number, plus one)
      char_at[i] = c ? c - 1 : 0;
    }
    char_at[n] = characters;
    size_t byte = 0;
    uint32_t chars = 0;  // characters of the rewritten text before `byte`
    for (uint32_t& b : *bounds) {
      while (chars < b && byte < t.size()) {
        byte += utf8_length(r[byte]);
        ++chars;
      }
      b = byte < t.size() ? char_at[std::min<size_t>(align[byte].start, n)]
                          : char_at[std::min<size_t>(align.empty() ? n : align.back().end, n)];
    }
    return characters;
  }

  struct Scratch {
    std::string normalized;
    DefaultInitVector<uint32_t> norm_to_orig;  // (grown without zeroing)
    std::vector<uint32_t> lengths;
    void trim() {
      release_if_large(normalized);
      release_if_large(norm_to_orig);
      release_if_large(lengths);
    }
  };
  std::shared_ptr<const Normalizer> pre_;  // (none: the text as it is)
  const SpmNormalizer& normalizer_;
  Encode model_;
  Fused fused_;  // (none: the model normalizes and cuts in two passes)
  bool counts_characters_, escaped_, spaces_as_is_;
  mutable Pool<Scratch> scratch_;  // reused per thread
};

// The ids a pipeline gives where they are not the model's (transformers' MarianTokenizer maps
// each of sentencepiece's pieces, by its text, through vocab.json).
struct SpmOutput {
  std::vector<uint32_t> ids;  // by model id, the id given (empty: the model's own)
  // The class's vocabulary: the id of a run of unknown characters (the model's unknown id; a
  // piece whose text is the run's) and of a language code, where it lists their text.
  std::unordered_map<std::string, uint32_t> vocabulary;
  uint32_t unknown = 0;             // the id of a text the vocabulary lacks
  uint32_t model_unknown = 0;       // the model's unknown id
  std::vector<std::string> pieces;  // by model id, its piece's text (what the class's tokenize shows)
  // leading_code: a stretch that starts with ">>" and has "<<" after is cut after the first
  // "<<" (MarianTokenizer's remove_language_code), that code one token; the rest is encoded as
  // a text of its own.
  bool leading_code = false;

  // The length in bytes of the code s[0..n) starts with (0: none).
  size_t code_length(const uint8_t* s, size_t n) const {
    if (!leading_code || n < 4 || s[0] != '>' || s[1] != '>') return 0;
    for (size_t i = 2; i + 1 < n; ++i)
      if (s[i] == '<' && s[i + 1] == '<') return i + 2;
    return 0;
  }
  uint32_t id_of(std::string_view text) const {
    const auto it = vocabulary.find(std::string(text));
    return it == vocabulary.end() ? unknown : it->second;
  }
};

class SpmPipeline {
 public:
  // word_starts: by model id, whether the piece starts a word ("▁..."); empty: one word a
  // stretch. output: the ids given, where they are not the model's (its ids: one per model id).
  // pre: what rewrites each text before the normalizer (none: nothing).
  SpmPipeline(const SpmNormalizer& normalizer, SpmEncoder::Model model, SpmReads reads,
              std::vector<uint8_t> word_starts = {}, SpmOutput output = {},
              std::shared_ptr<const Normalizer> pre = nullptr)
      : encoder_(normalizer, std::move(model), reads, std::move(pre)),
        word_starts_(std::move(word_starts)),
        output_(std::move(output)) {}

  // One text, or a pair, through the template; `added` (may be null) finds allowed special tokens;
  // `post` is the post-processor (a snapshot the caller keeps alive, see WordPieceTokenizer).
  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special,
                 const SpecialMatcher* added, const PostProcessor& post) const {
    Pool<Scratch>::Lease lease(scratch_);
    Encoded first = encode_sequence(a, na, added, lease.get());
    if (!pair) return post.process(std::move(first), nullptr, add_special);
    Encoded second = encode_sequence(b, nb, added, lease.get());
    return post.process(std::move(first), &second, add_special);
  }

  // Ids first: the ids encode_sequence's rows would hold, appended to `out`, without their
  // offsets and words (python/py_pipeline.h builds the rows by encode when they are read).
  bool encode_ids(const uint8_t* s, size_t n, const SpecialMatcher* added, std::vector<uint32_t>& out) const {
    split_at_matches(
        added, s, n,
        [&](size_t from, size_t to) {
          const uint8_t* text = s + from;
          const size_t code = output_.code_length(text, to - from);
          if (code) out.push_back(output_.id_of(std::string_view(reinterpret_cast<const char*>(text), code)));
          const size_t first = out.size();
          encoder_.encode(text + code, to - from - code, out);
          give_ids(text + code, to - from - code, out.data() + first, out.size() - first);
        },
        [&](const SpecialMatch& m) { out.push_back(m.id); });
    return true;
  }

  // The tokens the class's tokenize gives for s[0..n) where output gives ids of its own (with
  // the same `added`, matched or not): sentencepiece's pieces by their text (a run of unknown
  // characters by its normalized text, as encode(out_type=str) shows it), where the class's
  // vocabulary lacks one too; a leading language code by its text; each added token by
  // names[id].
  void class_tokens(const uint8_t* s, size_t n, const SpecialMatcher* added, const std::vector<std::string>& names,
                    std::vector<std::string>& out) const {
    std::vector<uint32_t> ids;
    std::vector<std::string> unknowns;
    split_at_matches(
        added, s, n,
        [&](size_t from, size_t to) {
          const uint8_t* text = s + from;
          const size_t code = output_.code_length(text, to - from);
          if (code) out.emplace_back(reinterpret_cast<const char*>(text), code);
          ids.clear();
          unknowns.clear();
          encoder_.encode(text + code, to - from - code, ids);
          const uint32_t unknown = output_.model_unknown;
          const size_t runs = size_t(std::count(ids.begin(), ids.end(), unknown));
          if (runs) encoder_.unknown_texts(text + code, to - from - code, unknown, unknowns);
          if (unknowns.size() != runs)
            throw std::logic_error("SpmPipeline: the unknown runs differ between two passes");  // (as give_ids)
          size_t k = 0;
          for (uint32_t id : ids) {
            if (id == unknown)
              out.push_back(unknowns[k++]);
            else
              out.push_back(id < output_.pieces.size() ? output_.pieces[id] : std::string());
          }
        },
        [&](const SpecialMatch& m) { out.push_back(m.id < names.size() ? names[m.id] : std::string()); });
  }

 private:
  struct Scratch {
    std::vector<uint32_t> ids, bounds;
    void trim() {
      release_if_large(ids);
      release_if_large(bounds);
    }
  };

  Encoded encode_sequence(const uint8_t* s, size_t n, const SpecialMatcher* added, Scratch& scratch) const {
    Encoded e;
    uint32_t chars = 0;  // code points before the stretch at hand
    uint32_t word = 0;   // the next word's id
    split_at_matches(
        added, s, n,
        [&](size_t from, size_t to) { chars = encode_text(s + from, to - from, chars, word, scratch, e.rows); },
        [&](const SpecialMatch& m) {
          const uint32_t end = chars + count_characters(s, m.pos, m.pos + m.len, n);
          push_row(e.rows, m.id, chars, end, word++);
          chars = end;
        });
    return e;
  }

  // Rows for s[0..n), whose first character is number `chars` of the input and first word
  // `word` (advanced past its words); returns the number after its last character.
  uint32_t encode_text(const uint8_t* s, size_t n, uint32_t chars, uint32_t& word, Scratch& scratch,
                       TokenRows& rows) const {
    if (const size_t code = output_.code_length(s, n)) {  // (a word of its own)
      const uint32_t end = chars + count_characters(s, 0, code, n);
      push_row(rows, output_.id_of(std::string_view(reinterpret_cast<const char*>(s), code)), chars, end, word++);
      chars = end;
      s += code;
      n -= code;
    }
    scratch.ids.clear();
    const uint32_t characters = encoder_.encode(s, n, scratch.ids, &scratch.bounds);
    const size_t count = scratch.ids.size(), at = rows.size();
    if (count) {
      if (at == 0) rows.reserve(count + 2);  // a whole text, mostly: room for bos and eos too
      rows.resize(at + count);               // then written in place: locals stay in registers
      Row* out = rows.data() + at;
      const uint32_t* b = scratch.bounds.data();
      const uint32_t* ids = scratch.ids.data();
      const uint8_t* starts = word_starts_.data();
      const size_t known = word_starts_.size();
      uint32_t w = word;
      out[0] = token_row(ids[0], chars + b[0], chars + b[1], w);  // (the first piece starts a word anyway)
      for (size_t i = 1; i < count; ++i) {
        const uint32_t id = ids[i];
        w += id < known && starts[id];
        out[i] = token_row(id, chars + b[i], chars + b[i + 1], w);
      }
      word = w + 1;
      if (!output_.ids.empty()) {
        give_ids(s, n, scratch.ids.data(), count);
        for (size_t i = 0; i < count; ++i) out[i].id = ids[i];
      }
    }
    return chars + characters;
  }

  // The model's ids[0..count) of text s[0..n) as the ids given (SpmOutput): each piece's, a run
  // of unknown characters by its text.
  void give_ids(const uint8_t* s, size_t n, uint32_t* ids, size_t count) const {
    if (output_.ids.empty()) return;
    const uint32_t* given = output_.ids.data();
    const uint32_t unknown = output_.model_unknown;
    std::vector<size_t> runs;  // where the unknown runs are
    for (size_t i = 0; i < count; ++i) {
      if (ids[i] == unknown)
        runs.push_back(i);
      else
        ids[i] = given[ids[i]];
    }
    if (runs.empty()) return;
    std::vector<std::string> texts;
    encoder_.unknown_texts(s, n, unknown, texts);
    if (texts.size() != runs.size()) throw std::logic_error("SpmPipeline: the unknown runs differ between two passes");
    for (size_t k = 0; k < runs.size(); ++k) ids[runs[k]] = output_.id_of(texts[k]);
  }

  SpmEncoder encoder_;
  std::vector<uint8_t> word_starts_;
  SpmOutput output_;
  mutable Pool<Scratch> scratch_;
};

}  // namespace tokenforge
