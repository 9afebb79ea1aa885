// What comes after the model, as HF tokenizers does it: truncation (with stride and
// overflowing parts), a template that adds special tokens around one or two sequences, and
// padding. Tokens carry ids, type ids, offsets, masks, word and sequence indices side by side;
// parts that truncation cuts off travel along as `overflowing` encodings and get the same
// template and padding. The accessors HF's Encoding has over these (word_to_tokens,
// char_to_token, ...) are at the end of Encoded, with HF's semantics (tokenizer/encoding.rs).
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <unordered_map>
#include <vector>

#include "base/default_init.h"

namespace tokenforge {

constexpr uint32_t kNoWord = 0xFFFFFFFF;  // a token of no word: template specials, padding
constexpr uint8_t kNoSequence = 3;        // a token of no sequence: template specials, padding

// One token: its id, span of input code points, word (HF's word id: the index of the
// pre-tokenized piece it came from in its sequence; an added token matched in the text is a
// piece of its own), type id, masks and sequence (0: the first text, 1: the pair), in 20 bytes
// (an encoding of a large text holds one per token; type ids past kMaxTypeId are refused where
// set). `name`: 0 where the token shows as its id's name; k where it shows as its encoding's
// names[k - 1] (an added token matched with whitespace its lstrip / rstrip took in: HF's token
// is the text it covers), up to 4095 distinct names an encoding. `sequence`: 0, 1 or
// kNoSequence (HF encodes one text or a pair).
struct Row {
  uint32_t id, start, end, word;
  uint16_t type_id;
  uint16_t special : 1;
  uint16_t attention : 1;
  uint16_t sequence : 2;
  uint16_t name : 12;
};
static_assert(sizeof(Row) == 20, "Row is meant to pack into 20 bytes");
constexpr uint32_t kMaxTypeId = 0xFFFF;
// (Grown unset: a pipeline resizes it and writes the rows in place, base/default_init.h.)
using TokenRows = DefaultInitVector<Row>;

// A token the model made from the text (sequence 0 until the post-processor says otherwise).
inline Row token_row(uint32_t id, uint32_t start, uint32_t end, uint32_t word) {
  return Row{id, start, end, word, 0, 0, 1, 0, 0};
}
inline void push_row(TokenRows& rows, uint32_t id, uint32_t start, uint32_t end, uint32_t word) {
  rows.push_back(token_row(id, start, end, word));
}
// A special token the template adds: no span, word or sequence.
inline Row special_row(uint32_t id, uint32_t type_id) {
  return Row{id, 0, 0, kNoWord, uint16_t(type_id), 1, 1, kNoSequence, 0};
}

// A token shown with a text other than its id's name (HF's Unigram names an unknown piece by the
// text it covers): the row of sequence `sequence` (0, or 1 for a pair's second text) with this
// id, word and offsets. Rare, so kept beside the rows, not in them.
struct TokenText {
  uint32_t id, word, start, end;
  uint8_t sequence;
  std::string text;
  uint32_t row = ~uint32_t(0);  // the row's index, while its sequence is encoded (texts_to_names)
};

// (id, the model's token) where an added token took a vocabulary token's id: the model's tokens
// of that id still show the model's text (HF's Token value). Empty for almost every file.
using HiddenTokens = std::vector<std::pair<uint32_t, std::string>>;

struct Encoded {
  TokenRows rows;
  std::vector<Encoded> overflowing;
  std::vector<TokenText> texts;  // the rows (of this or an overflowing part) not shown by their id's name
  // HF's sequence_ranges, as the set of sequences that have one (bit s: sequence s; the rows
  // say which tokens): 0 where none were set (one text without a post-processor: every token,
  // padding included, is of sequence 0). A pair's empty text still has its (empty) range.
  uint8_t sequences = 0;
  // The texts rows show in place of their id's name (Row::name; empty for almost every text).
  std::vector<std::string> names;

  size_t size() const { return rows.size(); }

