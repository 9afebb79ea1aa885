// A byte-level BPE tokenizer.json (GPT-2, Llama 3, Qwen2/Qwen3 and their kin) as one fused
// pass per text, exact to HF tokenizers and to the general staged pipeline (pipelines/staged.h)
// that runs the same file stage by stage: ids, offsets, and the decoder's text.
//
// It runs the files whose stages are: the BPE model (models/bpe/hf_bpe_model.h) without byte
// fallback, subword prefix or suffix, or dropout, whose vocabulary has every byte's character
// (so its unk token, if any, is never used); the pre-tokenizer ByteLevel(use_regex)
// or Sequence[Split(Regex P, Isolated), ByteLevel(use_regex=false)] (or DeepSeek's longer
// Sequences, pre_tokenizers/split_sequence.h), add_prefix_space either way; no normalizer or
// NFC; the ByteLevel decoder. tokenforge/pipeline/fused_hf_bpe.py decides which files those are
// and describes them (ByteLevelHfBpeDescription).
//
// One text: added tokens are split off first (added_tokens/special_matcher.h, as every
// pipeline); each stretch between them is cut into pieces by a built-in scanner where one
// computes P exactly as Oniguruma reads it (pre_tokenizers/scanner.h: GPT-2's pattern, cl100k,
// o200k, Llama 3, Qwen2), else by P itself through Oniguruma (pre_tokenizers/regex.h); with
// add_prefix_space a space goes before the stretch (ByteLevel with its regex) or before each
// piece (after a Split), unless it starts with one, as HF's ByteLevel does. Pieces stay in
// input bytes: GPT-2's byte alphabet maps each byte to one character, so the vocabulary's
// tokens are read back as the bytes they stand for and a piece's bytes key a per-thread memory
// of pieces (models/bpe/piece_cache.h's tables: one probe for most pieces; pieces of 32..256
// bytes, CJK runs, go to its two-way long cache). A piece new to the
// thread is spelled in the alphabet and merged by HfBpeModel itself (pair ranks, HF's order),
// so the ids are HF's by construction, then remembered.
//
// Offsets are spans of input code points, as HF's: every byte of a character maps to the whole
// character, so a token spans from the character holding its first byte to the one holding its
// last; the prefix space maps to the stretch's (or piece's) first character. With NFC, a text
// that passes the quick check (unicode/normalization.h) is its own NFC form and runs here; any
// other runs through the staged pipeline (built on first need), which normalizes it; the
// staged pipeline also answers the pre_tokenize and normalize hooks.
//
// CLIP: CLIP's files (transformers' CLIPConverter; `clip` in the description) have the
// normalizer Sequence[NFC, Replace(\s+ -> " "), Lowercase], the pre-tokenizer
// Sequence[Split(CLIP's pattern, Removed, invert), ByteLevel(use_regex)] and a BPE with an
// end_of_word_suffix ("</w>"). Here: a text that passes NFC's quick check and whose every
// character lowercases to one character of its own UTF-8 length is lowercased into a copy
// (lowercase_into) whose bytes sit where s's do, so offsets and added-token matches carry over
// (raw tokens are found in s, normalized ones in the copy); any other text runs staged. The
// Split keeps the pattern's matches and drops what lies between, the runs of \s
// (Scanner::clip: the fast passes get those runs as pieces marked in Batch::gaps and skip them),
// so the Replace, which only rewrites such runs, changes no piece and no offset; ByteLevel's
// own regex leaves each CLIP piece whole (tests/test_fused_clip.py checks both on every code
// point). The BPE puts the suffix on a piece's last character, which after ByteLevel's mapping
// is its last byte: the piece's last symbol is last_id_[byte] (that character with the suffix,
// or the unk token where the vocabulary lacks it), and a token that ends with the suffix spans
// its other bytes.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "added_tokens/special_matcher.h"
#include "base/inline_hints.h"
#include "base/bytes.h"
#include "base/pool.h"
#include "base/utf8.h"
#include "decoders/byte_level_decoder.h"
#include "models/bpe/bpe_stage.h"
#include "models/bpe/hf_bpe_model.h"
#include "models/bpe/piece_cache.h"
#include "models/bpe/split_points.h"
#include "models/bpe/whole_chars.h"
#include "pipelines/staged.h"
#include "pre_tokenizers/byte_level.h"
#include "pre_tokenizers/regex.h"
#include "pre_tokenizers/scanner.h"
#include "pre_tokenizers/split_sequence.h"
#include "processors/offset_trim.h"
#include "processors/post_processing.h"
#include "unicode/hf_chars.h"
#include "unicode/normalization.h"

