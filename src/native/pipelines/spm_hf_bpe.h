// A sentencepiece-style BPE tokenizer.json (Llama 2, Mistral, Gemma 1-3 and their kin) as one
// fused pass per text, exact to HF tokenizers and to the general staged pipeline
// (pipelines/staged.h) that runs the same file stage by stage: ids, offsets, and the decoder's
// text.
//
// It runs the files whose stages are: HF's BPE model (models/bpe/hf_bpe_model.h: merges by rank,
// byte_fallback, unk_token, fuse_unk, ignore_merges; no dropout, subword prefix or suffix) with a
// token for "▁"; and either the Metaspace pre-tokenizer (replacement "▁", any prepend_scheme,
// split or not) without a normalizer, or the normalizer Replace(" " -> "▁") with or without a
// Prepend("▁") before it and no pre-tokenizer (or a Split on " ", which finds nothing once the
// spaces are gone). tokenforge/pipeline/fused_spm.py decides which files those are. Any decoder:
// decode runs the staged pipeline's own (decoders/decoder_factory.h).
//
// One text: added tokens are split off first (added_tokens/special_matcher.h, as every
// pipeline); each stretch between them becomes the model's text — the "▁" prefix where the
// file's rule puts one (Prepend: every non-empty stretch; Metaspace always: unless it starts with
// a space or "▁"; first: that, and only the stretch at the text's start), and each space as "▁".
// The model's text is cut into segments that merge independently: with Metaspace's split before
// every "▁" (HF's pieces), else before each "▁" that follows a character no token holds right
// before a "▁" (no merge can cross there: a merge forms a token of the vocabulary; see
// split_points.h for the argument); a segment of over 31 bytes is cut again between two non-ASCII
// characters no token holds together (SplitPoints: CJK runs). These cuts are off where a
// byte-fallback or unk symbol is part of a merge, or characters may be dropped (index_cuts). A
// segment of one character takes its token (or its bytes' tokens) from a table; any other's ids
// come from a per-thread memory keyed by its bytes (models/bpe/piece_cache.h's tables, slots
// prefetched 16 segments ahead; most segments are a "▁word"), or, new to the thread, from
// HfBpeModel's merges, so they are HF's by construction. (HfBpeModel::merge_plain where every character is a token,
// with this kernel's own per-thread pair cache; else tokenize_merges). A new segment is first cut where no
// token holds the characters on both sides (models/bpe/char_pairs.h; "▁▁▁▁name(" and "x)\n"
// are new far more often than their parts), and each part is looked up or merged and remembered
// on its own (merge_cut), then the whole segment is remembered too; a segment is remembered
// only where its tokens' lengths are the ones the ids say (an unk token's length varies), so a
// remembered segment gives the same rows again. With ignore_merges a piece that is a token whole
// (HF's pieces, or the whole stretch without split) is that token.
//
// Offsets are spans of input code points, as HF's: each character of the model's text stands for
// one input character (a "▁" for its space, the prefix for the stretch's first character), and a
// token spans from the character holding its first byte to the one holding its last.
#pragma once
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "added_tokens/special_matcher.h"
#include "base/pool.h"
#include "base/utf8.h"
#include "decoders/decoder.h"
#include "decoders/decoder_factory.h"
#include "models/bpe/bpe_stage.h"
#include "models/bpe/char_pairs.h"
#include "models/bpe/hf_bpe_model.h"
#include "models/bpe/piece_cache.h"
#include "models/bpe/split_points.h"
#include "pipelines/staged.h"
#include "processors/post_processing.h"

namespace tokenforge {

struct SpmHfBpeDescription {
  StagedDescription staged;  // the whole file, as the staged pipeline takes it (model, decoder, hooks)
  // Where the "▁" prefix goes: 0 never, 1 Metaspace "first", 2 Metaspace "always", 3 the Prepend
  // normalizer (every non-empty stretch, even one that starts with "▁").
  int prepend = 0;
  bool split = false;   // Metaspace's split: a piece before every "▁"
  HiddenTokens hidden;  // tokens an added token's id hides (processors/post_processing.h)
};

class SpmHfBpePipeline {
 public:
  enum Prepend { kNever = 0, kFirst = 1, kAlways = 2, kEvery = 3 };

