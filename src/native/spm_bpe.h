// sentencepiece's BPE model: the normalized text (spaces already "▁") starts as characters
// (user-defined symbols whole and frozen), and the adjacent pair whose concatenation is a piece
// with the highest score is merged first (ties: the leftmost), until no pair is a piece. Merges
// may pass through unused pieces, which are then split back into the parts they were made of.
// A final symbol that is no piece is the unknown id, or with byte fallback its UTF-8 bytes as
// <0xNN> pieces; without byte fallback a run of unknown symbols is one unknown id (as
// sentencepiece merges them).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tokenforge {

class SpmBpeModel {
 public:
  enum Type : uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

  SpmBpeModel(std::vector<std::string> pieces, std::vector<float> scores, std::vector<uint8_t> types,
              bool byte_fallback)
      : texts_(std::move(pieces)), scores_(std::move(scores)), types_(std::move(types)),
        byte_fallback_(byte_fallback) {
    if (scores_.size() != texts_.size() || types_.size() != texts_.size())
      throw std::invalid_argument("pieces, scores and types differ in length");
    byte_ids_.fill(kNone);
    for (uint32_t id = 0; id < texts_.size(); ++id) {
      const std::string_view text = texts_[id];
      const uint8_t t = types_[id];
      const bool mergeable = t == kNormal || t == kUserDefined || t == kUnused;
      (mergeable ? pieces_ : reserved_).emplace(text, id);
      if (t == kUnknown) unk_id_ = id;
      if (t == kUserDefined) user_defined_.push_back(text);
      if (t == kByte) {
        if (text.size() != 6 || text.substr(0, 3) != "<0x" || text[5] != '>')
          throw std::invalid_argument("byte piece " + std::to_string(id) + " is not of the form <0xNN>");
        byte_ids_[std::stoi(std::string(text.substr(3, 2)), nullptr, 16)] = id;
      }
    }
    if (unk_id_ == kNone) throw std::invalid_argument("the model has no unknown piece");
  }

  // Appends the ids of normalized text s[0..n) to `ids`.
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids) const {
    const std::string_view text(reinterpret_cast<const char*>(s), n);
    std::vector<Symbol> symbols;
    for (size_t pos = 0; pos < n;) {
      bool freeze = false;
      const size_t len = prefix_length(text.substr(pos), freeze);
      symbols.push_back(Symbol{uint32_t(pos), uint32_t(len), int(symbols.size()) - 1,
                               pos + len < n ? int(symbols.size()) + 1 : -1, freeze});
      pos += len;
    }
    std::priority_queue<Pair> agenda;
    std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>> rev_merge;
    auto add_pair = [&](int left, int right) {
      if (left < 0 || right < 0 || symbols[left].freeze || symbols[right].freeze) return;
      const std::string_view merged = text.substr(symbols[left].start, symbols[left].len + symbols[right].len);
      const auto it = pieces_.find(merged);
      if (it == pieces_.end()) return;
      agenda.push(Pair{scores_[it->second], left, right, uint32_t(merged.size())});
      if (types_[it->second] == kUnused)
        rev_merge[merged] = {text.substr(symbols[left].start, symbols[left].len),
                             text.substr(symbols[right].start, symbols[right].len)};
    };
    for (size_t i = 1; i < symbols.size(); ++i) add_pair(int(i) - 1, int(i));
    while (!agenda.empty()) {
      const Pair top = agenda.top();
      agenda.pop();
      Symbol& l = symbols[top.left];
      Symbol& r = symbols[top.right];
      if (l.len == 0 || r.len == 0 || l.len + r.len != top.size) continue;  // stale
      l.len += r.len;
      l.next = r.next;
      if (r.next >= 0) symbols[r.next].prev = top.left;
      r.len = 0;
      add_pair(l.prev, top.left);
      add_pair(top.left, l.next);
    }
    const size_t first = ids.size();
    for (int i = symbols.empty() ? -1 : 0; i != -1; i = symbols[i].next)
      emit(text.substr(symbols[i].start, symbols[i].len), rev_merge, first, ids);
  }

  uint32_t unk_id() const { return unk_id_; }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  struct Symbol {
    uint32_t start, len;
    int prev, next;
    bool freeze;
  };
  struct Pair {
    float score;
    int left, right;
    uint32_t size;
    // priority_queue pops the largest: the highest score, then the leftmost.
    bool operator<(const Pair& o) const { return score != o.score ? score < o.score : left > o.left; }
  };

  // Length of the symbol at the start of s: a user-defined symbol (longest), else one character.
  size_t prefix_length(std::string_view s, bool& freeze) const {
    size_t best = 0;
    for (std::string_view u : user_defined_)
      if (u.size() > best && s.substr(0, u.size()) == u) best = u.size();
    if (best) {
      freeze = true;
      return best;
    }
    const uint8_t b = uint8_t(s[0]);
    const size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    return std::min(len, s.size());
  }

  uint32_t piece_to_id(std::string_view piece) const {
    if (auto it = reserved_.find(piece); it != reserved_.end()) return it->second;
    if (auto it = pieces_.find(piece); it != pieces_.end()) return it->second;
    return unk_id_;
  }

  void emit(std::string_view piece,
            const std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>>& rev_merge,
            size_t first, std::vector<uint32_t>& ids) const {
    const uint32_t id = piece_to_id(piece);
    if (types_[id] == kUnused) {
      const auto it = rev_merge.find(piece);
      if (it != rev_merge.end()) {
        emit(it->second.first, rev_merge, first, ids);
        emit(it->second.second, rev_merge, first, ids);
        return;
      }
    }
    if (id == unk_id_ && byte_fallback_) {
      for (char c : piece) ids.push_back(byte_ids_[uint8_t(c)] != kNone ? byte_ids_[uint8_t(c)] : unk_id_);
      return;
    }
    // An unknown id can only come from unknown symbols (merges never make "<unk>"), so a run of
    // them shows as the previous id.
    if (id == unk_id_ && ids.size() > first && ids.back() == unk_id_) return;
    ids.push_back(id);
  }

  std::vector<std::string> texts_;
  std::vector<float> scores_;
  std::vector<uint8_t> types_;
  bool byte_fallback_;
  std::unordered_map<std::string_view, uint32_t> pieces_, reserved_;
  std::vector<std::string_view> user_defined_;
  std::array<uint32_t, 256> byte_ids_;
  uint32_t unk_id_ = kNone;
};

}  // namespace tokenforge