namespace tokenforge {

struct ByteLevelHfBpeDescription {
  StagedDescription staged;  // the whole file, as the staged pipeline takes it (model, fallback)
  int split = -1;            // a built-in scanner (Pattern), -1: `pattern` through Oniguruma, or kNoSplit
  std::string pattern;       // the Split's regex (unused with a scanner)
  bool add_prefix_space = false;
  bool prefix_each_piece = false;  // the space goes before each piece (a Split, then ByteLevel)
  bool nfc = false;                // the NFC normalizer
  // Built-in Splits run before the split above, in order (PreSplit kinds,
  // pre_tokenizers/split_sequence.h: DeepSeek's Sequences); empty for one Split.
  std::vector<int> pre_splits;
  // `split` when the pre-splits are the whole Sequence: their pieces are the pieces.
  static constexpr int kNoSplit = -2;
  HiddenTokens hidden;  // tokens an added token's id hides (processors/post_processing.h)
  // CLIP's files (transformers' CLIPConverter): the normalizer Sequence[NFC, Replace(\s+ -> " "),
  // Lowercase], the pre-tokenizer Sequence[Split(CLIP's pattern, Removed, invert),
  // ByteLevel(use_regex)] (split Pattern::kClip), a BPE with an end_of_word_suffix. See
  // "CLIP" at the top.
  bool clip = false;
};

class ByteLevelHfBpePipeline {
 public:
  // Throws std::invalid_argument for a description it does not run (the Python side checks
  // first; this keeps a wrong call from giving wrong ids).
  explicit ByteLevelHfBpePipeline(ByteLevelHfBpeDescription d)
      : d_(std::move(d)), model_(make_model(d_.staged, d_.clip)), decoder_() {
    if (d_.split < d_.kNoSplit || d_.split > int(Pattern::kClipSpecials))
      throw std::invalid_argument("unknown scanner");
    if ((d_.split == int(Pattern::kClip) || d_.split == int(Pattern::kClipSpecials)) != d_.clip ||
        (d_.clip && (!d_.nfc || d_.add_prefix_space || !d_.pre_splits.empty())))
      throw std::invalid_argument("the CLIP split goes with CLIP's normalizer and no prefix space alone");
    suffix_ = model_.options().end_of_word_suffix.value_or("");
    if (d_.split == -1) regex_ = std::make_unique<Regex>(d_.pattern);
    if (d_.split == d_.kNoSplit && d_.pre_splits.empty())
      throw std::invalid_argument("no split: the pre-splits must be given");
    for (int kind : d_.pre_splits)
      if (!is_pre_split(kind)) throw std::invalid_argument("unknown pre-split " + std::to_string(kind));
    if (!d_.pre_splits.empty() && !d_.prefix_each_piece)
      throw std::invalid_argument("pre-splits come before a Split: prefix_each_piece must be set");
    const auto& alphabet = byte_level_code_points();
    byte_of_.fill(-1);
    for (int b = 0; b < 256; ++b) byte_of_[alphabet[b]] = int16_t(b);
    std::vector<bool> seen;
    std::string raw;  // the tokens' bytes, for the split points
    std::vector<std::pair<size_t, size_t>> spans;
    for (const auto& [token, id] : d_.staged.vocab) {
      if (id >= length_.size()) length_.resize(size_t(id) + 1, 0), seen.resize(size_t(id) + 1, false);
      if (seen[id]) throw std::invalid_argument("id " + std::to_string(id) + " is given to two tokens");
      seen[id] = true;
      // (with a suffix, a token that ends with it is a word's last: its bytes are the rest)
      const std::string_view body = ends_with_suffix(token)
                                        ? std::string_view(token).substr(0, token.size() - suffix_.size())
                                        : std::string_view(token);
      length_[id] = uint32_t(spelled_length(body));
      if (length_[id] == 0) continue;
      spans.emplace_back(raw.size(), length_[id]);
      const auto* p = reinterpret_cast<const uint8_t*>(body.data());
      for (size_t i = 0; i < body.size();) {
        size_t len;
        raw += char(byte_of_[decode_utf8(p + i, body.size() - i, len)]);
        i += len;
      }
    }
    std::vector<std::pair<const uint8_t*, size_t>> views;
    views.reserve(spans.size());
    for (const auto& [at, len] : spans) views.emplace_back(reinterpret_cast<const uint8_t*>(raw.data()) + at, len);
    split_points_.build(views);
    short_length_.resize(length_.size());
    for (size_t id = 0; id < length_.size(); ++id)
      short_length_[id] = uint8_t(std::min<uint32_t>(length_[id], kLongToken));
    for (int b = 0; b < 256; ++b) {
      std::string ch;
      append_utf8(alphabet[b], ch);
      spelled_[b] = ch;
      byte_id_[b] = model_.token_id(ch);
      if (byte_id_[b] == kNoToken)
        throw std::invalid_argument("the vocabulary has no token for byte " + std::to_string(b) + " (`" + ch +
                                    "`), which a byte-level BPE needs");
      last_id_[b] = byte_id_[b];
      if (!suffix_.empty()) {
        // A piece's last byte is its character with the suffix, else the unk token (HF's).
        last_id_[b] = model_.token_id(ch + suffix_);
        if (last_id_[b] == kNoToken) {
          const std::optional<std::string>& unk = model_.options().unk_token;
          last_id_[b] = unk ? model_.token_id(*unk) : kNoToken;
          if (last_id_[b] == kNoToken)
            throw std::invalid_argument("the vocabulary has no token for byte " + std::to_string(b) +
                                        " with the suffix, nor an unk token");
          if (last_id_[b] < length_.size())
            length_[last_id_[b]] = short_length_[last_id_[b]] = 1;  // (only a last byte's)
        }
      }
    }
    if (model_.plain() || model_.suffixed_scan()) {
      // Each pair of bytes' merge, for the first round of a new piece's merges (spell_and_merge).
      // The slots are asked for kAhead pairs ahead: a large vocabulary's merge table is far
      // larger than the caches, and 65,536 lookups one after another would wait for each.
      constexpr size_t kPairs = size_t(1) << 16, kAhead = 16;
      byte_pairs_.resize(kPairs);
      for (size_t i = 0; i < kPairs; ++i) {
        if (i + kAhead < kPairs) model_.prefetch_merge(byte_id_[(i + kAhead) >> 8], byte_id_[(i + kAhead) & 255]);
        byte_pairs_[i] = model_.merge_of(byte_id_[i >> 8], byte_id_[i & 255]);
      }
    }
    if (d_.staged.trim_offsets) trim_ = OffsetTrim(d_.staged.names, d_.staged.trim_add_prefix_space);
  }

  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special,
                 const SpecialMatcher* added, const PostProcessor& post) const {
    if (trim_.on() && post.truncate)  // (trimmed after truncation, each part on its own)
      return trim_.encode_truncated(*this, a, na, b, nb, pair, add_special, added, post);
    Encoded first = encode_sequence(a, na, added);
    if (!pair) return post.process(std::move(first), nullptr, add_special);
    Encoded second = encode_sequence(b, nb, added);
    return post.process(std::move(first), &second, add_special);
  }

  // The model's rows for one text, before post-processing; `trim`: with the post-processor's
  // trim_offsets applied (where the file has it).
  Encoded encode_sequence(const uint8_t* s, size_t n, const SpecialMatcher* added, bool trim = true) const {
    if (d_.nfc && !is_normalized_quick(NormalForm::kNFC, std::string_view(reinterpret_cast<const char*>(s), n)))
      return staged().encode_sequence(s, n, added, trim);
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    const uint8_t* t = s;  // what the pieces are cut from: s, or with CLIP's Lowercase s lowercased
    if (d_.clip) {
      if (!lowercase_into(s, n, w.lowered)) return staged().encode_sequence(s, n, added, trim);
      t = reinterpret_cast<const uint8_t*>(w.lowered.data());
    }
    Encoded e;
    e.rows.reserve(n / 3 + 8);
    Rows rows{e.rows, s, n};
    split_at_matches(
        added, s, t, n,
        [&](size_t from, size_t to) {
          const size_t before = e.rows.size();
          encode_stretch(t + from, to - from, from, rows, w);
          if (!d_.hidden.empty()) e.show_hidden(before, d_.hidden);
        },
        [&](const SpecialMatch& m) {
          const uint32_t start = rows.char_of(m.pos);  // before the end: char_of only goes forward
          e.rows.push_back(token_row(m.id, start, rows.char_of(m.pos + m.len - 1) + 1, rows.word++));
          if (m.grown) e.rows.back().name = e.name_slot(std::string(reinterpret_cast<const char*>(s) + m.pos, m.len));
        });
    if (trim) trim_.apply(e);
    return e;
  }

  // The post-processor's trim_offsets (off where the file has none).
  const OffsetTrim& offset_trim() const { return trim_; }

  // Ids first: the ids encode_sequence's rows would hold, appended to `out`, without building
  // the rows (offsets, words, names); false, with `out` as it was, where the text must go
  // through the staged pipeline (NFC changes it) — the caller then encodes it whole.
  // A text NFC changes is normalized here a stretch at a time (HF normalizes each part between
  // added tokens on its own) and its NFC form encoded (with CLIP's Lowercase after), where no
  // added token is matched in the normalized text (none is normalized).
  bool encode_ids(const uint8_t* s, size_t n, const SpecialMatcher* added, std::vector<uint32_t>& out) const {
    const bool changes =
        d_.nfc && !is_normalized_quick(NormalForm::kNFC, std::string_view(reinterpret_cast<const char*>(s), n));
    if (changes && added && !added->normalized().empty()) return false;
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    const uint8_t* t = s;  // (as encode_sequence)
    if (d_.clip && !changes) {
      if (!lowercase_into(s, n, w.lowered)) return false;
      t = reinterpret_cast<const uint8_t*>(w.lowered.data());
    }
    const size_t first = out.size();
    out.reserve(out.size() + n / 3 + 8);
    bool whole = true;  // (false: a stretch CLIP's Lowercase cannot do in place; out as it was)
    split_at_matches(
        added, s, t, n,
        [&](size_t from, size_t to) {
          if (!changes) return stretch_ids(t + from, to - from, w, out);
          if (!whole) return;
          std::string_view stretch(reinterpret_cast<const char*>(s) + from, to - from);
          std::string nfc;
          if (!is_normalized_quick(NormalForm::kNFC, stretch))
            stretch = nfc = normalize_utf8(NormalForm::kNFC, stretch);
          const auto* p = reinterpret_cast<const uint8_t*>(stretch.data());
          if (d_.clip) {
            std::string lowered;
            if (!(whole = lowercase_into(p, stretch.size(), lowered))) return;
            return stretch_ids(reinterpret_cast<const uint8_t*>(lowered.data()), stretch.size(), w, out);
          }
          stretch_ids(p, stretch.size(), w, out);
        },
        [&](const SpecialMatch& m) { out.push_back(m.id); });
    if (!whole) out.resize(first);
    return whole;
  }