  // Row::name for `text`: its slot in names (added once; shared by equal texts), or 0 where
  // all kMaxNames slots are taken (the row then shows its id's name).
  static constexpr size_t kMaxNames = 4095;
  uint16_t name_slot(const std::string& text) {
    for (size_t k = 0; k < names.size(); ++k)
      if (names[k] == text) return uint16_t(k + 1);
    if (names.size() >= kMaxNames) return 0;
    names.push_back(text);
    return uint16_t(names.size());
  }
  // Puts each text on its row as a name (Row::name), found through a hash of the names: names
  // travel with their rows through truncation, pairs and overflowing parts, where texts (found
  // by sequence, word and offsets) cannot tell the two texts' rows apart. Texts past the last
  // free slot stay texts. For one sequence's rows, just encoded (TokenText::row set).
  void texts_to_names() {
    if (texts.empty()) return;
    std::unordered_map<std::string, uint16_t> slot;
    for (size_t k = 0; k < names.size(); ++k) slot.emplace(names[k], uint16_t(k + 1));
    std::vector<TokenText> left;
    for (TokenText& t : texts) {
      auto found = slot.find(t.text);
      if (t.row >= rows.size() || (found == slot.end() && names.size() >= kMaxNames)) {
        left.push_back(std::move(t));
        continue;
      }
      if (found == slot.end()) {
        names.push_back(t.text);
        found = slot.emplace(t.text, uint16_t(names.size())).first;
      }
      rows[t.row].name = found->second;
    }
    texts = std::move(left);
  }
  // The rows from `first` on whose id `hidden` lists show the model's token.
  void show_hidden(size_t first, const HiddenTokens& hidden) {
    for (size_t i = first; i < rows.size(); ++i)
      for (const auto& [id, token] : hidden)
        if (rows[i].id == id) rows[i].name = name_slot(token);
  }
  // Appends `r`, a row of `from`, with its name carried over.
  void push_row_of(const Encoded& from, Row r) {
    if (r.name) r.name = name_slot(from.names[r.name - 1]) & kMaxNames;
    rows.push_back(r);
  }

  // Keeps the first (or last) max_len tokens; the rest become overflowing parts of max_len
  // tokens, each repeating the previous part's last `stride` tokens.
  void truncate(size_t max_len, size_t stride, bool from_left) {
    const size_t n = size();
    if (max_len >= n) return;
    if (max_len == 0) {
      Encoded all = std::move(*this);
      *this = Encoded{};
      texts = std::move(all.texts);  // (the texts of every part's rows stay with the whole)
      overflowing.push_back(std::move(all));
      return;
    }
    if (stride >= max_len)
      throw std::invalid_argument("truncation stride " + std::to_string(stride) +
                                  " must be below the length left for the text (" + std::to_string(max_len) +
                                  ", special tokens taken off)");
    const size_t step = max_len - stride;
    std::vector<std::pair<size_t, size_t>> parts;
    if (!from_left) {
      for (size_t start = 0; start < n; start += step) {
        const size_t stop = std::min(start + max_len, n);
        parts.emplace_back(start, stop);
        if (stop == n) break;
      }
    } else {
      for (size_t last = n; last > 0;) {  // parts end at n, n - step, ...
        const size_t start = last < max_len ? 0 : last - max_len;
        parts.emplace_back(start, last);
        if (start == 0) break;
        if (last <= step) break;
        last -= step;
      }
    }
    for (Row& r : rows) r.sequence = kNoSequence;  // HF's truncate clears the sequence ranges
    Encoded result;
    for (size_t i = 0; i < parts.size(); ++i) {
      Encoded part;
      part.rows.assign(rows.begin() + parts[i].first, rows.begin() + parts[i].second);
      part.names = names;
      if (i == 0)
        result = std::move(part);
      else
        result.overflowing.push_back(std::move(part));
    }
    result.texts = std::move(texts);
    *this = std::move(result);
  }

  // Appends `next` (HF's merge_with): the overflowing parts of both combine, each of ours
  // with `next` and with each of its parts, then us with each of its parts.
  void merge_with(const Encoded& next) {
    std::vector<Encoded> combined;
    for (const Encoded& mine : overflowing) {
      Encoded a = mine;
      a.merge_with(next);
      combined.push_back(std::move(a));
      for (const Encoded& theirs : next.overflowing) {
        Encoded b = mine;
        b.merge_with(theirs);
        combined.push_back(std::move(b));
      }
    }
    for (const Encoded& theirs : next.overflowing) {
      Encoded c = *this;  // with our own parts, as HF does (they nest)
      c.merge_with(theirs);
      combined.push_back(std::move(c));
    }
    if (next.names.empty())
      rows.insert(rows.end(), next.rows.begin(), next.rows.end());
    else
      for (const Row& r : next.rows) push_row_of(next, r);
    sequences |= next.sequences;
    overflowing = std::move(combined);
  }