  // Throws std::invalid_argument for a description it does not run (the Python side checks
  // first; this keeps a wrong call from giving wrong ids).
  explicit SpmHfBpePipeline(SpmHfBpeDescription d) : d_(std::move(d)) {
    if (d_.prepend < kNever || d_.prepend > kEvery) throw std::invalid_argument("prepend must be 0..3");
    const StagedDescription& s = d_.staged;
    if (s.model_type != "BPE") throw std::invalid_argument("the model must be BPE, got " + s.model_type);
    OptionReader o("model BPE", s.model_options);
    const HfBpeOptions options = BpeStage::options_of(o);
    const HfBpeModel::Merges read = s.merges_given ? HfBpeModel::Merges() : BpeStage::merges_of(o);
    const HfBpeModel::Merges& merges = s.merges_given ? s.merges : read;
    o.finish();
    if (options.dropout || !options.continuing_subword_prefix.value_or("").empty() ||
        !options.end_of_word_suffix.value_or("").empty())
      throw std::invalid_argument(
          "the fused sentencepiece-style BPE runs models without continuing_subword_prefix, end_of_word_suffix "
          "and dropout");
    model_ = std::make_unique<HfBpeModel>(s.vocab, merges, options);
    ignore_merges_ = options.ignore_merges;
    if (model_->token_id(kSpace) == kNoToken)
      throw std::invalid_argument("the vocabulary has no token \"\xE2\x96\x81\", which the fused pass needs");
    if (s.decoder.kind != OptionValue::Kind::kNull) decoder_ = make_decoder(s.decoder);
    index_lengths(options);
    index_cuts(options, merges);
  }

  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special,
                 const SpecialMatcher* added, const PostProcessor& post) const {
    Encoded first = encode_sequence(a, na, added);
    if (!pair) return post.process(std::move(first), nullptr, add_special);
    Encoded second = encode_sequence(b, nb, added);
    return post.process(std::move(first), &second, add_special);
  }

  // The model's rows for one text, before post-processing.
  Encoded encode_sequence(const uint8_t* s, size_t n, const SpecialMatcher* added) const {
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    Encoded e;
    e.rows.reserve(n / 4 + 8);
    InputChars chars{s};
    uint32_t word = 0;  // HF's word index: added tokens and pre-tokenized pieces, in order
    split_at_matches(
        added, s, n,
        [&](size_t from, size_t to) {
          const size_t before = e.rows.size();
          encode_stretch(s, from, to, chars, e.rows, w, word);
          if (!d_.hidden.empty()) e.show_hidden(before, d_.hidden);
        },
        [&](const SpecialMatch& m) {
          const uint32_t start = chars.char_of(m.pos);
          push_row(e.rows, m.id, start, chars.char_of(m.pos + m.len - 1) + 1, word++);
          if (m.grown) e.rows.back().name = e.name_slot(std::string(reinterpret_cast<const char*>(s) + m.pos, m.len));
        });
    return e;
  }

  // Ids first: the ids encode_sequence's rows would hold, appended to `out`, without building
  // the rows (offsets, words, names); python/py_pipeline.h builds those by encode_sequence when
  // they are read. Always true (every text runs here).
  bool encode_ids(const uint8_t* s, size_t n, const SpecialMatcher* added, std::vector<uint32_t>& out) const {
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    out.reserve(out.size() + n / 3 + 8);
    InputChars chars{s};  // unused: ids carry no offsets
    uint32_t word = 0;
    split_at_matches(
        added, s, n, [&](size_t from, size_t to) { encode_stretch(s, from, to, chars, out, w, word); },
        [&](const SpecialMatch& m) { out.push_back(m.id); });
    return true;
  }

  // The decoder over the tokens' texts, joined (as the staged pipeline's decode).
  std::string decode(std::vector<std::string> tokens) const {
    std::string out;
    if (!decoder_) {
      for (size_t i = 0; i < tokens.size(); ++i) (i ? out += " " : out) += tokens[i];
      return out;
    }
    decoder_->decode_chain(tokens);
    for (const std::string& t : tokens) out += t;
    return out;
  }

  // The staged pipeline of the same description, built on first need (the pre_tokenize and
  // normalize hooks).
  const StagedPipeline& staged() const {
    std::call_once(staged_once_, [&] { staged_ = std::make_unique<StagedPipeline>(d_.staged); });
    return *staged_;
  }

  // The segments a stretch without added tokens is cut into: (model bytes, first model byte),
  // the prefix included (a test hook).
  std::vector<std::pair<std::string, size_t>> segments(const uint8_t* s, size_t n) const {
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    std::vector<std::pair<std::string, size_t>> out;
    size_t size;
    const bool prefixed = model_text(s, 0, n, w.text, size);
    (void)prefixed;
    const auto* m = reinterpret_cast<const uint8_t*>(w.text.data());
    each_segment(m, size,
                 [&](size_t from, size_t to) { out.emplace_back(std::string(w.text.data() + from, to - from), from); });
    return out;
  }