  // HF's decode of `ids` (each below by_id.size()) by their names in `by_id`: ids without a
  // name, and with skip_special those `special` marks, left out; the ByteLevel decoder over the
  // rest, streamed into one buffer (no string per token).
  std::string decode_names(const std::vector<uint32_t>& ids, const std::vector<std::string>& by_id,
                           const std::vector<uint8_t>& special, bool skip_special) const {
    std::string bytes;
    bytes.reserve(ids.size() * 4);
    for (uint32_t id : ids) {
      const std::string& name = by_id[id];
      if (!name.empty() && !(skip_special && special[id])) decoder_.append_bytes(name.data(), name.size(), bytes);
    }
    return utf8_lossy(std::move(bytes));
  }

  // HF's ByteLevel decoder over the tokens' texts, joined.
  std::string decode(std::vector<std::string> tokens) const {
    decoder_.decode_chain(tokens);
    std::string out;
    for (const std::string& t : tokens) out += t;
    return out;
  }

  // The staged pipeline of the same description, built on first need (texts NFC changes, the
  // pre_tokenize and normalize hooks).
  const StagedPipeline& staged() const {
    std::call_once(staged_once_, [&] { staged_ = std::make_unique<StagedPipeline>(d_.staged); });
    return *staged_;
  }

  // The pieces the model would see for a stretch without added tokens: (model bytes, first
  // input byte), the prefix space included (a test hook; with CLIP's Lowercase, the pieces of s
  // as it is, not lowercased).
  std::vector<std::pair<std::string, size_t>> pieces(const uint8_t* s, size_t n) const {
    std::vector<std::pair<std::string, size_t>> out;
    Pool<Scratch>::Lease lease(scratch_);
    each_piece(s, n, 0, lease.get(), [&](const uint8_t* p, size_t len, size_t orig, bool) {
      out.emplace_back(std::string(reinterpret_cast<const char*>(p), len), orig);
    });
    return out;
  }

 private:
  struct Scratch {
    PieceCache cache;
    std::string spelled, prefixed;
    std::string lowered;  // the text lowercased (CLIP's files)
    std::vector<ModelToken> tokens;
    std::vector<uint32_t> ids;
    std::vector<MatchSpan> spans;
    std::vector<size_t> cuts;
    std::vector<size_t> ends;                          // the pieces' ends (list_ends)
    std::vector<Row> row_buffer;                       // a stretch's rows (fast_stretch), reused
    ShortPieceTable parts{10, 18, HugePages::kLater};  // parts of cut pieces (see merge)
    hf_bpe::PairCache pairs;                           // the merges of pairs looked up (spell_and_merge)
    void trim() {
      cache.trim();
      release_if_large(spelled);
      release_if_large(prefixed);
      release_if_large(lowered);
      release_if_large(tokens);
      release_if_large(ids);
      release_if_large(spans);
      release_if_large(cuts);
      release_if_large(ends);
      release_if_large(row_buffer);
    }
  };

  // Input byte -> code point index, for offsets; the bytes asked for go forward, so the count
  // runs once over the text (ASCII text: the byte itself; a byte behind them, where an rstrip
  // match reached past the next match's start, counts back).
  struct Rows {
    TokenRows& rows;
    const uint8_t* s;
    size_t n;
    bool ascii = count_characters(s, 0, n, n) == n;
    size_t counted_to = 0;  // lead bytes in s[0..counted_to) are counted in `chars`
    uint32_t chars = 0;
    uint32_t word = 0;  // the next piece's word id (pieces and added tokens, in order)
    uint32_t char_of(size_t byte) {
      if (ascii) return uint32_t(byte);
      if (byte < counted_to) return chars - 1 - count_characters(s, byte + 1, counted_to, n);
      if (counted_to <= byte) {  // eight bytes a step
        chars += count_characters(s, counted_to, byte + 1, n);
        counted_to = byte + 1;
      }
      return chars - 1;
    }
  };

  static HfBpeModel make_model(const StagedDescription& d, bool clip) {
    if (d.model_type != "BPE") throw std::invalid_argument("the model must be BPE, got " + d.model_type);
    OptionReader o("model BPE", d.model_options);
    HfBpeOptions options = BpeStage::options_of(o);
    const HfBpeModel::Merges read = d.merges_given ? HfBpeModel::Merges() : BpeStage::merges_of(o);
    const HfBpeModel::Merges& merges = d.merges_given ? d.merges : read;
    if (options.byte_fallback || options.dropout || !options.continuing_subword_prefix.value_or("").empty() ||
        (!clip && !options.end_of_word_suffix.value_or("").empty()) || (clip && options.ignore_merges))
      throw std::invalid_argument(
          "the fused byte-level BPE runs models without byte_fallback, continuing_subword_prefix, "
          "end_of_word_suffix (but CLIP's) and dropout");
    return HfBpeModel(d.vocab, merges, options);
  }

  // Whether a vocabulary token ends with the model's suffix (CLIP's files: a word's last token).
  bool ends_with_suffix(const std::string& token) const {
    return !suffix_.empty() && token.size() > suffix_.size() &&
           token.compare(token.size() - suffix_.size(), suffix_.size(), suffix_) == 0;
  }

