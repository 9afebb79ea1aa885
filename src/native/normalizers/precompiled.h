// HF's Precompiled normalizer (normalizers/precompiled.rs over the spm_precompiled crate): a
// sentencepiece character map (normalizers/spm_charsmap.h; tokenizer.json carries it in base64,
// as T5, ALBERT, XLNet, mBART, Pegasus and Marian files do) applied as HF applies it, which is
// not quite as sentencepiece does. The text is read one extended grapheme cluster at a time
// (unicode/graphemes.h, unicode-segmentation's clusters): a cluster under 6 bytes is looked up
// whole, and where the map has a key for it, the first key the trie's search finds (the
// shortest prefix of the cluster) replaces the whole cluster; otherwise each character of the
// cluster is looked up alone (its shortest key, else it stays). The changes go through HF's
// `replace` bookkeeping: the new characters take change 0, the last (new - old) of them +1 when
// the replacement is longer, and when it is shorter the change of the last character written so
// far (which may be an earlier cluster's) drops by the difference; the text is only transformed
// when some lookup hit. As HF, a map must not be empty and its replacements must be UTF-8.
#pragma once
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/utf8.h"
#include "normalizers/normalizer.h"
#include "normalizers/spm_charsmap.h"
#include "unicode/graphemes.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class PrecompiledNormalizer : public Normalizer {
 public:
  explicit PrecompiledNormalizer(std::string_view charsmap) : map_(charsmap) {
    if (map_.empty()) throw std::invalid_argument("precompiled_charsmap: empty (HF cannot parse it either)");
    if (const std::string_view r = map_.replacements();
        utf8_error_at(reinterpret_cast<const uint8_t*>(r.data()), r.size()) != r.size())
      throw std::invalid_argument("precompiled_charsmap: its replacement strings are not valid UTF-8");
    // Whether a key starts with each byte: a character that starts with no such byte is never
    // looked up.
    const std::vector<uint32_t>& units = map_.units();
    for (uint32_t b = 0; b < 256; ++b) {
      const size_t node = SpmCharsmap::offset(units[0]) ^ b;
      key_starts_[b] = node < units.size() && SpmCharsmap::label(units[node]) == b;
    }
  }

  void normalize(NormalizedText& text) const override {
    if (text.empty()) return;
    const std::string& s = text.text();
    const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data());
    // The changes are only written from the first hit on (the characters before it then).
    std::vector<CharChange> changes;
    bool modified = false;
    auto kept = [&](size_t at, size_t end) {  // characters p[at..end) as they are
      for (size_t k; at < end; at += k) changes.push_back(CharChange{decode_utf8(p + at, end - at, k), 0});
    };
    parts(
        p, s.size(),
        [&](size_t at, size_t len) {
          if (modified) kept(at, at + len);
        },
        [&](size_t at, std::string_view old_part, std::string_view new_part) {
          if (!modified) {
            modified = true;
            changes.reserve(s.size());
            kept(0, at);
          }
          replace(changes, old_part, new_part);
        });
    if (modified) text.transform(changes, 0);
  }

  // The normalized text of s[0..n) alone, appended to out (no alignments: for ids). (Its first
  // byte is aligned to s[0] in HF's, even where the first part is replaced by nothing: HF's
  // replace has no character before it to give the removed ones to.)
  void map_into(const uint8_t* s, size_t n, std::string& out) const {
    size_t kept = 0, kept_to = 0;  // the run of kept bytes not yet written
    parts(
        s, n,
        [&](size_t at, size_t len) {
          if (at != kept_to) kept = at;
          kept_to = at + len;
        },
        [&](size_t at, std::string_view old_part, std::string_view new_part) {
          out.append(reinterpret_cast<const char*>(s) + kept, kept_to - kept);
          kept = kept_to = at + old_part.size();
          out += new_part;
        });
    out.append(reinterpret_cast<const char*>(s) + kept, kept_to - kept);
  }

 private:
  // HF's walk over s[0..n) (valid UTF-8): each extended grapheme cluster under 6 bytes with a
  // key, hit(at, cluster, replacement); else each of its characters, hit(at, character,
  // replacement) where it has a key, keep(at, len) where not (len: one or more characters).
  template <class Keep, class Hit>
  void parts(const uint8_t* p, size_t n, Keep&& keep, Hit&& hit) const {
    const auto* c = reinterpret_cast<const char*>(p);
    std::string_view norm;
    GraphemeCursor clusters(p, n);
    for (size_t start = 0; start < n;) {
      // ASCII characters that start no key with an ASCII one after them (so each its own
      // cluster; not "\r", which "\n" joins): kept at once.
      size_t ascii = start;
      while (ascii + 1 < n && (p[ascii] | p[ascii + 1]) < 0x80 && p[ascii] != '\r' && !key_starts_[p[ascii]]) ++ascii;
      if (ascii > start) {
        keep(start, ascii - start);
        clusters.skip_ascii(start = ascii);
        continue;
      }
      const size_t end = clusters.next();
      const std::string_view cluster(c + start, end - start);
      if (cluster.size() < 6 && key_starts_[p[start]] && map_.first_key(cluster, norm)) {
        hit(start, cluster, norm);
      } else if (end - start == utf8_length(p[start])) {  // (one character: its lookup was the cluster's)
        keep(start, end - start);
      } else {
        for (size_t at = start; at < end;) {
          const size_t len = std::min(utf8_length(p[at]), end - at);
          const std::string_view part(c + at, len);
          if (key_starts_[p[at]] && map_.first_key(part, norm))
            hit(at, part, norm);
          else
            keep(at, len);
          at += len;
        }
      }
      start = end;
    }
  }

  static size_t count_chars(std::string_view s) {
    size_t n = 0;
    for (const char c : s) n += (uint8_t(c) & 0xC0) != 0x80;
    return n;
  }

  // HF's replace(): old_part's characters become new_part's.
  static void replace(std::vector<CharChange>& changes, std::string_view old_part, std::string_view new_part) {
    const int64_t diff = int64_t(count_chars(new_part)) - int64_t(count_chars(old_part));
    const uint8_t* p = reinterpret_cast<const uint8_t*>(new_part.data());
    for (size_t at = 0; at < new_part.size();) {
      size_t len;
      changes.push_back(CharChange{decode_utf8(p + at, new_part.size() - at, len), 0});
      at += len;
    }
    if (diff > 0) {
      for (size_t k = 0; k < size_t(diff); ++k) changes[changes.size() - 1 - k].change = 1;
    } else if (diff < 0 && !changes.empty()) {
      changes.back().change += int32_t(diff);
    }
  }

  SpmCharsmap map_;
  std::array<bool, 256> key_starts_{};
};

}  // namespace tokenforge