 private:
  static constexpr const char* kSpace = "\xE2\x96\x81";  // "▁"

  // A segment of the model's text, [a, b), with its piece-table key once prepared. The key and
  // hash are left unset until then (prepare sets them where encode_segment reads them: a
  // segment of 2 to kMediumPiece bytes that is not one character taken from a table), so
  // that adding a segment writes 24 bytes, not 80.
  struct Segment {
    size_t a, b;
    uint32_t word;  // HF's pre-tokenized piece (word index) the segment lies in
    uint64_t hash;
    ShortKey short_key;
    MediumKey medium_key;
    Segment(size_t from, size_t to, uint32_t w) : a(from), b(to), word(w) {}
  };
  static constexpr size_t kBatch = 16;

  // A part of a missed segment (merge_cut): its key in the short or the medium table (by its
  // length) and the key's hash, found once for the prefetch and the lookup.
  struct PartKey {
    ShortKey short_key;
    MediumKey medium_key;
    uint64_t hash;
  };

  struct Scratch {
    PieceCache cache;
    std::vector<Segment> segments;  // one stretch's segments and parts, in order
    std::string text;               // the model's text of one stretch, at its start (model_text)
    std::vector<ModelToken> tokens;
    std::vector<uint32_t> cuts;           // a missed segment's part ends (merge_cut; grown only)
    std::vector<PartKey> part_keys;       // and each part's table key and hash
    std::vector<ModelToken> part_tokens;  // a missed segment's tokens, part by part
    std::vector<uint32_t> part_ids;       // and their ids
    hf_bpe::PairCache pairs;              // the merges of pairs looked up (HfBpeModel::merge_plain)
    void trim() {
      cache.trim();
      release_if_large(text);
      release_if_large(tokens);
      release_if_large(segments);
      release_if_large(cuts);
      release_if_large(part_keys);
      release_if_large(part_tokens);
      release_if_large(part_ids);
    }
  };

  // Input byte -> code point index; the bytes asked for go forward, so the count runs once (a
  // byte behind them, where an rstrip match reached past the next match's start, counts back).
  struct InputChars {
    const uint8_t* s;
    size_t counted_to = 0;  // lead bytes in s[0..counted_to) are counted in `chars`
    uint32_t chars = 0;
    uint32_t char_of(size_t byte) {
      if (byte < counted_to) return chars - 1 - count_characters(s, byte + 1, counted_to, counted_to);
      for (; counted_to <= byte; ++counted_to) chars += (s[counted_to] & 0xC0) != 0x80;
      return chars - 1;
    }
  };

  // Model byte -> input code point index within one stretch (the same, counted over the model's
  // text; the prefix and the first character are both the stretch's first character).
  struct ModelChars {
    const uint8_t* m;
    uint32_t base;  // the stretch's first character
    bool prefixed;
    size_t counted_to = 0;
    uint32_t chars = 0;
    uint32_t char_of(size_t byte) {
      for (; counted_to <= byte; ++counted_to) chars += (m[counted_to] & 0xC0) != 0x80;
      return base + chars - 1 - (prefixed && byte >= 3);
    }
  };

  // id -> the bytes its token covers when made from the text's own characters (a "<0xAB>" byte
  // token: one); 0 where that may vary (the unk token) or is over 255 (such a token's segments
  // are merged each time, not remembered). One byte each: a 262k vocabulary's lengths then stay
  // in the core's caches, which the lookups of a cold pass (remembered ids, new merges) miss.
  void index_lengths(const HfBpeOptions& options) {
    for (const auto& [token, id] : d_.staged.vocab) {
      if (id >= length_.size()) length_.resize(size_t(id) + 1, 0);
      length_[id] = token.size() <= 255 ? uint8_t(token.size()) : 0;
    }
    if (options.byte_fallback) {
      static const char* kHex = "0123456789ABCDEF";
      for (int b = 0; b < 256; ++b) {
        const char name[6] = {'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>'};
        const uint32_t id = model_->token_id(std::string_view(name, 6));
        if (id != kNoToken) length_[id] = 1;
      }
    }
    if (options.unk_token) {
      const uint32_t id = model_->token_id(*options.unk_token);
      if (id != kNoToken) length_[id] = 0;
    }
    char_ids_.assign(size_t(1) << 16, kNoToken);
    for (const auto& [token, id] : d_.staged.vocab) {
      if (token.empty() || token.size() > 3) continue;
      size_t len;
      const uint32_t c = decode_utf8(reinterpret_cast<const uint8_t*>(token.data()), token.size(), len);
      if (len == token.size() && c < char_ids_.size()) char_ids_[c] = model_->token_id(token);
    }
  }