  // CLIP's Lowercase (HF's: char::to_lowercase, unicode/hf_chars.h) where every character of
  // s[0..n) lowercases to one character of its own UTF-8 length, into `out` (n bytes): the
  // characters keep their places, so the offsets, the added tokens' matches (found in s) and
  // the character count are s's. False where one does not (İ, the Kelvin sign, ...): the
  // staged pipeline runs that text.
  static bool lowercase_into(const uint8_t* s, size_t n, std::string& out) {
    if (out.size() < n) out.resize(n);
    auto* o = reinterpret_cast<uint8_t*>(out.data());
    std::memcpy(o, s, n);  // then the characters that change are written over
    const uint16_t* bmp = lower_bmp();
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
    for (size_t i = 0; i < n;) {
      if (i + 8 <= n) {
        const uint64_t x = load8(s + i);
        if (!(x & kHighs)) {  // eight ASCII bytes: 'A'..'Z' get 0x20
          const uint64_t upper = (x + kOnes * (0x80 - 'A')) & ~(x + kOnes * (0x80 - 'Z' - 1)) & kHighs;
          if (upper) {
            const uint64_t y = x | (upper >> 2);
            std::memcpy(o + i, &y, 8);
          }
          i += 8;
          continue;
        }
      }
      const uint8_t b = s[i];
      if (b < 0x80) {
        if (uint8_t(b - 'A') < 26) o[i] = b + 32;
        ++i;
        continue;
      }
      if (b >= 0xE3 && b <= 0xE9) {  // U+3000..U+9FFF (CJK, kana): no character there has a case
        i += 3;
        continue;
      }
      size_t len;
      const uint32_t cp = decode_utf8(s + i, n - i, len);
      uint32_t lower;
      if (cp < 0x10000) {
        lower = bmp[cp];
        if (lower == 0) return false;
      } else {
        thread_local std::vector<uint32_t> one;
        one.clear();
        hf_lowercase(cp, one);
        if (one.size() != 1 || one[0] < 0x10000) return false;
        lower = one[0];
      }
      if (lower != cp) {
        if (len == 2) {
          o[i] = uint8_t(0xC0 | (lower >> 6)), o[i + 1] = uint8_t(0x80 | (lower & 0x3F));
        } else if (len == 3) {
          o[i] = uint8_t(0xE0 | (lower >> 12)), o[i + 1] = uint8_t(0x80 | ((lower >> 6) & 0x3F));
          o[i + 2] = uint8_t(0x80 | (lower & 0x3F));
        } else {
          o[i] = uint8_t(0xF0 | (lower >> 18)), o[i + 1] = uint8_t(0x80 | ((lower >> 12) & 0x3F));
          o[i + 2] = uint8_t(0x80 | ((lower >> 6) & 0x3F)), o[i + 3] = uint8_t(0x80 | (lower & 0x3F));
        }
      }
      i += len;
    }
    return true;
  }
  // Code point below U+10000 (from U+0080) -> its lowercase where that is one character of the
  // same UTF-8 length, else 0.
  static const uint16_t* lower_bmp() {
    static const std::vector<uint16_t> table = [] {
      // Every character its own lowercase, then the mappings (hf_lowercase's table) laid over.
      std::vector<uint16_t> t(0x10000);
      for (uint32_t cp = 0; cp < 0x10000; ++cp) t[cp] = uint16_t(cp);
      auto width = [](uint32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; };
      for (const auto& m : bert_data::kLower) {
        if (m.cp >= 0x10000) break;
        const uint32_t to = bert_data::kLowerData[m.offset];
        t[m.cp] = m.length == 1 && width(to) == width(m.cp) ? uint16_t(to) : 0;
      }
      t[0] = 0;  // (ASCII never looks here; 0 stays "not one character of the same length")
      return t;
    }();
    return table.data();
  }

  // The token's length in bytes if every character is in the byte alphabet, else 0 (no piece
  // can produce it).
  size_t spelled_length(std::string_view token) const {
    const auto* p = reinterpret_cast<const uint8_t*>(token.data());
    size_t count = 0;
    for (size_t i = 0; i < token.size(); ++count) {
      size_t len;
      const uint32_t cp = decode_utf8(p + i, token.size() - i, len);
      if (cp >= byte_of_.size() || byte_of_[cp] < 0) return 0;
      i += len;
    }
    return count;
  }

