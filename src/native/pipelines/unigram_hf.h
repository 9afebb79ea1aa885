// A Unigram tokenizer.json (T5, ALBERT, XLNet, Pegasus, mBART: what transformers' converters
// write) as one fused pass per text, exact to HF tokenizers and to the general staged pipeline
// (pipelines/staged.h) that runs the same file stage by stage: ids, offsets, tokens, word ids,
// and the decoder's text.
//
// It runs the files whose stages are: HF's Unigram model (models/unigram/unigram_model.h: unk
// penalty, fused unknowns, byte_fallback); the Metaspace pre-tokenizer (replacement "▁", any
// prepend_scheme, split or not); a normalizer made of parts whose effect on a text can be ruled
// out cheaply (Precompiled, Strip, Replace of a string or of " {2,}" / "\A +| +\z", Lowercase,
// the Unicode forms, StripAccents; tokenforge/pipeline/fused_unigram.py decides which files those
// are and hands each part's quick test over as a probe); any decoder (decode runs the staged
// pipeline's own, decoders/decoder_factory.h).
//
// One text: added tokens are split off first (added_tokens/special_matcher.h, as every
// pipeline). Each stretch between them is tested against the probes: where no part of the
// normalizer can change it but for stripping whitespace at its ends (nearly always for prose:
// Precompiled leaves every character alone that no key of its map starts with or continues, see
// mark_precompiled), the stretch, stripped, is its own normalized text and code points map to
// input characters by counting; otherwise the normalizer
// runs (the staged pipeline's, on a NormalizedText) and offsets go through its alignments, as
// the staged pipeline's do. The model's text is then Metaspace's: each space a "▁", the "▁"
// prefix where prepend_scheme puts one (always: unless the text starts with a space or "▁";
// first: that, and only where the normalized stretch starts at the text's first byte). With split, it is cut before
// every "▁" (HF's pieces, one word each); without, the stretch is one piece. Each piece's ids come from a per-thread
// memory keyed by its bytes (models/bpe/piece_cache.h's tables, slots prefetched 16 pieces ahead) or, new to the
// thread, from the model's Viterbi pass (UnigramModel::tokenize_fresh), so they are HF's by construction; a piece is
// remembered only where each token covers its own piece's bytes (byte-fallback tokens share their run's offsets, an
// unknown run's length varies). An unknown token shows the text it covers (HF's Token value), kept in Encoded::texts.
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
#include <unordered_map>
#include <utility>
#include <vector>

#include "added_tokens/special_matcher.h"
#include "base/pool.h"
#include "base/utf8.h"
#include "decoders/decoder.h"
#include "decoders/decoder_factory.h"
#include "formats/tiktoken_file.h"
#include "models/bpe/piece_cache.h"
#include "models/unigram/unigram_model.h"
#include "normalizers/normalizer.h"
#include "normalizers/normalizer_factory.h"
#include "normalizers/precompiled.h"
#include "normalizers/spm_charsmap.h"
#include "pipelines/staged.h"
#include "processors/post_processing.h"
#include "text/normalized_text.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

struct UnigramHfDescription {
  StagedDescription staged;  // the whole file, as the staged pipeline takes it
  int prepend = 2;           // Metaspace's prepend_scheme: 0 never, 1 first, 2 always
  bool split = true;         // Metaspace's split: a piece before every "▁"
  // One quick test per normalizer part, (kind, argument), each true where the part may change a
  // text: "precompiled" (the base64 character map; "precompiled_ws" where only Strip and the
  // runs of spaces come after it, see mark_precompiled), "contains" (a string the text holds),
  // "strip_left" / "strip_right" (whitespace at that end), "space_edge" (a space at either end),
  // "non_ascii" (any byte over 0x7F), "lowercase" (that, or an ASCII capital); and, for the last
  // part only, "collapse_spaces" (Replace " {2,}" by " " or "▁": done here, no test).
  std::vector<std::pair<std::string, std::string>> probes;
};

class UnigramHfPipeline {
 public:
  enum Prepend { kNever = 0, kFirst = 1, kAlways = 2 };