  // Which characters some token holds right before a "▁" (a cut there could split a merge), and
  // which pairs of non-ASCII characters some token holds (models/bpe/split_points.h).
  // Cutting is off where a symbol that is no character of the text (a byte-fallback or unk
  // token) is part of a merge, and where characters may be dropped (no unk token, no byte
  // fallback for every byte: HF's offsets then run on over the whole piece); cuts between two
  // non-ASCII characters are off where an unk token may stand for a character (fuse_unk could
  // join unk characters across the cut).
  void index_cuts(const HfBpeOptions& options, const HfBpeModel::Merges& merges) {
    joins_.assign(size_t(1) << 16, 0);
    bool odd = false;
    for (const auto& [token, id] : d_.staged.vocab) {
      for (size_t at = token.find(kSpace, 1); at != std::string::npos; at = token.find(kSpace, at + 1)) {
        size_t k = at - 1;
        while (k > 0 && (uint8_t(token[k]) & 0xC0) == 0x80) --k;
        size_t len;
        const uint32_t c = decode_utf8(reinterpret_cast<const uint8_t*>(token.data()) + k, at - k, len);
        if (c < joins_.size())
          joins_[c] = 1;
        else
          joins_rest_.push_back(c);
      }
    }
    std::sort(joins_rest_.begin(), joins_rest_.end());
    auto is_byte_token = [&](const std::string& t) {
      return options.byte_fallback && t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>' &&
             std::isxdigit(uint8_t(t[3])) && std::isxdigit(uint8_t(t[4])) && !std::islower(uint8_t(t[3])) &&
             !std::islower(uint8_t(t[4]));
    };
    for (const auto& [a, b] : merges)
      odd |= is_byte_token(a) || is_byte_token(b) ||
             (options.unk_token && (a == *options.unk_token || b == *options.unk_token));
    bool all_bytes = options.byte_fallback;
    for (int b = 0; b < 256 && all_bytes; ++b) {
      static const char* kHex = "0123456789ABCDEF";
      const char name[6] = {'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>'};
      all_bytes = model_->token_id(std::string_view(name, 6)) != kNoToken;
    }
    const bool dropping = !all_bytes && (!options.unk_token || model_->token_id(*options.unk_token) == kNoToken);
    cut_ = !odd && !dropping;
    inner_cuts_ = cut_ && all_bytes;
    if (all_bytes)
      for (int b = 0; b < 256; ++b) {
        static const char* kHex = "0123456789ABCDEF";
        const char name[6] = {'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>'};
        byte_ids_[b] = model_->token_id(std::string_view(name, 6));
      }
    all_bytes_ = all_bytes;
    if (inner_cuts_) {
      std::vector<std::pair<const uint8_t*, size_t>> views;
      views.reserve(d_.staged.vocab.size());
      for (const auto& [token, id] : d_.staged.vocab)
        views.emplace_back(reinterpret_cast<const uint8_t*>(token.data()), token.size());
      split_points_.build(views);
      std::vector<std::string_view> tokens;
      tokens.reserve(d_.staged.vocab.size());
      for (const auto& [token, id] : d_.staged.vocab) tokens.emplace_back(token);
      char_pairs_.build(tokens);
    }
  }

  bool joins_space(uint32_t c) const {
    if (c < joins_.size()) return joins_[c];
    return std::binary_search(joins_rest_.begin(), joins_rest_.end(), c);
  }