  static void append_utf8(uint32_t cp, std::string& out) {
    if (cp < 0x80) {
      out += char(cp);
    } else {  // the alphabet ends at U+0143
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  // Calls f(piece, length, first input byte, prefixed) for each piece of the stretch s[0..n)
  // (at input byte `base`); `prefixed`: the piece starts with the added space, which maps to
  // the input byte `first`.
  template <class F>
  void each_piece(const uint8_t* s, size_t n, size_t base, Scratch& w, F f) const {
    if (n == 0) return;
    if (!d_.add_prefix_space || s[0] == ' ' || d_.prefix_each_piece) return split(s, n, base, false, w, f);
    // ByteLevel(use_regex, add_prefix_space): the space goes before the stretch, then it is cut.
    w.prefixed.assign(1, ' ');
    w.prefixed.append(reinterpret_cast<const char*>(s), n);
    split(reinterpret_cast<const uint8_t*>(w.prefixed.data()), n + 1, base, true, w, f);
  }

  // Cuts t[0..m) (with a space added in front if `shifted`) into pieces.
  template <class F>
  void split(const uint8_t* t, size_t m, size_t base, bool shifted, Scratch& w, F& f) const {
    auto piece = [&](size_t from, size_t to) {
      const bool prefixed = shifted && from == 0;
      const size_t orig = base + (shifted && from > 0 ? from - 1 : from);
      if (d_.prefix_each_piece && d_.add_prefix_space && t[from] != ' ') {
        std::string& p = w.prefixed;
        p.assign(1, ' ');
        p.append(reinterpret_cast<const char*>(t + from), to - from);
        return f(reinterpret_cast<const uint8_t*>(p.data()), p.size(), orig, true);
      }
      f(t + from, to - from, orig, prefixed);
    };
    if (d_.pre_splits.empty()) return split_range(t, 0, m, w, piece);
    auto last = [&](size_t from, size_t to) { split_range(t, from, to, w, piece); };
    run_pre_splits(d_.pre_splits, 0, t, 0, m, last);
  }

  // The split's pieces of t[from..to), as piece(start, end) in t.
  template <class Piece>
  void split_range(const uint8_t* t, size_t from, size_t to, Scratch& w, Piece& piece) const {
    switch (d_.split) {
      case int(Pattern::kGpt2):
        return scan<Pattern::kGpt2>(t, from, to, piece);
      case int(Pattern::kCl100k):
        return scan<Pattern::kCl100k>(t, from, to, piece);
      case int(Pattern::kO200k):
        return scan<Pattern::kO200k>(t, from, to, piece);
      case int(Pattern::kLlama3):
        return scan<Pattern::kLlama3>(t, from, to, piece);
      case int(Pattern::kQwen2):
        return scan<Pattern::kQwen2>(t, from, to, piece);
      case int(Pattern::kTekken):
        return scan<Pattern::kTekken>(t, from, to, piece);
      case ByteLevelHfBpeDescription::kNoSplit:
        return piece(from, to);
      case int(Pattern::kClip):
      case int(Pattern::kClipSpecials): {
        Scanner scanner(t + from, to - from);
        const bool specials = d_.split == int(Pattern::kClipSpecials);
        bool gap;
        for (size_t p = 0, e; p < to - from; p = e)
          if (e = scanner.clip(p, gap, specials); !gap) piece(from + p, from + e);
        return;
      }
      default:
        break;
    }
    // A Split with Behavior Isolated: every span, match or not, is a piece (empty ones dropped).
    w.spans.clear();
    regex_->find_matches(reinterpret_cast<const char*>(t + from), to - from, w.spans);
    for (const MatchSpan& sp : w.spans)
      if (sp.end > sp.start) piece(from + sp.start, from + sp.end);
  }

  template <Pattern P, class Piece>
  static void scan(const uint8_t* t, size_t from, size_t to, Piece& piece) {
    Scanner scanner(t + from, to - from);
    for (size_t p = 0; p < to - from;) {
      const size_t e = next_end<P>(scanner, p);
      piece(from + p, from + e);
      p = e;
    }
  }

  // One stretch between added tokens, s[0..n) at input byte `base`: its rows. Without a prefix
  // space the pieces tile the stretch, and they take the fast pass: a built-in scanner hands
  // out their ends as the pass asks; pre-splits (DeepSeek's Sequences) and Oniguruma's Splits
  // list them first.
  void encode_stretch(const uint8_t* s, size_t n, size_t base, Rows& rows, Scratch& w) const {
    if (n == 0) return;
    if (!with_ends(s, n, w, [&](auto ends) { fast_pass(s, n, base, rows, w, ends); }))
      piece_by_piece(s, n, base, rows, w);
  }

  // Runs pass(ends) over the stretch's piece ends, from a built-in scanner or listed (the
  // pre-splits, then the Split), and says so; false where the stretch goes piece by piece
  // instead (add_prefix_space, or listed ends that would not tile it).
  template <class Pass>
  bool with_ends(const uint8_t* s, size_t n, Scratch& w, Pass&& pass) const {
    if (d_.add_prefix_space) return false;
    if (d_.pre_splits.empty()) {
      switch (d_.split) {
        case int(Pattern::kGpt2):
          return pass(ScannedEnds<Pattern::kGpt2>{Scanner(s, n)}), true;
        case int(Pattern::kCl100k):
          return pass(ScannedEnds<Pattern::kCl100k>{Scanner(s, n)}), true;
        case int(Pattern::kO200k):
          return pass(ScannedEnds<Pattern::kO200k>{Scanner(s, n)}), true;
        case int(Pattern::kLlama3):
          return pass(ScannedEnds<Pattern::kLlama3>{Scanner(s, n)}), true;
        case int(Pattern::kQwen2):
          return pass(ScannedEnds<Pattern::kQwen2>{Scanner(s, n)}), true;
        case int(Pattern::kTekken):
          return pass(ScannedEnds<Pattern::kTekken>{Scanner(s, n)}), true;
        case int(Pattern::kClip):
          return pass(ClipEnds{Scanner(s, n), n, false}), true;
        case int(Pattern::kClipSpecials):
          return pass(ClipEnds{Scanner(s, n), n, true}), true;
        default:
          break;
      }
    } else if (d_.split == d_.kNoSplit && is_deepseek_v3(d_.pre_splits)) {
      return pass(DeepSeekV3Ends(s, n)), true;
    }
    if (!list_ends(s, n, w)) return false;
    pass(ListedEnds{w.ends.data(), n});
    return true;
  }

  // The pieces' ends, as the fast pass asks for them: from a built-in scanner, or listed.
  // Each gives the ends of up to max pieces from p (< n) into to[0..) and says how many (fewer
  // only where the stretch ends), as Scanner::ends does.
  template <Pattern P>
  struct ScannedEnds {
    Scanner scanner;
    TF_INLINE size_t ends(size_t p, size_t* to, size_t max) { return scanner.ends<P>(p, to, max); }
  };
  // CLIP's split: the runs of \s between its pieces come as pieces too, marked in `gaps` (bit m
  // for the m-th end of the last call), which the passes skip.
  struct ClipEnds {
    Scanner scanner;
    size_t n;
    bool specials;  // Pattern::kClipSpecials
    uint64_t gaps = 0;
    TF_INLINE size_t ends(size_t p, size_t* to, size_t max) {
      size_t m = 0;
      uint64_t marked = 0;
      for (bool gap; m < max && p < n; ++m) {
        to[m] = p = scanner.clip(p, gap, specials);
        marked |= uint64_t(gap) << m;
      }
      gaps = marked;
      return m;
    }
  };
  struct ListedEnds {
    const size_t* at;
    size_t n;
    TF_INLINE size_t ends(size_t p, size_t* to, size_t max) {
      size_t m = 0;
      for (; m < max && p < n; ++m) to[m] = p = *at++;
      return m;
    }
  };

  // The ends of the stretch's pieces (pre-splits, then the Split) into w.ends; false where
  // they would not tile it (an Isolated Split's pieces always do: this only guards the pass).
  bool list_ends(const uint8_t* s, size_t n, Scratch& w) const {
    std::vector<size_t>& ends = w.ends;
    ends.clear();
    bool tiled = true;
    size_t covered = 0;
    auto piece = [&](size_t from, size_t to) {
      tiled &= from == covered;
      ends.push_back(covered = to);
    };
    if (d_.pre_splits.empty()) {
      split_range(s, 0, n, w, piece);
    } else {
      auto last = [&](size_t from, size_t to) { split_range(s, from, to, w, piece); };
      run_pre_splits(d_.pre_splits, 0, s, 0, n, last);
    }
    return tiled && covered == n;
  }

  // Pieces are found a batch at a time, and the piece-table slots of the next batch are
  // prefetched while this one is encoded (as pipelines/encoder.h does); without a prefix space
  // the pieces tile the stretch, and a piece's tokens' lengths add up to the piece.
  static constexpr size_t kBatch = 32;
  struct Batch {
    size_t count = 0;
    size_t bounds[kBatch + 1];  // piece i is [bounds[i], bounds[i + 1])
    bool keyed = false;         // whether batch_keys has filled what follows
    uint64_t gaps = 0;          // bit i: piece i is dropped (ClipEnds)
    ShortKey keys[kBatch];
    MediumKey medium_keys[kBatch];
    uint64_t hashes[kBatch];
  };

  template <class Ends>
  void fast_pass(const uint8_t* s, size_t n, size_t base, Rows& rows, Scratch& w, Ends ends) const {
    if (rows.ascii) return fast_stretch<true>(s, n, base, rows, w, ends);
    fast_stretch<false>(s, n, base, rows, w, ends);
  }

  // The next batch of up to kBatch pieces from byte p: their ends, and the keys and hashes of
  // the short and medium ones with their cache slots prefetched (fast_stretch and fast_ids
  // probe them one batch later).
  template <class Ends>
  static void next_batch(const uint8_t* s, size_t n, Ends& ends, PieceCache& cache, size_t p, Batch& b) {
    next_bounds(n, ends, p, b);
    batch_keys(s, n, cache, b);
  }
  // The ends alone (keyed false).
  template <class Ends>
  static TF_INLINE void next_bounds(size_t n, Ends& ends, size_t p, Batch& b) {
    b.bounds[0] = p;
    b.count = p < n ? ends.ends(p, b.bounds + 1, kBatch) : 0;
    b.keyed = false;
    if constexpr (std::is_same_v<Ends, ClipEnds>)
      b.gaps = b.count ? ends.gaps : 0;
    else
      b.gaps = 0;
  }
  // The keys, once the ends are in.
  static void batch_keys(const uint8_t* s, size_t n, PieceCache& cache, Batch& b) {
    for (size_t i = 0; i < b.count; ++i) {
      const size_t len = b.bounds[i + 1] - b.bounds[i];
      if (len < 2 || len > kMediumPiece || (b.gaps >> i & 1)) continue;
      if (len <= kShortPiece) {
        b.keys[i] = short_key(s + b.bounds[i], len, s, s + n);
        b.hashes[i] = b.keys[i].hash();
        cache.shorts.prefetch(b.hashes[i]);
      } else {
        b.medium_keys[i] = medium_key(s + b.bounds[i], len);
        b.hashes[i] = b.medium_keys[i].hash();
        cache.mediums.prefetch(b.hashes[i]);
      }
    }
    b.keyed = true;
  }

  // Each piece's rows are written as soon as its ids are known, into a reused buffer that is
  // then appended to the rows whole: a piece of one token (most pieces) spans the piece, so
  // only the tokens of longer merges look their lengths up (one byte each, the table small
  // enough to stay in cache); word ids count the pieces. kAscii: characters are bytes.
  template <bool kAscii, class Ends>
  void fast_stretch(const uint8_t* s, size_t n, size_t base, Rows& rows, Scratch& w, Ends& ends) const {
    PieceCache& cache = w.cache;
    auto find_batch = [&](size_t p, Batch& b) { next_batch(s, n, ends, cache, p, b); };
    // At most one id a byte, and a table hit writes its inline slots whole (up to 7 past the
    // last id), so a piece of k bytes needs k + 8 slots; the ids of each piece start over at
    // the buffer's start (their rows are written before the next piece).
    IdBuffer& buf = cache.out;
    buf.reserve(kMediumPiece + 8);
    uint32_t* const ids_begin = buf.begin();
    if (w.row_buffer.size() < n + 8) w.row_buffer.resize(n + 8);
    Row* const rows_begin = w.row_buffer.data();
    Row* row = rows_begin;
    uint32_t word = rows.word;
    Batch batches[2];
    find_batch(0, batches[0]);
    for (int cur = 0; batches[cur].count; cur ^= 1) {
      const Batch& b = batches[cur];
      find_batch(b.bounds[b.count], batches[cur ^ 1]);
      for (size_t i = 0; i < b.count; ++i) {
        if (b.gaps >> i & 1) continue;
        const size_t from = b.bounds[i], to = b.bounds[i + 1];
        const uint8_t* piece = s + from;
        const size_t len = to - from;
        const uint32_t* id = ids_begin;
        uint32_t* out = ids_begin;
        if (len == 1) {
          *row++ = token_row(last_id_[piece[0]], char_at<kAscii>(rows, base + from),
                             char_after<kAscii>(rows, base + from), word++);
          continue;
        } else if (len <= kShortPiece) {
          if (const ShortPieceTable::Entry* e = cache.shorts.find(b.keys[i], b.hashes[i])) {
            if ((e->info & 31) == 1) {  // one token: the whole piece
              const uint32_t start = char_at<kAscii>(rows, base + from);
              *row++ = token_row(e->ids[0], start, char_after<kAscii>(rows, base + to - 1), word++);
              continue;
            }
            out = cache.shorts.emit(*e, out);
          } else {
            std::vector<uint32_t>& ids = missed_piece(piece, len, b.keys[i], b.medium_keys[i], b.hashes[i], w);
            id = ids.data(), out = ids.data() + ids.size();
          }
        } else if (const MediumPieceTable::Entry* e =
                       len <= kMediumPiece ? cache.mediums.find(b.medium_keys[i], b.hashes[i]) : nullptr) {
          out = cache.mediums.emit(*e, out);
        } else {
          std::vector<uint32_t>& ids = missed_piece(piece, len, b.keys[i], b.medium_keys[i], b.hashes[i], w);
          id = ids.data(), out = ids.data() + ids.size();
        }
        // Token [at, end) spans from the character holding byte `at` to the one holding end - 1.
        size_t at = base + from;
        if (out - id == 1) {
          const uint32_t start = char_at<kAscii>(rows, at);
          *row++ = token_row(*id, start, char_after<kAscii>(rows, base + to - 1), word++);
          continue;
        }
        for (; id < out; ++id) {
          const size_t end = at + length(*id);
          const uint32_t start = char_at<kAscii>(rows, at);
          *row++ = token_row(*id, start, char_after<kAscii>(rows, end - 1), word);
          at = end;
        }
        ++word;
      }
    }
    rows.word = word;
    rows.rows.insert(rows.rows.end(), rows_begin, row);
  }

  // encode_stretch's ids alone, appended to `out`.
  void stretch_ids(const uint8_t* s, size_t n, Scratch& w, std::vector<uint32_t>& out) const {
    if (n == 0) return;
    if (!with_ends(s, n, w, [&](auto ends) { fast_ids(s, n, w, ends, out); }))
      each_piece(s, n, 0, w, [&](const uint8_t* p, size_t len, size_t, bool) { encode_piece(p, len, out, w); });
  }

  // fast_stretch's ids alone: written into the cache's id buffer (room for one id a byte, and
  // the 7 a table hit may write past its last; never cleared, unlike a vector grown to that
  // size), then appended to `out` whole. As pipelines/encoder.h's run: where the last batch met
  // no piece new to this thread, the next is looked up in one pass (warm_ids); otherwise the
  // keys of the next batch are computed and their slots prefetched while this one is merged.
  template <class Ends>
  void fast_ids(const uint8_t* s, size_t n, Scratch& w, Ends ends, std::vector<uint32_t>& out) const {
    PieceCache& cache = w.cache;
    auto find_batch = [&](size_t p, Batch& b, bool keyed) {
      next_bounds(n, ends, p, b);
      if (keyed) batch_keys(s, n, cache, b);
    };
    IdBuffer& buf = cache.out;
    buf.reserve(n + 8);
    uint32_t* o = buf.begin();
    Batch batches[2];
    bool probe = false;  // whether the last batch met pieces new to this thread
    find_batch(0, batches[0], probe);
    for (int cur = 0; batches[cur].count; cur ^= 1) {
      Batch& b = batches[cur];
      find_batch(b.bounds[b.count], batches[cur ^ 1], probe);
      const size_t stored = cache.shorts.size() + cache.mediums.size();
      if (!probe) {
        o = n - b.bounds[b.count] >= 16 ? warm_ids<true>(s, n, b, o, w) : warm_ids<false>(s, n, b, o, w);
        probe = cache.shorts.size() + cache.mediums.size() != stored;
        continue;
      }
      if (!b.keyed) batch_keys(s, n, cache, b);
      for (size_t i = 0; i < b.count; ++i) {
        if (b.gaps >> i & 1) continue;
        const size_t from = b.bounds[i], to = b.bounds[i + 1];
        const uint8_t* piece = s + from;
        const size_t len = to - from;
        if (len == 1) {
          *o++ = last_id_[piece[0]];
        } else if (len <= kShortPiece) {
          if (const ShortPieceTable::Entry* e = cache.shorts.find(b.keys[i], b.hashes[i])) {
            o = cache.shorts.emit(*e, o);
          } else {
            o = copied(missed_piece(piece, len, b.keys[i], b.medium_keys[i], b.hashes[i], w), o);
          }
        } else if (const MediumPieceTable::Entry* e =
                       len <= kMediumPiece ? cache.mediums.find(b.medium_keys[i], b.hashes[i]) : nullptr) {
          o = cache.mediums.emit(*e, o);
        } else {
          o = copied(missed_piece(piece, len, b.keys[i], b.medium_keys[i], b.hashes[i], w), o);
        }
      }
      probe = cache.shorts.size() + cache.mediums.size() != stored;
    }
    out.insert(out.end(), buf.begin(), o);
  }

  // A batch of pieces where the last batch met none new to this thread (so most likely this
  // one has none either), in one pass: each piece's key (two loads and masks where kInside, the
  // batch ending 16 bytes or more before the stretch does), its hash, and a probe of the
  // thread's table through a View kept in registers; a hit's ids are written whole. A piece
  // the table lacks is merged and stored, which may move the table: the View is read again.
  template <bool kInside>
  TF_NOINLINE uint32_t* warm_ids(const uint8_t* s, size_t n, const Batch& b, uint32_t* o, Scratch& w) const {
    PieceCache& cache = w.cache;
    ShortPieceTable::View shorts = cache.shorts.view();
    for (const size_t *bound = b.bounds, *last = b.bounds + b.count; bound != last; ++bound) {
      if (b.gaps >> (bound - b.bounds) & 1) continue;
      const size_t from = bound[0], len = bound[1] - from;
      const uint8_t* piece = s + from;
      if (len == 1) {
        *o++ = last_id_[piece[0]];
      } else if (TF_LIKELY(len <= kShortPiece)) {
        const ShortKey key = kInside ? short_key_inside(piece, len) : short_key(piece, len, s, s + n);
        const uint64_t hash = key.hash();
        if (const ShortPieceTable::Entry* e = shorts.find(key, hash); TF_LIKELY(e != nullptr)) {
          o = cache.shorts.emit_whole(*e, o);
          continue;
        }
        o = copied(missed_piece(piece, len, key, MediumKey{}, hash, w), o);
        shorts = cache.shorts.view();
      } else if (len <= kMediumPiece) {
        const MediumKey key = medium_key(piece, len);
        const uint64_t hash = key.hash();
        if (const MediumPieceTable::Entry* e = cache.mediums.find(key, hash); TF_LIKELY(e != nullptr)) {
          o = cache.mediums.emit_whole(*e, o);
          continue;
        }
        o = copied(missed_piece(piece, len, ShortKey{}, key, hash, w), o);
        shorts = cache.shorts.view();
      } else {
        o = copied(missed_piece(piece, len, ShortKey{}, MediumKey{}, 0, w), o);
        shorts = cache.shorts.view();
      }
    }
    return o;
  }

  // Copies ids to o; returns the end.
  static TF_INLINE uint32_t* copied(const std::vector<uint32_t>& ids, uint32_t* o) {
    std::memcpy(o, ids.data(), ids.size() * sizeof(uint32_t));
    return o + ids.size();
  }

  // A piece fast_stretch and fast_ids did not find cached (or one too long to cache): its ids,
  // merged into w.ids, and kept in the cache for pieces of its length (under the key of that
  // length and its hash).
  TF_INLINE std::vector<uint32_t>& missed_piece(const uint8_t* piece, size_t len, const ShortKey& short_key,
                                                const MediumKey& medium_key, uint64_t hash, Scratch& w) const {
    std::vector<uint32_t>& ids = w.ids;
    ids.clear();
    if (len > kMediumPiece) {
      encode_piece(piece, len, ids, w);
    } else if (len <= kShortPiece) {
      merge(piece, len, ids, w);
      w.cache.shorts.insert(short_key, hash, ids.data(), ids.size());
    } else {
      merge(piece, len, ids, w);
      w.cache.mediums.insert(medium_key, hash, ids.data(), ids.size());
    }
    return ids;
  }

  // The character holding input byte `at`, and the one after the character holding `last`
  // (asked for in order: Rows counts forward).
  template <bool kAscii>
  static TF_INLINE uint32_t char_at(Rows& rows, size_t at) {
    return kAscii ? uint32_t(at) : rows.char_of(at);
  }
  template <bool kAscii>
  static TF_INLINE uint32_t char_after(Rows& rows, size_t last) {
    return kAscii ? uint32_t(last + 1) : rows.char_of(last) + 1;
  }

  // A token's length in input bytes (ids the model gave: every one has a token).
  TF_INLINE size_t length(uint32_t id) const {
    const uint8_t l = short_length_[id];
    return l != kLongToken ? l : length_[id];
  }

  template <Pattern P>
  static TF_INLINE size_t next_end(Scanner& scanner, size_t p) {
    if constexpr (P == Pattern::kGpt2)
      return scanner.gpt2(p);
    else if constexpr (P == Pattern::kCl100k)
      return scanner.cl100k(p);
    else if constexpr (P == Pattern::kO200k)
      return scanner.o200k(p);
    else if constexpr (P == Pattern::kLlama3)
      return scanner.llama3(p);
    else if constexpr (P == Pattern::kQwen2)
      return scanner.qwen2(p);
    else
      return scanner.tekken(p);
  }

  // The general pass: each piece on its own (a prefix space, or the pattern through Oniguruma).
  void piece_by_piece(const uint8_t* s, size_t n, size_t base, Rows& rows, Scratch& w) const {
    std::vector<uint32_t>& ids = w.ids;
    each_piece(s, n, base, w, [&](const uint8_t* p, size_t len, size_t orig, bool prefixed) {
      ids.clear();
      encode_piece(p, len, ids, w);
      // Model byte k of the piece is input byte orig + k - prefixed (the space: orig).
      size_t at = 0;
      for (uint32_t id : ids) {
        const size_t end = at + length(id);
        const size_t first = orig + (at > 0 ? at - prefixed : 0);
        const size_t last = orig + (end - 1 > 0 ? end - 1 - prefixed : 0);
        const uint32_t start = rows.char_of(first);  // before the end: char_of only goes forward
        rows.rows.push_back(token_row(id, start, rows.char_of(last) + 1, rows.word));
        at = end;
      }
      ++rows.word;
    });
  }

  // The ids of one piece (model bytes p[0..n), n >= 1), appended to ids.
  void encode_piece(const uint8_t* p, size_t n, std::vector<uint32_t>& ids, Scratch& w) const {
    if (n == 1) return ids.push_back(last_id_[p[0]]);
    PieceCache& cache = w.cache;
    uint32_t buf[kMediumPiece + 8];
    if (n <= kShortPiece) {
      const ShortKey key = short_key(p, n, p, p + n);
      const uint64_t h = key.hash();
      if (const ShortPieceTable::Entry* e = cache.shorts.find(key, h)) {
        uint32_t* end = cache.shorts.emit(*e, buf);
        ids.insert(ids.end(), buf, end);
        return;
      }
      const size_t before = ids.size();
      merge(p, n, ids, w);
      cache.shorts.insert(key, h, ids.data() + before, ids.size() - before);
      return;
    }
    if (n <= kMediumPiece) {
      const MediumKey key = medium_key(p, n);
      const uint64_t h = key.hash();
      if (const MediumPieceTable::Entry* e = cache.mediums.find(key, h)) {
        uint32_t* end = cache.mediums.emit(*e, buf);
        ids.insert(ids.end(), buf, end);
        return;
      }
      const size_t before = ids.size();
      merge(p, n, ids, w);
      cache.mediums.insert(key, h, ids.data() + before, ids.size() - before);
      return;
    }
    const bool remembered = n <= PieceCache::kMaxBytes;
    const uint64_t key = remembered ? bytes_key(p, n) : 0;
    if (remembered && cache.get_long(p, n, key, ids)) return;
    const size_t before = ids.size();
    merge(p, n, ids, w);
    if (remembered) cache.put_long(p, n, key, ids.data() + before, ids.size() - before);
  }

  // A piece new to this thread: spelled in the byte alphabet and merged by HF's model. A long
  // run of non-ASCII characters is cut where no token holds bytes on both sides
  // (models/bpe/split_points.h): no merge crosses such a cut, so the piece's merge is its parts'
  // merges (the piece is no token then, so ignore_merges has nothing to find whole), and short
  // parts, which recur where whole runs do not (CJK), come from a table of their own.
  void merge(const uint8_t* p, size_t n, std::vector<uint32_t>& ids, Scratch& w) const {
    if (n >= 6) {
      std::vector<size_t>& cuts = w.cuts;  // part boundaries: 0, ..., n
      cuts.assign(1, 0);
      uint32_t prev = kNoToken;  // the previous character if non-ASCII
      for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
          prev = kNoToken;
          ++i;
          continue;
        }
        const size_t len = WholeCharacters::utf8_length(p[i]);
        if (len == 0 || i + len > n) {  // not a character's start (a cut character): no cuts
          cuts.resize(1);
          break;
        }
        size_t decoded;
        const uint32_t cp = decode_utf8(p + i, len, decoded);
        if (prev != kNoToken && !split_points_.may_join(prev, cp, unsigned(p[i - 1]) << 8 | p[i])) cuts.push_back(i);
        prev = cp;
        i += len;
      }
      if (cuts.size() > 1) {
        cuts.push_back(n);
        if (suffix_.empty()) {
          for (size_t k = 0; k + 1 < cuts.size(); ++k) merge_part(p + cuts[k], cuts[k + 1] - cuts[k], ids, w);
          return;
        }
        // With a suffix, only the last part ends the word: the others merge without it, which
        // only the scan does (a longer part: the piece whole).
        bool scanned = model_.suffixed_scan();
        for (size_t k = 0; k + 2 < cuts.size(); ++k) scanned &= cuts[k + 1] - cuts[k] <= HfBpeModel::kScanSymbols;
        if (scanned) {
          for (size_t k = 0; k + 2 < cuts.size(); ++k) merge_part(p + cuts[k], cuts[k + 1] - cuts[k], ids, w);
          const size_t from = cuts[cuts.size() - 2];
          return spell_and_merge(p + from, n - from, ids, w, false, /*last=*/true);
        }
      }
    }
    spell_and_merge(p, n, ids, w, /*whole_token=*/true);
  }