  // Throws std::invalid_argument for a description it does not run (the Python side checks
  // first; this keeps a wrong call from giving wrong ids).
  explicit UnigramHfPipeline(UnigramHfDescription d) : d_(std::move(d)) {
    if (d_.prepend < kNever || d_.prepend > kAlways) throw std::invalid_argument("prepend must be 0..2");
    const StagedDescription& s = d_.staged;
    if (s.model_type != "Unigram") throw std::invalid_argument("the model must be Unigram, got " + s.model_type);
    OptionReader o("model Unigram", s.model_options);
    std::unique_ptr<Model> m = make_unigram(o, s.vocab);
    o.finish();
    model_.reset(static_cast<UnigramModel*>(m.release()));
    unk_id_ = model_->unk_id();
    for (const auto& [piece, id] : model_->ids()) {
      if (id >= length_.size()) length_.resize(size_t(id) + 1, 0);
      length_[id] = uint32_t(piece.size());
      if (id == unk_id_) unk_piece_ = piece;
    }
    if (unk_id_ < length_.size()) length_[unk_id_] = 0;  // an unknown run's length varies
    if (s.normalizer.kind != OptionValue::Kind::kNull) normalizer_ = make_normalizer(s.normalizer);
    if (s.decoder.kind != OptionValue::Kind::kNull) decoder_ = make_decoder(s.decoder);
    read_probes();
    if (normalizer_ && d_.probes.empty())
      throw std::invalid_argument("a normalizer needs its probes (one per part) for the fused pass");
  }

  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special,
                 const SpecialMatcher* added, const PostProcessor& post) const {
    Encoded first = encode_sequence(a, na, added);
    if (!pair) return process_keeping_texts(post, std::move(first), nullptr, add_special);
    Encoded second = encode_sequence(b, nb, added);
    return process_keeping_texts(post, std::move(first), &second, add_special);
  }

  // The model's rows for one text, before post-processing.
  Encoded encode_sequence(const uint8_t* s, size_t n, const SpecialMatcher* added) const {
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    Encoded e;
    e.rows.reserve(n / 4 + 8);
    Input in{s, n};
    uint32_t word = 0;  // HF's word index: added tokens and pre-tokenized pieces, in order
    split_at_matches(
        added, s, n, [&](size_t from, size_t to) { encode_stretch(in, from, to, e, w, word); },
        [&](const SpecialMatch& m) {
          const uint32_t start = in.char_of(m.pos);
          push_row(e.rows, m.id, start, in.char_of(m.pos + m.len - 1) + 1, word++);
          // HF's token is the text matched: where lstrip / rstrip took whitespace in, not the name.
          if (m.grown) e.rows.back().name = e.name_slot(std::string(reinterpret_cast<const char*>(s) + m.pos, m.len));
        });
    e.texts_to_names();
    return e;
  }

  // Ids first: the ids encode_sequence's rows would hold, appended to `out`, without the rows
  // (offsets, words, the texts of unknown tokens); python/py_pipeline.h builds those by
  // encode_sequence when they are read. Always true (every text runs here).
  bool encode_ids(const uint8_t* s, size_t n, const SpecialMatcher* added, std::vector<uint32_t>& out) const {
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    out.reserve(out.size() + n / 3 + 8);
    Input in{s, n};  // (not read: ids carry no offsets)
    uint32_t word = 0;
    split_at_matches(
        added, s, n, [&](size_t from, size_t to) { encode_stretch(in, from, to, out, w, word); },
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

  // Whether the probes find that the normalizer at most strips s[0..n) (a test hook: what
  // decides between the two ways a stretch runs).
  bool untouched(const uint8_t* s, size_t n) const {
    size_t lead, trail;
    bool collapse;
    return !normalizer_ || plain(s, n, lead, trail, collapse);
  }

 private:
  static constexpr const char* kSpace = "\xE2\x96\x81";  // "▁"
  static constexpr size_t kBatch = 16;

  // A piece of the model's text, [a, b), with its piece-table key once prepared.
  struct Segment {
    size_t a, b;
    uint32_t word;
    uint64_t hash = 0;
    ShortKey short_key = {};
    MediumKey medium_key = {};
    Segment(size_t from, size_t to, uint32_t w) : a(from), b(to), word(w) {}
  };

  struct Scratch {
    PieceCache cache;
    std::vector<Segment> segments;
    std::string text;                       // the model's text of one stretch
    std::string mapped;                     // a stretch as the map writes it (mapper_)
    std::vector<NormalizedText::Span> map;  // model byte -> input bytes (a normalized stretch)
    std::vector<ModelToken> tokens;
    void trim() {
      cache.trim();
      release_if_large(text);
      release_if_large(map);
      release_if_large(tokens);
      release_if_large(segments);
    }
  };

  // The input: byte -> code point index, counted once as the bytes asked for move on (a byte
  // behind them, where an rstrip match reached past the next match's start, counts back); the whole
  // text's CharOffsets (staged.h) built where a normalized stretch needs it.
  struct Input {
    const uint8_t* s;
    size_t n;
    size_t counted_to = 0;
    uint32_t chars = 0;
    std::optional<CharOffsets> offsets;
    uint32_t char_of(size_t byte) {
      if (byte < counted_to) return chars - 1 - count_characters(s, byte + 1, counted_to, counted_to);
      for (; counted_to <= byte; ++counted_to) chars += (s[counted_to] & 0xC0) != 0x80;
      return chars - 1;
    }
    const CharOffsets& all() {
      if (!offsets) offsets.emplace(s, n);
      return *offsets;
    }
  };

  // -- the probes --------------------------------------------------------------------------

  void read_probes() {
    for (const auto& [kind, arg] : d_.probes) {
      if (kind == "precompiled" || kind == "precompiled_ws") {
        std::string charsmap;
        if (!decode_base64(arg, charsmap)) throw std::invalid_argument("probe precompiled: not base64");
        mark_precompiled(SpmCharsmap(charsmap), kind == "precompiled_ws");
        // The map first and only Strip and collapse_spaces after: the ids of a text plain
        // refuses come from the map's text alone (encode_stretch).
        const auto only_spaces_after = [](const std::pair<std::string, std::string>& probe) {
          return probe.first == "strip_left" || probe.first == "strip_right" || probe.first == "collapse_spaces";
        };
        if (kind == "precompiled_ws" && d_.probes.front().first == kind && d_.probes.front().second == arg &&
            std::all_of(d_.probes.begin() + 1, d_.probes.end(), only_spaces_after))
          mapper_ = std::make_unique<PrecompiledNormalizer>(charsmap);
      } else if (kind == "collapse_spaces") {
        if (arg != " " && arg != kSpace)
          throw std::invalid_argument("probe collapse_spaces: the content must be a space or \"\xE2\x96\x81\"");
        collapse_ = true;
      } else if (kind == "contains") {
        if (arg.empty()) throw std::invalid_argument("probe contains: an empty string");
        contains_.push_back(arg);
      } else if (kind == "strip_left") {
        strip_left_ = true;
      } else if (kind == "strip_right") {
        strip_right_ = true;
      } else if (kind == "space_edge") {
        space_edge_ = true;
      } else if (kind == "non_ascii") {
        non_ascii_ = true;
      } else if (kind == "lowercase") {
        non_ascii_ = true;
        for (int c = 'A'; c <= 'Z'; ++c) ascii_touched_[c] = 1;
      } else {
        throw std::invalid_argument("unknown normalizer probe '" + kind + "'");
      }
    }
  }

  // Whether the map's output for a character can be written in its place with no more thought:
  // whole characters, none of them whitespace, "▁" or NUL (which the later parts or Metaspace
  // would read). Each output byte then maps to the character, as HF aligns a character's
  // replacement ("…" -> "...", "ﬁ" -> "fi": the added characters take the first one's span).
  static bool plain_replacement(std::string_view replacement) {
    const auto* r = reinterpret_cast<const uint8_t*>(replacement.data());
    for (size_t i = 0, len = 0; i < replacement.size(); i += len) {
      if ((r[i] & 0xC0) == 0x80 || utf8_length(r[i]) > replacement.size() - i) return false;
      const uint32_t c = decode_utf8(r + i, replacement.size() - i, len);
      if (c == 0x2581 || c == 0 || c >= 0x110000 || hf_is_whitespace(c)) return false;
    }
    return true;
  }

  // The characters HF's Precompiled may change (precompiled.h): a character with a key of its
  // own, or one that is the second character of a longer key (a grapheme cluster is looked up
  // whole: its first key is a prefix of it, so it holds the key's second character). A cluster
  // of characters none of them marked is left as it is. Keys are walked in the double-array
  // trie down to their second character; a key that ends inside a character marks every
  // non-ASCII character (a map sentencepiece would not write).
  // ws: the parts after this one only strip and make runs of spaces one, so an ASCII character
  // the map makes a space alone (a newline, a tab) may stay: the kernel reads it as a space
  // (ascii_space_); "\r" only where "\r\n", one cluster, is one space too. Other
  // characters it makes other characters (fullwidth punctuation, "…" -> "...") are written by
  // the kernel too (single_), where they are alone in their cluster.
  void mark_precompiled(const SpmCharsmap& map, bool ws) {
    if (map.empty()) return;
    if (touched_.empty()) touched_.assign(0x110000 / 64, 0);
    uint8_t bytes[8];
    own_key_.fill(0);
    second_.fill(0);
    owned_.clear();
    seconds_.clear();
    walk(map.units(), SpmCharsmap::offset(map.units()[0]), bytes, 0);
    if (ws) {
      std::sort(seconds_.begin(), seconds_.end());
      for (uint32_t cp : owned_) {
        if (cp < 0x80 || std::binary_search(seconds_.begin(), seconds_.end(), cp)) continue;
        const bool space = cp < 0x10000 && hf_is_whitespace(cp);  // (whitespace is never replaceable)
        if (!space && !replaceable(cp)) continue;
        uint8_t utf8[4];
        const size_t len = encode_utf8(cp, utf8);
        std::string_view replacement;
        if (!map.first_key(std::string_view(reinterpret_cast<const char*>(utf8), len), replacement)) continue;
        if (space) {
          if (replacement == " ") wide_spaces_.push_back(cp);
        } else if (!replacement.empty() && plain_replacement(replacement)) {
          single_.emplace(cp, std::string(replacement));
        }
      }
      std::sort(wide_spaces_.begin(), wide_spaces_.end());
      writes_any_ = !single_.empty() || !wide_spaces_.empty();
    }
    // "\r": where the map makes it a space and "\r\n", one cluster, one space too (its first key
    // replaces the whole cluster), read as one space with the "\n" after it (space_at).
    std::string_view crlf;
    const bool cr_space = map.first_key("\r\n", crlf) && crlf == " ";
    for (uint32_t c = 1; c < 128; ++c) {
      std::string_view replacement;
      const char one[1] = {char(c)};
      if (ws && own_key_[c] && !second_[c] && (c != '\r' || cr_space) &&
          map.first_key(std::string_view(one, 1), replacement) && replacement == " ")
        ascii_space_[c] = 1;
      else if (own_key_[c] || second_[c])
        ascii_touched_[c] = 1;
    }
  }

  void walk(const std::vector<uint32_t>& units, size_t base, uint8_t* bytes, size_t depth) {
    for (uint32_t c = 1; c < 256; ++c) {
      const size_t at = base ^ c;
      if (at >= units.size() || SpmCharsmap::label(units[at]) != c) continue;
      const size_t next = at ^ SpmCharsmap::offset(units[at]);
      const bool leaf = SpmCharsmap::has_leaf(units[at]);
      bytes[depth] = uint8_t(c);
      const size_t first = utf8_length(bytes[0]), have = depth + 1;
      if (have < first) {
        if (leaf) non_ascii_ = true;
        walk(units, next, bytes, have);
      } else if (have == first) {
        if (leaf) mark(bytes, first, own_key_, owned_);
        walk(units, next, bytes, have);
      } else {
        const size_t second = utf8_length(bytes[first]);
        if (have == first + second)
          mark(bytes + first, second, second_, seconds_);
        else
          walk(units, next, bytes, have);
      }
    }
  }

  void mark(const uint8_t* p, size_t len, std::array<uint8_t, 128>& ascii, std::vector<uint32_t>& list) {
    size_t decoded;
    const uint32_t cp = decode_utf8(p, len, decoded);
    if (cp < 0x80) ascii[cp] = 1;
    if (cp < 0x110000) touched_[cp >> 6] |= uint64_t(1) << (cp & 63);
    list.push_back(cp);
  }

  // Characters whose cluster is always themselves and what follows (not whitespace, not a
  // Prepend, no Hangul jamo, in the BMP): one of them the map makes one other character may be
  // written by the kernel where the next character starts a cluster (starts_cluster).
  static bool replaceable(uint32_t cp) {
    if (cp >= 0x10000 || hf_is_whitespace(cp)) return false;
    if ((cp >= 0x0600 && cp <= 0x0605) || cp == 0x06DD || cp == 0x070F || cp == 0x0890 || cp == 0x0891 ||
        cp == 0x08E2 || cp == 0x0D4E)
      return false;
    return !((cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0xA960 && cp <= 0xA97F) || (cp >= 0xAC00 && cp <= 0xD7FF));
  }
  // Whether t[0..n) starts with a character that never continues a grapheme cluster (the end,
  // ASCII but "\n" after "\r", and the common letters of Latin, CJK and kana; conservative).
  static bool starts_cluster(const uint8_t* t, size_t n) {
    if (n == 0 || t[0] < 0x80) return true;
    size_t len;
    const uint32_t cp = decode_utf8(t, n, len);
    return cp < 0x300 || (cp >= 0x3000 && cp <= 0x3011) || (cp >= 0x3041 && cp <= 0x3096) ||
           (cp >= 0x30A1 && cp <= 0x30FA) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xFF01 && cp <= 0xFF5E);
  }

  // What the kernel writes for character cp, one the map makes other characters (single_), or
  // null (the touched_ bit first: most characters have none).
  const std::string* single_of(uint32_t cp) const {
    if (single_.empty() || cp >= 0x110000 || !(touched_[cp >> 6] >> (cp & 63) & 1)) return nullptr;
    const auto it = single_.find(cp);
    return it == single_.end() ? nullptr : &it->second;
  }

  // A whitespace character outside ASCII that the map makes a space alone (NBSP, U+3000, ...):
  // read as a space where it starts its cluster, as ascii_space_'s (plain checks that).
  bool wide_space(uint32_t cp) const {
    return !wide_spaces_.empty() && cp < 0x110000 && (touched_[cp >> 6] >> (cp & 63) & 1) &&
           std::binary_search(wide_spaces_.begin(), wide_spaces_.end(), cp);
  }
  // The length of the space at t[i..n) as the kernel reads spaces (a space, a character of
  // ascii_space_ or wide_space; "\r\n" where "\r" is one: one cluster), or 0 where none starts there.
  size_t space_at(const uint8_t* t, size_t i, size_t n) const {
    if (t[i] < 0x80) return !is_space(t[i]) ? 0 : t[i] == '\r' && i + 1 < n && t[i + 1] == '\n' ? 2 : 1;
    if (wide_spaces_.empty()) return 0;
    size_t len;
    return wide_space(decode_utf8(t + i, n - i, len)) ? len : 0;
  }

  // The Strip parts over t[0..n): the bytes of the characters `space` says are whitespace that
  // come off its start (lead, with strip_left_) and its end (trail, with strip_right_).
  template <class Space>
  void strip(const uint8_t* t, size_t n, Space&& space, size_t& lead, size_t& trail) const {
    lead = trail = 0;
    size_t len;
    if (strip_left_)
      while (lead < n && space(decode_utf8(t + lead, n - lead, len))) lead += len ? len : 1;
    if (strip_right_)
      while (trail < n - lead) {
        size_t k = n - trail - 1;
        while (k > lead && (t[k] & 0xC0) == 0x80) --k;
        if (!space(decode_utf8(t + k, n - trail - k, len))) break;
        trail = n - k;
      }
  }

  bool is_space(uint8_t b) const { return b == ' ' || (b < 0x80 && ascii_space_[b]); }
  bool is_whitespace(uint32_t cp) const { return hf_is_whitespace(cp) || (cp < 0x80 && ascii_space_[cp]); }

  // Whether the normalizer's only effect on t[0..n) is to strip whitespace at its ends (see the
  // probes): then `lead` and `trail` bytes come off. Every other part is ruled out on the whole
  // text, which holds the stripped one; a space at either end is ruled out on both.
  // `mapped` says whether the stripped text has characters the map makes spaces (ascii_space_)
  // or, with collapse_spaces, a run of spaces for the last part to make one.
  bool plain(const uint8_t* t, size_t n, size_t& lead, size_t& trail, bool& mapped) const {
    lead = trail = 0;
    mapped = false;
    if (n == 0) return true;
    if (space_edge_ && (t[0] == ' ' || t[n - 1] == ' ')) return false;
    strip(t, n, [&](uint32_t cp) { return is_whitespace(cp); }, lead, trail);
    size_t len;
    if (space_edge_ && lead + trail < n && (t[lead] == ' ' || t[n - trail - 1] == ' ')) return false;
    const std::string_view view(reinterpret_cast<const char*>(t), n);
    for (const std::string& c : contains_)
      if (view.find(c) != std::string_view::npos) return false;
    const bool chars = !touched_.empty();
    for (size_t i = 0; i < n;) {
      const uint8_t b = t[i];
      if (b < 0x80) {
        if (ascii_touched_[b]) return false;
        mapped |= ascii_space_[b] != 0;
        ++i;
        continue;
      }
      if (non_ascii_) return false;
      const uint32_t cp = decode_utf8(t + i, n - i, len);
      if (len == 0) len = 1;
      if (chars && cp < 0x110000 && (touched_[cp >> 6] >> (cp & 63) & 1)) {
        // a character the map makes other characters or a space, alone in its cluster: written
        // by the kernel
        if (!(single_of(cp) || wide_space(cp)) || !starts_cluster(t + i + len, n - i - len)) return false;
        mapped = true;
      }
      i += len;
    }
    if (collapse_ && !mapped && lead + trail < n)
      mapped = std::string_view(reinterpret_cast<const char*>(t) + lead, n - lead - trail).find("  ") !=
               std::string_view::npos;
    return true;
  }

  // -- one stretch -------------------------------------------------------------------------

  // Metaspace over the normalized stretch t[0..n) into w.text; whether the prefix went in front.
  // With `collapse`, each run of spaces is one "▁" (the last part's Replace " {2,}" first).
  bool model_text(const uint8_t* t, size_t n, bool at_start, Scratch& w, bool collapse = false) const {
    std::string& out = w.text;
    out.clear();
    const bool starts = t[0] == ' ' || (n >= 3 && std::memcmp(t, kSpace, 3) == 0);
    const bool prefixed = !starts && (d_.prepend == kAlways || (d_.prepend == kFirst && at_start));
    out.reserve(3 * n + 3);
    if (prefixed) out.append(kSpace, 3);
    for (size_t i = 0; i < n;) {
      const void* hit = std::memchr(t + i, ' ', n - i);
      const size_t end = hit ? size_t(static_cast<const uint8_t*>(hit) - t) : n;
      out.append(reinterpret_cast<const char*>(t + i), end - i);
      if (end == n) break;
      out.append(kSpace, 3);
      for (i = end + 1; collapse && i < n && t[i] == ' ';) ++i;
    }
    return prefixed;
  }

  // Metaspace over t[0..n) (input bytes from `shift` on) once the map's spaces are spaces and,
  // with collapse_, each run of spaces is one: w.text, and with kMap in w.map each model byte's
  // input bytes (a "▁" its run's last space's, the prefix the first character's).
  template <bool kMap>
  void collapsed_text(const uint8_t* t, size_t n, size_t shift, bool at_start, Scratch& w) const {
    std::string& out = w.text;
    std::vector<NormalizedText::Span>& map = w.map;
    out.clear();
    map.clear();
    const bool starts = space_at(t, 0, n) || (n >= 3 && std::memcmp(t, kSpace, 3) == 0);
    const bool prefixed = !starts && (d_.prepend == kAlways || (d_.prepend == kFirst && at_start));
    auto span = [&](size_t i, size_t len) {
      return NormalizedText::Span{uint32_t(shift + i), uint32_t(shift + i + len)};
    };
    if (prefixed) {
      out.append(kSpace, 3);
      if constexpr (kMap) map.insert(map.end(), 3, span(0, std::min(utf8_length(t[0]), n)));
    }
    for (size_t i = 0; i < n;) {
      if constexpr (!kMap) {  // the bytes up to the next space, or character the map rewrites, at once
        size_t j = i;
        for (;;) {
          while (j < n && t[j] < 0x80 && !is_space(t[j])) ++j;
          if (j == n || t[j] < 0x80) break;
          size_t decoded = 1;
          if (writes_any_) {
            const uint32_t c = decode_utf8(t + j, n - j, decoded);
            if (single_of(c) || wide_space(c)) break;
          }
          j += std::max<size_t>(decoded, 1);
        }
        out.append(reinterpret_cast<const char*>(t + i), j - i);
        if ((i = j) == n) break;
      }
      if (size_t space = space_at(t, i, n)) {  // HF's replace aligns the new character to the last one it replaces
        for (size_t next; collapse_ && i + space < n && (next = space_at(t, i + space, n));) {
          i += space;
          space = next;
        }
        out.append(kSpace, 3);
        // ("\r\n": the space is "\r"'s, HF's replace of the cluster aligns it to its first character)
        if constexpr (kMap) map.insert(map.end(), 3, span(i, t[i] == '\r' ? 1 : space));
        i += space;
        continue;
      }
      const size_t len = std::min(utf8_length(t[i]), n - i);
      if (t[i] >= 0x80) {  // a character the map makes others (plain found it alone)
        size_t decoded;
        if (const std::string* written = single_of(decode_utf8(t + i, n - i, decoded))) {
          out += *written;
          if constexpr (kMap) map.insert(map.end(), written->size(), span(i, len));
          i += len;
          continue;
        }
      }
      out.append(reinterpret_cast<const char*>(t + i), len);
      if constexpr (kMap) map.insert(map.end(), len, span(i, len));
      i += len;
    }
  }

  // One stretch between added tokens, s[from..to): its rows (Out = Encoded), or only their ids
  // (Out = std::vector<uint32_t>: no spans are asked for, `in` is not read).
  template <class Out>
  void encode_stretch(Input& in, size_t from, size_t to, Out& e, Scratch& w, uint32_t& word) const {
    constexpr bool kRows = std::is_same_v<Out, Encoded>;
    if (to == from) return;
    const uint8_t* t = in.s + from;
    const size_t n = to - from;
    size_t lead = 0, trail = 0;
    bool collapse = false;
    const bool fast = !normalizer_ || plain(t, n, lead, trail, collapse);
    if (fast && collapse) {
      // The map's spaces and runs of spaces made one (the last part, aligned to their last
      // space): the model's text and its map to input bytes made here, without the normalizer.
      if (lead + trail >= n) return;
      collapsed_text<kRows>(t + lead, n - lead - trail, from + lead, from + lead == 0, w);
      if constexpr (kRows) {
        const std::vector<NormalizedText::Span>& map = w.map;
        const CharOffsets& offsets = in.all();
        encode_pieces(w, e, word, [&](size_t a, size_t b) { return offsets.convert(map[a].start, map[b - 1].end); });
      } else {
        encode_pieces(w, e, word, no_spans);
      }
      return;
    }
    if (fast) {
      // The stretch (stripped) is its own normalized text: model bytes map to input characters
      // by counting (the prefix and the first character are both the first character).
      if (lead + trail >= n) return;
      const bool prefixed = model_text(t + lead, n - lead - trail, from + lead == 0, w);
      if constexpr (!kRows) return encode_pieces(w, e, word, no_spans);
      const auto* m = reinterpret_cast<const uint8_t*>(w.text.data());
      const uint32_t base = in.char_of(from + lead);
      size_t counted_to = 0;
      uint32_t chars = 0;
      auto char_of = [&](size_t byte) {
        for (; counted_to <= byte; ++counted_to) chars += (m[counted_to] & 0xC0) != 0x80;
        return base + chars - 1 - (prefixed && byte >= 3);
      };
      size_t last_a = SIZE_MAX, last_b = 0;
      std::pair<uint32_t, uint32_t> last{0, 0};
      encode_pieces(w, e, word, [&](size_t a, size_t b) {
        if (a != last_a || b != last_b) {  // byte-fallback tokens repeat their run's span
          const uint32_t first = char_of(a);
          last = {first, char_of(b - 1) + 1};
          last_a = a;
          last_b = b;
        }
        return last;
      });
      return;
    }
    if constexpr (!kRows) {
      if (mapper_) {  // [Precompiled, Strip, collapse]: the map's text alone (no alignments), the rest here
        std::string& m = w.mapped;
        m.clear();
        mapper_->map_into(t, n, m);
        const auto* mb = reinterpret_cast<const uint8_t*>(m.data());
        size_t a, trail;
        strip(mb, m.size(), hf_is_whitespace, a, trail);
        if (a + trail >= m.size()) return;
        model_text(mb + a, m.size() - a - trail, from == 0 && a == 0, w, collapse_);  // (see map_into)
        return encode_pieces(w, e, word, no_spans);
      }
    }
    NormalizedText nt(reinterpret_cast<const char*>(t), n, uint32_t(from));
    normalizer_->normalize(nt);
    if (nt.empty()) return;
    const auto* nb = reinterpret_cast<const uint8_t*>(nt.text().data());
    // (HF's "first" looks at where the normalized text's first byte came from: a stripped
    // space at the text's start leaves it unprefixed; to_original reads it without writing out
    // the alignments of a text the normalizer left as it was.)
    const bool prefixed = model_text(nb, nt.size(), nt.to_original(0, 1).start == 0, w);
    if constexpr (!kRows) return encode_pieces(w, e, word, no_spans);
    // Model byte -> input bytes: the prefix stands for the first character, a "▁" for its space.
    const std::vector<NormalizedText::Span>& al = nt.alignments();
    std::vector<NormalizedText::Span>& map = w.map;
    map.clear();
    map.reserve(w.text.size());
    if (prefixed) map.insert(map.end(), 3, al[0]);
    for (size_t i = 0; i < nt.size(); ++i) {
      if (nb[i] == ' ')
        map.insert(map.end(), 3, al[i]);
      else
        map.push_back(al[i]);
    }
    const CharOffsets& offsets = in.all();
    encode_pieces(w, e, word, [&](size_t a, size_t b) { return offsets.convert(map[a].start, map[b - 1].end); });
  }

  // The span of ids without rows: never asked for.
  static std::pair<uint32_t, uint32_t> no_spans(size_t, size_t) { return {0, 0}; }

  // The model's text in w.text, cut into HF's pieces (before every "▁" with split, else whole),
  // as rows (Out = Encoded) or ids (Out = std::vector<uint32_t>); span(a, b) gives the input
  // characters of model bytes [a, b).
  template <class Out, class Span>
  void encode_pieces(Scratch& w, Out& e, uint32_t& word, Span span) const {
    const auto* m = reinterpret_cast<const uint8_t*>(w.text.data());
    const size_t n = w.text.size();
    std::vector<Segment>& segs = w.segments;
    segs.clear();
    if (!d_.split) {
      segs.emplace_back(0, n, word++);
    } else {
      size_t start = 0;
      for (size_t i = 1; i + 3 <= n;) {
        const void* hit = std::memchr(m + i, 0xE2, n - i);
        if (!hit) break;
        const size_t at = size_t(static_cast<const uint8_t*>(hit) - m);
        if (at + 3 > n) break;
        if (m[at + 1] == 0x96 && m[at + 2] == 0x81) {
          segs.emplace_back(start, at, word++);
          start = at;
          i = at + 3;
        } else {
          i = at + 1;
        }
      }
      segs.emplace_back(start, n, word++);
    }
    const size_t count = segs.size();
    for (size_t i = 0; i < count && i < kBatch; ++i) prepare(m, n, segs[i], w);
    for (size_t i = 0; i < count; ++i) {
      if (i % kBatch == 0)
        for (size_t k = i + kBatch; k < count && k < i + 2 * kBatch; ++k) prepare(m, n, segs[k], w);
      encode_segment(m, segs[i], e, w, span);
    }
  }

  // A piece's key and hash in the piece tables, its slot prefetched.
  void prepare(const uint8_t* m, size_t n, Segment& s, Scratch& w) const {
    const uint8_t* p = m + s.a;
    const size_t len = s.b - s.a;
    if (len >= 1 && len <= kShortPiece) {
      s.short_key = short_key(p, len, m, m + n);
      s.hash = s.short_key.hash();
      w.cache.shorts.prefetch(s.hash);
    } else if (len > kShortPiece && len <= kMediumPiece) {
      s.medium_key = medium_key(p, len);
      s.hash = s.medium_key.hash();
      w.cache.mediums.prefetch(s.hash);
    }
  }

  // The rows (or ids) of piece s of the model's text m (prepared: its key and hash).
  template <class Out, class Span>
  void encode_segment(const uint8_t* m, const Segment& s, Out& e, Scratch& w, Span& span) const {
    constexpr bool kRows = std::is_same_v<Out, Encoded>;
    const size_t a = s.a, len = s.b - s.a;
    const uint8_t* p = m + a;
    auto row = [&](uint32_t id, size_t start, size_t end) {  // model bytes [start, end) of the text
      if constexpr (kRows) {
        const auto [first, last] = span(start, end);
        push_row(e.rows, id, first, last, s.word);
      } else {
        e.push_back(id);
      }
    };
    PieceCache& cache = w.cache;
    uint32_t buf[kMediumPiece + 8];
    auto from_ids = [&](const uint32_t* ids, const uint32_t* end) {
      size_t at = a;
      for (; ids != end; ++ids) {
        row(*ids, at, at + length_[*ids]);
        at += length_[*ids];
      }
    };
    if (len <= kShortPiece) {
      if (const ShortPieceTable::Entry* f = cache.shorts.find(s.short_key, s.hash))
        return from_ids(buf, cache.shorts.emit(*f, buf));
      if (tokenize(p, len, w)) cache.shorts.insert(s.short_key, s.hash, cache.ids.data(), cache.ids.size());
    } else if (len <= kMediumPiece) {
      if (const MediumPieceTable::Entry* f = cache.mediums.find(s.medium_key, s.hash))
        return from_ids(buf, cache.mediums.emit(*f, buf));
      if (tokenize(p, len, w)) cache.mediums.insert(s.medium_key, s.hash, cache.ids.data(), cache.ids.size());
    } else if (len <= PieceCache::kMaxBytes) {
      const uint64_t key = bytes_key(p, len);
      cache.ids.clear();
      if (cache.get_long(p, len, key, cache.ids))
        return from_ids(cache.ids.data(), cache.ids.data() + cache.ids.size());
      if (tokenize(p, len, w)) cache.put_long(p, len, key, cache.ids.data(), cache.ids.size());
    } else {
      tokenize(p, len, w);
    }
    for (const ModelToken& t : w.tokens) {
      row(t.id, a + t.start, a + t.end);
      if constexpr (kRows) {
        if (t.id == unk_id_) {  // HF names an unknown token by the text it covers
          const std::string_view covered(reinterpret_cast<const char*>(p) + t.start, t.end - t.start);
          if (covered != unk_piece_) {
            const Row& r = e.rows.back();
            e.texts.push_back(
                TokenText{r.id, r.word, r.start, r.end, 0, std::string(covered), uint32_t(e.rows.size() - 1)});
          }
        }
      }
    }
  }

  // A piece new to the thread (or one the tables cannot hold: an unknown or byte token in it):
  // its tokens (w.tokens, offsets in the piece) and ids (cache.ids); whether the ids give its
  // rows again (every token as long as its piece, together the whole).
  bool tokenize(const uint8_t* p, size_t len, Scratch& w) const {
    w.tokens.clear();
    static_assert(UnigramModel::kRememberedBelow <= PieceCache::kMaxBytes + 1, "the tables take what the model would");
    if (len < UnigramModel::kRememberedBelow)  // the model's own memory keeps the pieces the tables cannot
      model_->tokenize_unheld(p, len, w.tokens, [&](const ModelToken* t, size_t count) { return held(t, count, len); });
    else
      model_->tokenize_fresh(p, len, w.tokens);
    std::vector<uint32_t>& ids = w.cache.ids;
    ids.clear();
    for (const ModelToken& t : w.tokens) ids.push_back(t.id);
    return held(w.tokens.data(), w.tokens.size(), len);
  }
  // Whether ids give the tokens t[0..count) of a piece of len bytes again: every token as long
  // as its piece, together the whole.
  bool held(const ModelToken* t, size_t count, size_t len) const {
    uint32_t at = 0;
    bool exact = true;
    for (size_t k = 0; k < count; ++k) {
      exact &= t[k].start == at && t[k].id < length_.size() && t[k].end - t[k].start == length_[t[k].id] &&
               length_[t[k].id] > 0;
      at = t[k].end;
    }
    return exact && at == len;
  }

  UnigramHfDescription d_;
  std::unique_ptr<UnigramModel> model_;
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PrecompiledNormalizer> mapper_;  // (see read_probes)
  std::unique_ptr<Decoder> decoder_;
  uint32_t unk_id_ = kNoToken;
  std::string unk_piece_;
  std::vector<uint32_t> length_;  // id -> its piece's length in bytes (0: varies, the unknown id)
  // The probes (read_probes): bytes and characters that may change, strings, ends.
  uint8_t ascii_touched_[128] = {};
  uint8_t ascii_space_[128] = {};                     // ASCII characters the map makes a space alone
  std::array<uint8_t, 128> own_key_{}, second_{};     // (mark_precompiled's: keys of, second characters)
  std::vector<uint32_t> owned_, seconds_;             // (the same for every character)
  std::unordered_map<uint32_t, std::string> single_;  // a character the map rewrites -> its output
  std::vector<uint32_t> wide_spaces_;                 // (sorted) whitespace the map makes a space alone
  bool writes_any_ = false;                           // single_ or wide_spaces_ has some
  std::vector<uint64_t> touched_;                     // a bit per code point (Precompiled); empty: none
  std::vector<std::string> contains_;
  bool non_ascii_ = false, strip_left_ = false, strip_right_ = false, space_edge_ = false;
  bool collapse_ = false;  // the last part makes each run of spaces one (Replace " {2,}")
  mutable Pool<Scratch> scratch_;
  mutable std::once_flag staged_once_;
  mutable std::unique_ptr<StagedPipeline> staged_;
};

}  // namespace tokenforge