  void pad(size_t length, uint32_t pad_id, uint32_t pad_type_id, bool left) {
    for (Encoded& o : overflowing) o.pad(length, pad_id, pad_type_id, left);
    if (size() >= length) return;
    rows.insert(left ? rows.begin() : rows.end(), length - size(),
                Row{pad_id, 0, 0, kNoWord, uint16_t(pad_type_id), 1, 0, kNoSequence, 0});
  }

  // HF's Encoding accessors. A sequence index that names no sequence of the encoding (or any,
  // where none were set) means all of it, as HF's sequence_range. Misses are nullopt.
  size_t n_sequences() const {
    size_t n = 0;
    for (uint8_t bits = sequences; bits; bits &= uint8_t(bits - 1)) ++n;
    return n ? n : 1;
  }
  bool has_range(size_t sequence) const { return sequence < 7 && (sequences >> sequence & 1); }
  // HF's sequence_ids: for s in 0..n_sequences, the tokens of s's range (all of them where s
  // has none) are of s, later ones over earlier.
  std::optional<uint32_t> sequence_of(size_t token) const {
    if (token >= size()) return std::nullopt;
    std::optional<uint32_t> out;
    for (size_t s = 0; s < n_sequences(); ++s)
      if (!has_range(s) || rows[token].sequence == s) out = uint32_t(s);
    return out;
  }
  // HF's token_to_sequence: the sequence whose range holds the token (0 where none were set,
  // one past the end too).
  std::optional<uint32_t> token_to_sequence(size_t token) const {
    if (token > size()) return std::nullopt;
    if (!sequences) return 0;
    if (token == size() || !has_range(rows[token].sequence)) return std::nullopt;
    return rows[token].sequence;
  }
  std::pair<size_t, size_t> sequence_range(size_t sequence) const {
    if (!has_range(sequence)) return {0, size()};
    size_t first = 0;
    while (first < size() && rows[first].sequence != sequence) ++first;
    size_t last = first;
    while (last < size() && rows[last].sequence == sequence) ++last;
    return {first, last};
  }
  std::optional<std::pair<size_t, size_t>> word_to_tokens(uint32_t word, size_t sequence) const {
    const auto [from, to] = sequence_range(sequence);
    size_t start = to, end = 0;
    for (size_t i = from; i < to; ++i) {
      const uint32_t w = rows[i].word;
      if (w != kNoWord && w > word) break;  // HF's take_while (None sorts first)
      if (w == word) start = std::min(start, i), end = i + 1;
    }
    if (end == 0) return std::nullopt;
    return std::make_pair(start, end);
  }
  std::optional<std::pair<uint32_t, uint32_t>> word_to_chars(uint32_t word, size_t sequence) const {
    const auto tokens = word_to_tokens(word, sequence);
    if (!tokens) return std::nullopt;
    return std::make_pair(rows[tokens->first].start, rows[tokens->second - 1].end);
  }
  std::optional<size_t> char_to_token(size_t pos, size_t sequence) const {
    const auto [from, to] = sequence_range(sequence);
    for (size_t i = from; i < to; ++i)
      if (pos >= rows[i].start && pos < rows[i].end) return i;
    return std::nullopt;
  }
  std::optional<uint32_t> token_to_word(size_t token) const {
    if (!token_to_sequence(token) || token >= size() || rows[token].word == kNoWord) return std::nullopt;
    return rows[token].word;
  }
  std::optional<std::pair<uint32_t, uint32_t>> token_to_chars(size_t token) const {
    if (!token_to_sequence(token) || token >= size()) return std::nullopt;
    return std::make_pair(rows[token].start, rows[token].end);
  }
  std::optional<uint32_t> char_to_word(size_t pos, size_t sequence) const {
    const auto token = char_to_token(pos, sequence);
    return token ? token_to_word(*token) : std::nullopt;
  }
};

struct TemplatePiece {
  bool is_sequence;
  uint32_t sequence;  // 0: A, 1: B
  uint32_t type_id;
  std::vector<uint32_t> special_ids;  // the special token's ids
  // The text each id shows in the encoding's tokens (HF's SpecialToken.tokens), "" where it is
  // the id's name; empty where none differs.
  std::vector<std::string> special_texts;