  // A part of a cut piece: its merges alone (a part that is a token may still not be that
  // token's merge), remembered apart from whole pieces.
  // (With a suffix: a part before the last, merged without it.)
  void merge_part(const uint8_t* p, size_t n, std::vector<uint32_t>& ids, Scratch& w) const {
    const bool last = suffix_.empty();
    if (n > kShortPiece) return spell_and_merge(p, n, ids, w, false, last);
    const ShortKey key = short_key(p, n, p, p + n);
    const uint64_t h = key.hash();
    if (const ShortPieceTable::Entry* e = w.parts.find(key, h)) {
      uint32_t buf[kShortPiece + 8];
      uint32_t* end = w.parts.emit(*e, buf);
      ids.insert(ids.end(), buf, end);
      return;
    }
    const size_t before = ids.size();
    spell_and_merge(p, n, ids, w, false, last);
    w.parts.insert(key, h, ids.data() + before, ids.size() - before);
  }

  // `last`: p ends the piece (with a suffix, its last byte's token is the suffixed one; false
  // only where the scan applies, merge and merge_part see to that).
  void spell_and_merge(const uint8_t* p, size_t n, std::vector<uint32_t>& ids, Scratch& w, bool whole_token,
                       bool last = true) const {
    std::string& spelled = w.spelled;
    spelled.clear();
    if (!suffix_.empty() && model_.suffixed_scan() && n <= HfBpeModel::kScanSymbols) {
      // As below, the last symbol the suffixed character (last_id_) where the piece ends here.
      uint32_t symbols[HfBpeModel::kScanSymbols], lens[HfBpeModel::kScanSymbols];
      hf_bpe::MergeTable::Merge first[HfBpeModel::kScanSymbols];
      for (size_t i = 0; i < n; ++i) symbols[i] = byte_id_[p[i]], lens[i] = 1;
      for (size_t i = 0; i + 1 < n; ++i) first[i] = byte_pairs_[size_t(p[i]) << 8 | p[i + 1]];
      if (last) {
        symbols[n - 1] = last_id_[p[n - 1]];
        if (n >= 2) first[n - 2] = model_.merge_of(symbols[n - 2], symbols[n - 1]);
      }
      const size_t count = model_.merge_suffixed(symbols, lens, n, first, w.pairs);
      ids.insert(ids.end(), symbols, symbols + count);
      return;
    }
    if (model_.plain() && n <= HfBpeModel::kScanSymbols) {
      // Each byte's token is known (byte_id_): the merges over those ids, with this thread's pair
      // cache, as HfBpeModel's run would make them (with ignore_merges a whole token first).
      if (whole_token && model_.ignores_merges()) {
        for (size_t i = 0; i < n; ++i) spelled += spelled_[p[i]];
        if (const uint32_t id = model_.token_id(spelled); id != kNoToken) return ids.push_back(id);
      }
      // The first round's pairs are pairs of bytes: their merges come from byte_pairs_.
      uint32_t symbols[HfBpeModel::kScanSymbols], lens[HfBpeModel::kScanSymbols];
      hf_bpe::MergeTable::Merge first[HfBpeModel::kScanSymbols];
      for (size_t i = 0; i < n; ++i) symbols[i] = byte_id_[p[i]], lens[i] = 1;
      for (size_t i = 0; i + 1 < n; ++i) first[i] = byte_pairs_[size_t(p[i]) << 8 | p[i + 1]];
      const size_t count = model_.merge_symbols(symbols, lens, n, first, w.pairs);
      ids.insert(ids.end(), symbols, symbols + count);
      return;
    }
    for (size_t i = 0; i < n; ++i) spelled += spelled_[p[i]];
    w.tokens.clear();
    if (whole_token)
      model_.tokenize(spelled.data(), spelled.size(), w.tokens);
    else
      model_.tokenize_merges(spelled.data(), spelled.size(), w.tokens);
    for (const ModelToken& t : w.tokens) ids.push_back(t.id);
  }