  // The model's text of the stretch s[from..to) into out[0..size); whether it has the prefix.
  // `out` only grows (room for the longest text, every byte a space): a resize to each text's
  // room would fill three bytes with zeros for every byte of text, cold or warm.
  bool model_text(const uint8_t* s, size_t from, size_t to, std::string& out, size_t& size) const {
    const uint8_t* t = s + from;
    const size_t n = to - from;
    size = 0;
    if (n == 0) return false;
    const bool starts = t[0] == ' ' || (n >= 3 && std::memcmp(t, kSpace, 3) == 0);
    const bool prefixed =
        d_.prepend == kEvery || (d_.prepend == kAlways && !starts) || (d_.prepend == kFirst && !starts && from == 0);
    if (out.size() < 3 * n + 3) out.resize(3 * n + 3);
    char* w = out.data();
    if (prefixed) w = std::copy_n(kSpace, 3, w);
    for (size_t i = 0; i < n;) {
      const void* hit = std::memchr(t + i, ' ', n - i);
      const size_t end = hit ? size_t(static_cast<const uint8_t*>(hit) - t) : n;
      std::memcpy(w, t + i, end - i);
      w += end - i;
      if (end == n) break;
      w = std::copy_n(kSpace, 3, w);
      i = end + 1;
    }
    size = size_t(w - out.data());
    return prefixed;
  }

  // Calls f(from, to) for each segment of the model's text m[0..n).
  template <class F>
  void each_segment(const uint8_t* m, size_t n, F f) const {
    if (!d_.split && !cut_) return f(0, n);
    size_t start = 0;
    for (size_t i = 1; i + 3 <= n;) {
      const void* hit = std::memchr(m + i, 0xE2, n - i);
      if (!hit) break;
      const size_t at = size_t(static_cast<const uint8_t*>(hit) - m);
      if (at + 3 > n) break;
      if (m[at + 1] != 0x96 || m[at + 2] != 0x81) {
        i = at + 1;
        continue;
      }
      if (at > start) {
        bool cut = d_.split;
        if (!cut) {
          size_t k = at - 1;
          while (k > 0 && (m[k] & 0xC0) == 0x80) --k;
          size_t len;
          cut = !joins_space(decode_utf8(m + k, at - k, len));
        }
        if (cut) {
          f(start, at);
          start = at;
        }
      }
      i = at + 3;
    }
    f(start, n);
  }

  // One stretch between added tokens, s[from..to): its rows (Out = TokenRows), or only their ids
  // (Out = std::vector<uint32_t>: `chars` is not read). `word` is the next word index: the
  // stretch is one word, or with Metaspace's split one per piece that starts at a "▁".
  template <class Out>
  void encode_stretch(const uint8_t* s, size_t from, size_t to, InputChars& chars, Out& out, Scratch& w,
                      uint32_t& word) const {
    if (to == from) return;
    size_t n;
    const bool prefixed = model_text(s, from, to, w.text, n);
    const auto* m = reinterpret_cast<const uint8_t*>(w.text.data());
    constexpr bool kRows = std::is_same_v<Out, TokenRows>;
    ModelChars mc{m, kRows ? chars.char_of(from) : 0, prefixed};
    // A token of model bytes [start, end) of the stretch, in word `in`.
    auto emit = [&](uint32_t id, size_t start, size_t end, uint32_t in) {
      if constexpr (kRows) {
        const uint32_t first = mc.char_of(start);
        const uint32_t last = end > start ? mc.char_of(end - 1) + 1 : first;
        push_row(out, id, first, last, in);
      } else {
        out.push_back(id);
      }
    };
    if (ignore_merges_ && !d_.split) {  // the whole stretch is HF's one piece
      const uint32_t id = model_->token_id(std::string_view(w.text.data(), n));
      if (id != kNoToken) return emit(id, 0, n, word++);
    }
    std::vector<Segment>& segs = w.segments;
    segs.clear();
    const uint32_t first_word = word;
    each_segment(m, n, [&](size_t a, size_t b) {
      // Without split the stretch is one word; with it, each piece cut before a "▁" is one.
      const uint32_t at = d_.split ? word++ : first_word;
      if (!inner_cuts_ || b - a <= kMediumPiece)  // the piece tables hold it whole
        segs.emplace_back(a, b, at);
      else
        each_part(m, a, b, [&](size_t x, size_t y) { segs.emplace_back(x, y, at); });
    });
    if (!d_.split) ++word;
    // The table slots of the next kBatch segments are prefetched while these are encoded (as
    // pipelines/encoder.h does): the tables lie beyond the core's caches.
    const size_t count = segs.size();
    for (size_t i = 0; i < count && i < kBatch; ++i) prepare(m, n, segs[i], w);
    for (size_t i = 0; i < count; ++i) {
      if (i % kBatch == 0)
        for (size_t k = i + kBatch; k < count && k < i + 2 * kBatch; ++k) prepare(m, n, segs[k], w);
      encode_segment(m, segs[i], w, emit);
    }
  }