  // Special row i of this piece, named by its text in `e` where the text is not the id's name.
  Row special(size_t i, Encoded& e) const {
    Row r = special_row(special_ids[i], type_id);
    if (i < special_texts.size() && !special_texts[i].empty())
      r.name = e.name_slot(special_texts[i]) & Encoded::kMaxNames;
    return r;
  }
};

struct TruncationParams {
  size_t max_length = 0;
  size_t stride = 0;
  // 0 longest first, 1 only first, 2 only second; 3, 4, 5 the same as transformers' Python
  // classes cut (truncate_sequences): longest first where both texts are cut leaves an odd
  // total's extra token to the first text (HF's rule gives it to the longer, the second on a
  // tie), and only first or only second may cut a text to nothing (HF's refuses).
  int strategy = 0;
  bool from_left = false;
};

struct PaddingParams {
  size_t length = 0;  // 0: the longest in the batch
  size_t multiple_of = 0;
  uint32_t pad_id = 0, pad_type_id = 0;
  bool left = false;
};

struct PostProcessor {
  std::vector<TemplatePiece> single, pair;
  bool truncate = false, pad = false;
  // true: there is no post-processor, and HF's default_process runs instead: one text keeps no
  // sequence ranges, a pair's texts get theirs but their overflowing parts do not.
  bool default_process = false;
  // Overflowing parts keep their sequence's index as type id (the model's, as HF's templates set
  // only the whole text's), but where this is true and special tokens are added: then they take
  // the template's (HF's RobertaProcessing and BertProcessing build their parts anew).
  bool parts_typed = false;
  // transformers' _add_eos_if_not_present (SiglipTokenizer's and ByT5Tokenizer's Python
  // classes): a special piece of one id right after a sequence is left out where that sequence
  // already ends with the id.
  bool skip_present_special = false;
  TruncationParams truncation;
  PaddingParams padding;

  size_t added(bool is_pair) const {
    size_t n = 0;
    for (const TemplatePiece& p : is_pair ? pair : single)
      if (!p.is_sequence) n += p.special_ids.size();
    return n;
  }

  // Whether process() of one text only puts the template's special ids around its ids (no
  // truncation, no padding): then ids_around gives them, and a kernel may compute ids first.
  bool ids_only(bool is_pair) const { return !is_pair && !truncate && !pad; }
  // The ids process() puts before and after one text's ids (nothing without add_special). With
  // `types`, also the type id of each (before, then after) and, in types->text, the type id of
  // the text's own rows (the template's sequence piece's, with or without add_special).
  struct TypesAround {
    std::vector<uint16_t> before, after;
    uint16_t text = 0;
  };
  void ids_around(bool add_special, std::vector<uint32_t>& before, std::vector<uint32_t>& after,
                  TypesAround* types = nullptr) const {
    bool seen = false;
    for (const TemplatePiece& p : single) {
      if (p.is_sequence) {
        seen = true;
        if (types) types->text = uint16_t(p.type_id);
        continue;
      }
      if (!add_special) continue;
      std::vector<uint32_t>& to = seen ? after : before;
      to.insert(to.end(), p.special_ids.begin(), p.special_ids.end());
      if (types) {
        std::vector<uint16_t>& typed = seen ? types->after : types->before;
        typed.insert(typed.end(), p.special_ids.size(), uint16_t(p.type_id));
      }
    }
  }

  // How many of ids_around's `after` ids process() leaves out for a text whose ids end with
  // `last` (none where the text has no ids): with skip_present_special, the piece of one id
  // right after the text where it is that id (without_present), else none.
  size_t present_after(bool add_special, bool empty, uint32_t last) const {
    if (!skip_present_special || !add_special || empty) return 0;
    for (size_t i = 1; i < single.size(); ++i) {
      const TemplatePiece& p = single[i];
      if (single[i - 1].is_sequence) return !p.is_sequence && p.special_ids.size() == 1 && p.special_ids[0] == last;
    }
    return 0;
  }