  ByteLevelHfBpeDescription d_;
  HfBpeModel model_;
  ByteLevelDecoder decoder_;
  std::unique_ptr<Regex> regex_;
  std::array<int16_t, 0x144> byte_of_;  // code point of the alphabet -> byte, or -1
  std::string spelled_[256];            // byte -> its character's UTF-8
  uint32_t byte_id_[256];               // byte -> the id of its character's token
  // byte -> the id of a piece's last byte: byte_id_, or with a suffix its character's token with
  // the suffix (the unk token where the vocabulary lacks it, as HF's).
  uint32_t last_id_[256];
  std::string suffix_;  // the model's end_of_word_suffix (CLIP's files), else empty
  // (a << 8 | b) -> the merge of byte a's token with byte b's (model_.merge_of), where the model
  // is plain(): 512 KiB, of which CJK text reads a few rows.
  std::vector<hf_bpe::MergeTable::Merge> byte_pairs_;
  std::vector<uint32_t> length_;  // id -> its token's length in input bytes (0: none)
  static constexpr uint8_t kLongToken = 255;
  std::vector<uint8_t> short_length_;  // length_ in a byte, or kLongToken: see length_
  SplitPoints split_points_;           // where no token holds bytes on both sides
  mutable Pool<Scratch> scratch_;
  OffsetTrim trim_;
  mutable std::once_flag staged_once_;
  mutable std::unique_ptr<StagedPipeline> staged_;
};

}  // namespace tokenforge