  // A segment's key and hash in the piece tables, its slot prefetched (not for one character that
  // encode_segment finds in char_ids_ or spells in byte tokens).
  void prepare(const uint8_t* m, size_t n, Segment& s, Scratch& w) const {
    const uint8_t* p = m + s.a;
    const size_t len = s.b - s.a;
    if (len <= 3 && utf8_length(p[0]) == len) {  // one character: its token, most likely
      size_t decoded;
      const uint32_t id = char_ids_[decode_utf8(p, len, decoded)];
      if (id != kNoToken || all_bytes_) return;
    }
    if (len >= 2 && len <= kShortPiece) {
      s.short_key = short_key(p, len, m, m + n);
      s.hash = s.short_key.hash();
      w.cache.shorts.prefetch(s.hash);
    } else if (len > kShortPiece && len <= kMediumPiece) {
      s.medium_key = medium_key(p, len);
      s.hash = s.medium_key.hash();
      w.cache.mediums.prefetch(s.hash);
    }
  }

  // Calls f(from, to) for the parts of segment m[a..b): cut between two non-ASCII characters no
  // token holds together (split_points.h), so long runs of CJK become short, frequent parts.
  template <class F>
  void each_part(const uint8_t* m, size_t a, size_t b, F f) const {
    size_t start = a;
    uint32_t prev = kNoToken;  // the previous character if non-ASCII
    for (size_t i = a; i < b;) {
      if (m[i] < 0x80) {
        prev = kNoToken;
        ++i;
        continue;
      }
      size_t len;
      const uint32_t cp = decode_utf8(m + i, b - i, len);
      if (len == 0) len = 1;
      if (prev != kNoToken && !split_points_.may_join(prev, cp, unsigned(m[i - 1]) << 8 | m[i])) {
        f(start, i);
        start = i;
      }
      prev = cp;
      i += len;
    }
    f(start, b);
  }

  // The tokens of segment s of the model's text m (prepared: its key and hash), each given to
  // emit(id, start, end, word) with its model bytes [start, end) of the text.
  template <class Emit>
  void encode_segment(const uint8_t* m, const Segment& s, Scratch& w, Emit& emit) const {
    const size_t a = s.a, b = s.b;
    const uint8_t* p = m + a;
    const size_t len = b - a;
    auto row = [&](uint32_t id, size_t start, size_t end) { emit(id, start, end, s.word); };
    if (ignore_merges_ && d_.split) {  // a piece of HF's that is a token whole
      const uint32_t id = model_->token_id(std::string_view(reinterpret_cast<const char*>(p), len));
      if (id != kNoToken) return row(id, a, b);
    }
    if (len <= 3 && utf8_length(p[0]) == len) {  // one character of the BMP: its token, or its bytes'
      size_t decoded;
      const uint32_t id = char_ids_[decode_utf8(p, len, decoded)];
      if (id != kNoToken) return row(id, a, b);
      if (all_bytes_) {
        for (size_t k = 0; k < len; ++k) row(byte_ids_[p[k]], a + k, a + k + 1);
        return;
      }
    }
    PieceCache& cache = w.cache;
    uint32_t buf[kMediumPiece + 8];
    auto from_ids = [&](const uint32_t* ids, const uint32_t* end) {
      size_t at = a;
      for (; ids != end; ++ids) {
        const uint32_t bytes = length_[*ids];
        row(*ids, at, at + bytes);
        at += bytes;
      }
    };
    if (len >= 2 && len <= kShortPiece) {
      const ShortKey& key = s.short_key;
      const uint64_t h = s.hash;
      if (const ShortPieceTable::Entry* e = cache.shorts.find(key, h)) return from_ids(buf, cache.shorts.emit(*e, buf));
      if (merge_cut(p, len, w)) cache.shorts.insert(key, h, cache.ids.data(), cache.ids.size());
    } else if (len > kShortPiece && len <= kMediumPiece) {
      const MediumKey& key = s.medium_key;
      const uint64_t h = s.hash;
      if (const MediumPieceTable::Entry* e = cache.mediums.find(key, h))
        return from_ids(buf, cache.mediums.emit(*e, buf));
      if (merge_cut(p, len, w)) cache.mediums.insert(key, h, cache.ids.data(), cache.ids.size());
    } else if (len > kMediumPiece && len <= PieceCache::kMaxBytes) {
      const uint64_t key = bytes_key(p, len);
      cache.ids.clear();
      if (cache.get_long(p, len, key, cache.ids))
        return from_ids(cache.ids.data(), cache.ids.data() + cache.ids.size());
      if (merge_cut(p, len, w)) cache.put_long(p, len, key, cache.ids.data(), cache.ids.size());
    } else {
      merge_cut(p, len, w);
    }
    for (const ModelToken& t : w.tokens) row(t.id, a + t.start, a + t.end);
  }