  // Truncates, applies the template and pads one encoding (a batch pads again to its longest).
  // `truncated`: the caller has run truncate_pair already (a kernel that works on the parts).
  Encoded process(Encoded a, Encoded* b, bool add_special, bool truncated = false) const {
    if (truncate && !truncated) truncate_pair(a, b, add_special);
    if (b || !default_process) {  // HF's set_sequence_id, on each text (and its overflowing parts)
      set_sequence(a, 0, !default_process);
      if (b) set_sequence(*b, 1, !default_process);
    }
    const std::vector<TemplatePiece>* chosen = b ? &pair : &single;
    std::vector<TemplatePiece> kept;
    if (skip_present_special && add_special) {
      kept = without_present(*chosen, a, b);
      chosen = &kept;
    }
    const std::vector<TemplatePiece>& pieces = *chosen;
    Encoded out;
    if (!b && a.overflowing.empty()) {
      // The common case, one text and nothing cut off: special rows go around its own rows.
      size_t before = 0, after = 0;
      bool seen = false;
      for (const TemplatePiece& p : pieces) {
        if (p.is_sequence)
          seen = true;
        else if (add_special)
          (seen ? after : before) += p.special_ids.size();
      }
      TokenRows& rows = a.rows;
      rows.reserve(rows.size() + before + after);
      rows.insert(rows.begin(), before, Row{});
      size_t at = 0;
      seen = false;
      for (const TemplatePiece& p : pieces) {
        if (p.is_sequence) {
          for (size_t i = before; i < rows.size(); ++i) rows[i].type_id = uint16_t(p.type_id);
          seen = true;
        } else if (add_special) {
          for (size_t i = 0; i < p.special_ids.size(); ++i) {
            if (seen)
              rows.push_back(p.special(i, a));
            else
              rows[at++] = p.special(i, a);
          }
        }
      }
      out = std::move(a);
    } else if (a.overflowing.empty() && (!b || b->overflowing.empty())) {
      // Two texts, nothing cut off: rows appended in template order.
      size_t n = 0;
      for (const TemplatePiece& p : pieces)
        n += p.is_sequence ? (p.sequence == 0 ? a : *b).size() : p.special_ids.size();
      out.rows.reserve(n);
      for (const TemplatePiece& p : pieces) {
        if (p.is_sequence) {
          const Encoded& seq = p.sequence == 0 ? a : *b;
          for (Row r : seq.rows) {
            r.type_id = uint16_t(p.type_id);
            out.push_row_of(seq, r);
          }
        } else if (add_special) {
          for (size_t i = 0; i < p.special_ids.size(); ++i) out.rows.push_back(p.special(i, out));
        }
      }
      out.sequences = uint8_t(a.sequences | (b ? b->sequences : 0));
    } else {
      for (const TemplatePiece& p : pieces) {
        if (p.is_sequence) {
          Encoded& seq = p.sequence == 0 ? a : *b;
          set_type_ids(seq, p.type_id, parts_typed && add_special ? p.type_id : p.sequence);
          out.merge_with(seq);
        } else if (add_special) {
          Encoded special;
          for (size_t i = 0; i < p.special_ids.size(); ++i) special.rows.push_back(p.special(i, special));
          out.merge_with(special);
        }
      }
    }
    if (pad) pad_to(out, out.size());
    return out;
  }

  void pad_to(Encoded& e, size_t longest) const {
    size_t length = padding.length ? padding.length : longest;
    if (padding.multiple_of && length % padding.multiple_of)
      length += padding.multiple_of - length % padding.multiple_of;
    e.pad(length, padding.pad_id, padding.pad_type_id, padding.left);
  }

  // Pads each encoding of a batch (already processed one by one) to the batch's longest, where
  // padding is on.
  void pad_batch(std::vector<Encoded>& batch) const {
    if (!pad) return;
    size_t longest = 0;
    for (const Encoded& e : batch) longest = std::max(longest, e.size());
    for (Encoded& e : batch) pad_to(e, longest);
  }

 private:
  // `pieces` without each one-id special piece that follows a sequence ending with that id.
  static std::vector<TemplatePiece> without_present(const std::vector<TemplatePiece>& pieces, const Encoded& a,
                                                    const Encoded* b) {
    std::vector<TemplatePiece> kept;
    for (size_t i = 0; i < pieces.size(); ++i) {
      const TemplatePiece& p = pieces[i];
      if (i > 0 && !p.is_sequence && p.special_ids.size() == 1 && pieces[i - 1].is_sequence) {
        const Encoded* seq = pieces[i - 1].sequence == 0 ? &a : b;
        if (seq && !seq->rows.empty() && seq->rows.back().id == p.special_ids[0]) continue;
      }
      kept.push_back(p);
    }
    return kept;
  }
  static void set_sequence(Encoded& e, uint32_t sequence, bool parts) {
    for (Row& r : e.rows) r.sequence = uint8_t(sequence) & 3;
    e.sequences = uint8_t(e.sequences | 1u << sequence);
    if (parts)
      for (Encoded& o : e.overflowing) set_sequence(o, sequence, false);
  }
  static void set_type_ids(Encoded& e, uint32_t type_id, uint32_t part_type) {
    for (Row& r : e.rows) r.type_id = uint16_t(type_id);
    for (Encoded& o : e.overflowing) set_type_ids(o, part_type, part_type);
  }

 public:
  // HF's truncate_encodings: cuts one text (or a pair, by the strategy) to max_length less the
  // template's special tokens; the rest goes to overflowing parts. (process calls it first; a
  // kernel that works between truncation and the template calls it itself.)
  void truncate_pair(Encoded& a, Encoded* b, bool add_special) const {
    size_t max_length = truncation.max_length;
    const size_t n_added = add_special ? added(b != nullptr) : 0;
    if (n_added > max_length)
      throw std::invalid_argument("truncation max_length " + std::to_string(max_length) + " leaves no room for the " +
                                  std::to_string(n_added) + " special tokens the template adds");
    max_length -= n_added;
    const size_t stride = truncation.stride;
    const bool left = truncation.from_left;
    // (transformers' Python classes cut to nothing by the strategy too: only_first keeps the
    // second text, and a text too short for its cut is the error below)
    const bool python = truncation.strategy >= 3;
    if (max_length == 0 && !python) {
      a.truncate(0, stride, left);
      if (b) b->truncate(0, stride, left);
      return;
    }
    const size_t total = a.size() + (b ? b->size() : 0);
    if (total <= max_length) return;
    const size_t to_remove = total - max_length;
    const int kind = python ? truncation.strategy - 3 : truncation.strategy;
    if (kind == 0) {
      if (!b) {
        a.truncate(total - to_remove, stride, left);
        return;
      }
      // The shorter keeps its length if it fits in half; otherwise both get half.
      size_t n1 = a.size(), n2 = b->size();
      const bool swap = n1 > n2;
      if (swap) std::swap(n1, n2);
      n2 = n1 > max_length ? n1 : std::max(n1, max_length - n1);
      if (n1 + n2 > max_length) {
        n1 = max_length / 2;
        n2 = n1 + max_length % 2;
        if (python && !swap) std::swap(n1, n2);  // (the first text's, after the swap back)
      }
      if (swap) std::swap(n1, n2);
      a.truncate(n1, stride, left);
      b->truncate(n2, stride, left);
      return;
    }
    Encoded* target = kind == 1 ? &a : b;
    if (!target) throw std::invalid_argument("truncation strategy only_second needs a second sequence");
    if (target->size() < to_remove || (target->size() == to_remove && !python))
      throw std::invalid_argument("the sequence to truncate is too short to fit max_length");
    target->truncate(target->size() - to_remove, stride, left);
  }
};

// post.process over one text or a pair, keeping the texts of the rows not shown by their names
// (Encoded::texts; the second text's as sequence 1).
inline Encoded process_keeping_texts(const PostProcessor& post, Encoded a, Encoded* b, bool add_special,
                                     bool truncated = false) {
  std::vector<TokenText> texts = std::move(a.texts);
  if (b)
    for (TokenText& t : b->texts) {
      t.sequence = 1;
      texts.push_back(std::move(t));
    }
  Encoded out = post.process(std::move(a), b, add_special, truncated);
  out.texts = std::move(texts);
  return out;
}

}  // namespace tokenforge