  // A segment new to the thread: its merges (w.tokens, offsets in the segment) and ids
  // (cache.ids); whether the ids give its rows again (every token as long as length_ says, and
  // together the whole segment).
  bool merge(const uint8_t* p, size_t len, Scratch& w) const {
    w.tokens.clear();
    std::vector<uint32_t>& ids = w.cache.ids;
    ids.clear();
    uint32_t at = 0;
    bool exact = true;
    // Most new segments are characters that are tokens: merged here, with the thread's own pair
    // cache (no lease of the model's pool, no symbol list).
    uint32_t plain[HfBpeModel::kScanSymbols], lens[HfBpeModel::kScanSymbols];
    if (const size_t count = model_->merge_plain(p, len, plain, lens, w.pairs)) {
      w.tokens.resize(count);
      ids.assign(plain, plain + count);
      ModelToken* tokens = w.tokens.data();
      for (size_t k = 0; k < count; ++k) {
        const uint32_t id = plain[k];
        tokens[k] = {id, at, at + lens[k]};
        exact &= lens[k] == length_[id] && length_[id] > 0;
        at += lens[k];
      }
      return exact;
    }
    model_->tokenize_merges(reinterpret_cast<const char*>(p), len, w.tokens, /*remember=*/false);
    for (const ModelToken& t : w.tokens) {
      ids.push_back(t.id);
      exact &= t.start == at && t.end - t.start == length_[t.id] && length_[t.id] > 0;
      at = t.end;
    }
    return exact && at == len;
  }

  // A segment new to the thread, as merge (the same w.tokens, cache.ids and answer), cut first
  // where no token holds the characters on both sides (char_pairs_; with inner_cuts_ only): each
  // part comes from the thread's tables or is merged and remembered on its own, so a new
  // "▁▁▁▁name(" merges only what is new in it. A part of one character (most parts of a CJK run)
  // takes its token (or its bytes' tokens) here, with no table key; the tokens go to the part
  // buffers through pointers (grown only, at least one token a byte) and are copied once at the end.
  bool merge_cut(const uint8_t* p, size_t len, Scratch& w) const {
    if (!inner_cuts_ || len < 2) return merge(p, len, w);
    if (w.cuts.size() < len) w.cuts.resize(len);  // grown only: at most one cut a byte, the end included
    uint32_t* const cuts = w.cuts.data();
    size_t parts = 0;
    size_t step;
    uint32_t prev = decode_utf8(p, len, step);
    for (size_t i = step; i < len; i += step) {
      const uint32_t c = decode_utf8(p + i, len - i, step);
      if (!char_pairs_.may_join(prev, c)) cuts[parts++] = uint32_t(i);
      prev = c;
    }
    if (parts == 0) return merge(p, len, w);
    cuts[parts++] = uint32_t(len);
    // The keys of the parts of 2 to kMediumPiece bytes that are not one character, their table
    // slots asked for together, ahead of the lookups.
    std::vector<PartKey>& keys = w.part_keys;  // only grows: a resize down and up again would zero them
    if (keys.size() < parts) keys.resize(parts);
    auto key_of = [&](PartKey& key, uint32_t from, size_t n) {
      if (n >= 2 && n <= kShortPiece) {
        key.short_key = short_key(p + from, n, p, p + len);
        key.hash = key.short_key.hash();
        w.cache.shorts.prefetch(key.hash);
      } else if (n > kShortPiece && n <= kMediumPiece) {
        key.medium_key = medium_key(p + from, n);
        key.hash = key.medium_key.hash();
        w.cache.mediums.prefetch(key.hash);
      }
    };
    // (a part of one character of the BMP takes no key: the loop below takes its token)
    auto one_character = [](const uint8_t* q, size_t n) { return n <= 3 && utf8_length(q[0]) == n; };
    uint32_t start = 0;
    for (size_t k = 0; k < parts; ++k) {
      const size_t n = cuts[k] - start;
      if (!one_character(p + start, n)) key_of(keys[k], start, n);
      start = cuts[k];
    }
    if (w.part_tokens.size() < len) w.part_tokens.resize(len);  // grown only, as the keys
    if (w.part_ids.size() < len) w.part_ids.resize(len);
    Parts out{w.part_tokens.data(), w.part_ids.data(), 0};
    bool exact = true;
    uint32_t from = 0;
    for (size_t k = 0; k < parts; ++k) {
      const uint32_t to = cuts[k];
      const size_t n = to - from;
      const uint8_t* q = p + from;
      if (one_character(q, n)) {  // its token, or its bytes'
        size_t decoded;
        const uint32_t id = char_ids_[decode_utf8(q, n, decoded)];
        if (id != kNoToken) {
          out.add(id, from, to);
          exact &= length_[id] == n;
          from = to;
          continue;
        }
        if (all_bytes_) {
          for (uint32_t b = from; b < to; ++b) out.add(byte_ids_[p[b]], b, b + 1);
          from = to;
          continue;
        }
        key_of(keys[k], from, n);  // not a token (not met: inner cuts need byte fallback)
      }
      exact &= merge_part(p, from, to, keys[k], w, out);
      from = to;
    }
    w.tokens.assign(out.tokens, out.tokens + out.count);
    w.cache.ids.assign(out.ids, out.ids + out.count);
    return exact;
  }

  // Where merge_cut writes a segment's tokens (offsets in the segment) and their ids.
  struct Parts {
    ModelToken* tokens;
    uint32_t* ids;
    size_t count;
    void add(uint32_t id, uint32_t start, uint32_t end) {
      tokens[count] = {id, start, end};
      ids[count++] = id;
    }
  };

  // Part p[from..to) of a segment, not one character that merge_cut took, with its table key
  // (merge_cut's; set where the part has 2 to kMediumPiece bytes): its tokens and ids added to
  // out, from the tables or merged (and then remembered); whether they are exact (as merge says).
  bool merge_part(const uint8_t* p, uint32_t from, uint32_t to, const PartKey& key, Scratch& w, Parts& out) const {
    const size_t n = to - from;
    auto from_ids = [&](const uint32_t* ids, const uint32_t* end) {
      uint32_t at = from;
      for (; ids != end; ++ids) {
        const uint32_t bytes = length_[*ids];
        out.add(*ids, at, at + bytes);
        at += bytes;
      }
      return true;
    };
    PieceCache& cache = w.cache;
    uint32_t buf[kMediumPiece + 8];
    if (n >= 2 && n <= kShortPiece) {
      if (const ShortPieceTable::Entry* e = cache.shorts.find(key.short_key, key.hash))
        return from_ids(buf, cache.shorts.emit(*e, buf));
    } else if (n > kShortPiece && n <= kMediumPiece) {
      if (const MediumPieceTable::Entry* e = cache.mediums.find(key.medium_key, key.hash))
        return from_ids(buf, cache.mediums.emit(*e, buf));
    }
    const bool exact = merge(p + from, n, w);
    if (exact && n >= 2 && n <= kShortPiece)
      cache.shorts.insert(key.short_key, key.hash, cache.ids.data(), cache.ids.size());
    else if (exact && n > kShortPiece && n <= kMediumPiece)
      cache.mediums.insert(key.medium_key, key.hash, cache.ids.data(), cache.ids.size());
    for (const ModelToken& t : w.tokens) out.add(t.id, from + t.start, from + t.end);
    return exact;
  }

  SpmHfBpeDescription d_;
  std::unique_ptr<HfBpeModel> model_;
  std::unique_ptr<Decoder> decoder_;
  bool ignore_merges_ = false;
  bool cut_ = false;         // a whole stretch may be cut before a "▁" (see index_cuts)
  bool inner_cuts_ = false;  // a segment may be cut between non-ASCII characters no token joins
  bool all_bytes_ = false;   // byte_fallback with a token for every byte (byte_ids_)
  uint32_t byte_ids_[256] = {};
  std::vector<uint32_t> char_ids_;  // BMP code point -> the id of its token alone, or kNoToken
  SplitPoints split_points_;
  CharPairs char_pairs_;              // which characters some token holds side by side (with inner_cuts_)
  std::vector<uint8_t> joins_;        // BMP code point -> some token holds it right before a "▁"
  std::vector<uint32_t> joins_rest_;  // the same beyond the BMP, sorted
  std::vector<uint8_t> length_;       // id -> its token's length in the model's bytes (0: varies)
  mutable Pool<Scratch> scratch_;
  mutable std::once_flag staged_once_;
  mutable std::unique_ptr<StagedPipeline> staged_;
};

}  // namespace tokenforge
