// sentencepiece's Unigram model over normalized text, as sentencepiece 0.2.x computes it. Its
// lattice has a node per occurrence of a piece (found with a double-array trie,
// base/double_array_trie.h; unused pieces are skipped) and an unknown node for a character no
// piece covers alone, scored (lowest normal score - 10). A user-defined symbol scores
// 0.1 * (length - 1): above any path of normal pieces.
//
// encode is the Viterbi search as sentencepiece's EncodeOptimized does it: one pass, the lattice
// never stored, float sums rebased when they grow, a user-defined symbol's length in bytes.
// encode_nbest (A*) and the samplers follow its Lattice class instead: nodes stored, float sums
// never rebased, lengths in characters. Each is mirrored, since each breaks ties its own way.
//
// encode_normalizing takes a text before its normalizer (normalizers/spm_normalizer.h) in one
// pass: where the normalizer copies the input as it is, the cut (spm_adjacency.h) reads the
// input itself; elsewhere the normalizer takes a step and the cut reads what it wrote.
#pragma once
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <queue>
#include <random>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "models/bpe/piece_cache.h"
#include "base/pool.h"
#include "models/sentencepiece/spm_adjacency.h"
#include "models/sentencepiece/spm_vocab.h"
#include "normalizers/spm_normalizer.h"
#include "base/double_array_trie.h"

namespace tokenforge {

// The lattice of a text, stored for n-best search and sampling. Node positions are byte offsets.
class SpmLattice {
 public:
  struct Node {
    uint32_t start, end, id;
    float score;
  };
  struct Path {
    std::vector<uint32_t> nodes;  // left to right
    float score;
  };

  // `found` in sentencepiece's insertion order (by start, then by length). It is kept grouped by
  // end and by start within one end: sentencepiece's end_nodes, whose order decides its ties.
  SpmLattice(size_t n, const std::vector<Node>& found) : n_(n), ends_(n + 2, 0), nodes_(found.size()) {
    for (const Node& node : found) ++ends_[node.end + 1];
    for (size_t p = 1; p < ends_.size(); ++p) ends_[p] += ends_[p - 1];
    std::vector<uint32_t> fill(ends_.begin(), ends_.end() - 1);
    for (const Node& node : found) nodes_[fill[node.end]++] = node;
  }

  const Node& node(uint32_t i) const { return nodes_[i]; }

  // Up to k paths by decreasing score, as sentencepiece's Lattice::NBest finds them: A* from the
  // end of the text, with the exact Viterbi score of the rest as the heuristic, over a
  // std::priority_queue (so equal scores pop in the same order). The agenda is cut back to its
  // best min(512, 10k) when it reaches 10000; the eleventh time, the search gives up and
  // returns the Viterbi path alone.
  std::vector<Path> nbest(size_t k) const {
    // best[p]: the best score of a path over [0, p); through a node: best[start] + its score.
    std::vector<float> best(n_ + 1, 0.0f), through(nodes_.size());
    for (size_t p = 1; p <= n_; ++p)
      for (uint32_t i = ends_[p]; i < ends_[p + 1]; ++i) {
        through[i] = best[nodes_[i].start] + nodes_[i].score;
        if (i == ends_[p] || through[i] > best[p]) best[p] = through[i];
      }
    std::vector<Hyp> hyps{{kEos, -1, best[n_], 0.0f}};
    Agenda agenda(ByFx{&hyps});
    agenda.push(0);
    std::vector<Path> out;
    auto extend = [&](uint32_t top, int32_t node, float fx, float gx) {
      hyps.push_back(Hyp{node, int32_t(top), fx, gx});
      agenda.push(uint32_t(hyps.size() - 1));
    };
    for (int prunes = 0; !agenda.empty();) {
      const uint32_t top = agenda.top();
      agenda.pop();
      const Hyp h = hyps[top];
      if (h.node == kBos) {
        Path& path = out.emplace_back(Path{{}, h.fx});
        for (int32_t i = h.next; hyps[i].node != kEos; i = hyps[i].next) path.nodes.push_back(uint32_t(hyps[i].node));
        if (out.size() == k) break;
        continue;
      }
      const uint32_t pos = h.node == kEos ? uint32_t(n_) : nodes_[h.node].start;
      if (pos == 0) {
        extend(top, kBos, h.gx, h.gx);  // the start node scores 0
      } else {
        for (uint32_t i = ends_[pos]; i < ends_[pos + 1]; ++i)
          extend(top, int32_t(i), through[i] + h.gx, nodes_[i].score + h.gx);
      }
      if (agenda.size() >= kMaxAgenda) {
        if (prunes++ == kMaxPrunes) return {Path{viterbi_path(best[n_], through), best[n_]}};
        prune(agenda, hyps, std::min(kMinAgenda, k * 10));
      }
    }
    return out;
  }

  // A path drawn with probability proportional to exp(theta * its score), over all paths
  // (sentencepiece's Lattice::Sample): forward sums of every prefix, then a walk back from the
  // end that picks each previous node by its share of the sum.
  std::vector<uint32_t> sample(double theta, std::mt19937_64& rng) const {
    std::vector<double> forward(n_ + 1, 0.0);
    for (size_t p = 1; p <= n_; ++p) {
      if (ends_[p] == ends_[p + 1]) continue;
      double top = -std::numeric_limits<double>::infinity();
      for (uint32_t i = ends_[p]; i < ends_[p + 1]; ++i) top = std::max(top, weight(i, theta, forward));
      double sum = 0;
      for (uint32_t i = ends_[p]; i < ends_[p + 1]; ++i) sum += std::exp(weight(i, theta, forward) - top);
      forward[p] = top + std::log(sum);
    }
    std::vector<uint32_t> path;
    std::vector<double> probs;
    for (size_t p = n_; p > 0;) {
      probs.clear();
      for (uint32_t i = ends_[p]; i < ends_[p + 1]; ++i)
        probs.push_back(std::exp(weight(i, theta, forward) - forward[p]));
      const uint32_t chosen = ends_[p] + uint32_t(std::discrete_distribution<size_t>(probs.begin(), probs.end())(rng));
      path.push_back(chosen);
      p = nodes_[chosen].start;
    }
    std::reverse(path.begin(), path.end());
    return path;
  }

 private:
  static constexpr int32_t kBos = -1, kEos = -2;
  static constexpr size_t kMaxAgenda = 10000, kMinAgenda = 512;
  static constexpr int kMaxPrunes = 10;

  // The best path, back from the end: before each node, the first node ending where it starts
  // whose score plus the node's gives the node's best (sentencepiece's Viterbi keeps the first
  // of equal sums, and a sum may tie after rounding where the scores before it did not).
  std::vector<uint32_t> viterbi_path(float total, const std::vector<float>& through) const {
    std::vector<uint32_t> path;
    float target = total, score = 0.0f;
    for (size_t p = n_; p > 0;) {
      uint32_t i = ends_[p];
      while (through[i] + score != target) ++i;
      path.push_back(i);
      target = through[i];
      score = nodes_[i].score;
      p = nodes_[i].start;
    }
    std::reverse(path.begin(), path.end());
    return path;
  }

  // A partial path from the end of the text back to `node` (an index, kBos or kEos); `next` is
  // the hypothesis it extends. gx is the score of its nodes; fx adds the best score of a path
  // from the start of the text to the node.
  struct Hyp {
    int32_t node, next;
    float fx, gx;
  };
  struct ByFx {
    const std::vector<Hyp>* hyps;
    bool operator()(uint32_t a, uint32_t b) const { return (*hyps)[a].fx < (*hyps)[b].fx; }
  };
  using Agenda = std::priority_queue<uint32_t, std::vector<uint32_t>, ByFx>;

  // Keeps the best `keep` hypotheses of the agenda, pushed again in the order they pop (as
  // sentencepiece does: the order decides later ties), and only the hypotheses they extend.
  static void prune(Agenda& agenda, std::vector<Hyp>& hyps, size_t keep) {
    std::vector<Hyp> kept;
    std::vector<int32_t> moved(hyps.size(), -1);
    std::vector<uint32_t> tops;
    for (; keep > 0; --keep) {
      const uint32_t top = agenda.top();
      agenda.pop();
      int32_t copy = -1;  // the last copy, whose `next` is still an old index
      for (int32_t i = int32_t(top); i != -1; i = hyps[i].next) {
        const bool seen = moved[i] != -1;
        if (!seen) {
          moved[i] = int32_t(kept.size());
          kept.push_back(hyps[i]);
        }
        if (copy != -1) kept[copy].next = moved[i];
        if (seen) break;
        copy = moved[i];
      }
      tops.push_back(uint32_t(moved[top]));
    }
    hyps = std::move(kept);
    agenda = Agenda(ByFx{&hyps});
    for (uint32_t top : tops) agenda.push(top);
  }

  double weight(uint32_t i, double theta, const std::vector<double>& forward) const {
    return forward[nodes_[i].start] + theta * nodes_[i].score;
  }

  size_t n_;
  std::vector<uint32_t> ends_;  // nodes ending at byte p: nodes_[ends_[p] .. ends_[p + 1])
  std::vector<Node> nodes_;
};

class SpmUnigramModel {
 public:
  explicit SpmUnigramModel(SpmVocab vocab) : vocab_(std::move(vocab)) {
    std::vector<std::string_view> pieces;  // those the lattice has
    std::vector<std::pair<std::string_view, uint32_t>> keys;
    for (uint32_t id = 0; id < vocab_.size(); ++id) {
      const uint8_t t = vocab_.type(id);
      const std::string& text = vocab_.text(id);
      if (SpmVocab::producible(t)) {
        if (t != SpmVocab::kUnused) keys.emplace_back(text, id);  // (the lattice skips unused pieces)
        longest_ = std::max(longest_, text.size());
      }
      if (t == SpmVocab::kNormal) min_score_ = std::min(min_score_, vocab_.score(id));
      if (t == SpmVocab::kNormal || t == SpmVocab::kUserDefined) pieces.push_back(text);
    }
    node_scores_.resize(vocab_.size());
    for (uint32_t id = 0; id < vocab_.size(); ++id) {
      node_scores_[id] = node_score(id, vocab_.text(id).size());
      const uint8_t t = vocab_.type(id);
      if (t == SpmVocab::kNormal || t == SpmVocab::kUserDefined)
        max_abs_score_ = std::max(max_abs_score_, std::fabs(double(node_scores_[id])));
    }
    max_abs_score_ = std::max(max_abs_score_, std::fabs(double(node_scores_[vocab_.unk_id()])));
    trie_ = DoubleArrayTrie(std::move(keys));
    adjacency_ = PieceAdjacency(pieces);
    cacheable_ = vocab_.size() <= kIdMask;
    index_characters();
  }
  const SpmVocab& vocab() const { return vocab_; }

  // Whether the model reads " " as "▁" (SpmEscaping::escape, no prefix) exactly: where "▁" is a
  // piece, so an escaped space is never an unknown character (whose bytes would be needed).
  bool reads_spaces_escaped() const { return one_id(adjacency_.info(PieceAdjacency::kMark)) != vocab_.unk_id(); }

  // Appends the ids of the best segmentation of normalized text s[0..n) to `ids` (and to
  // `lengths` the bytes of s each covers). With how.escape, each " " of s reads as "▁" (see
  // reads_spaces_escaped). The text is cut where no piece crosses; each part's best path is
  // remembered per thread (see append_segment), and the parts' table slots are fetched a batch ahead.
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths = nullptr,
              SpmEscaping how = {}) const {
    if (n == 0) return;
    if (how.prefix) throw std::logic_error("the Unigram model reads no dummy prefix: normalize first");
    Pool<Cache>::Lease lease(caches_);
    Cache& cache = lease.get();
    reading(cache, how.escape);
    const size_t cut_count = adjacency_.cut_kept(s, n, how.escape, false, cache.cuts, cache.infos);
    encode_cut(Text{s, n, how.escape}, cut_count, ids, lengths, cache);
  }

  // A normalizer and this model in one pass over a text (SpmNormalizer::normalize_cut): the
  // tables of the cut's check (PieceAdjacency::cut_on), for one normalizer whose output the
  // model reads with `escape` (see encode), where SpmNormalizer::cuts_as_it_goes.
  class Fused {
   public:
    Fused(const SpmNormalizer& normalizer, const SpmUnigramModel& model, bool escape)
        : normalizer_(normalizer), model_(model), escape_(escape) {
      for (uint32_t b = 0; b < 0x80; ++b) {
        ascii_[b] = normalizer.copied_ascii(uint8_t(b));
        reads_[b] = PieceAdjacency::read_char(ascii_[b], escape);
      }
      pairs_ = model.adjacency_.check_pairs(
          escape, ascii_, [&](uint32_t a, uint32_t b) { return normalizer.ascii_stops(a, uint8_t(b)); });
      classes_.resize(PieceAdjacency::kCharacters);
      simple_.assign(PieceAdjacency::kCharacters, 0);
      for (uint32_t c = 0; c < PieceAdjacency::kCharacters; ++c) {
        classes_[c] = normalizer.plain_class(c);
        std::string_view replacement;
        if (classes_[c] == SpmNormalizer::kNeverPlain && replacements_.size() < 0xFFFF &&
            normalizer.simple_key(c, replacement)) {
          replacements_.push_back(replacement);
          simple_[c] = uint16_t(replacements_.size());
        }
      }
    }

   private:
    friend class SpmUnigramModel;
    // PieceAdjacency::cut_on's check, for input byte 0 at output position delta.
    struct Check {
      static constexpr bool kOn = true;
      size_t delta;
      const uint8_t* pairs;
      const uint8_t* ascii;
      const uint32_t* reads;
      const uint8_t* classes;  // SpmNormalizer::plain_class by character
      const std::array<uint64_t, 4>* sets;
      const SpmNormalizer* normalizer;
      const uint16_t* simple;  // by character: 1 + its index in replacements_ where a simple_key
      TF_INLINE bool fast(uint32_t c) const { return classes[c] == 0; }
      // (As SpmNormalizer::plain_at, its first tests here: a class, and the byte after.)
      TF_INLINE bool plain(const uint8_t* p, size_t m, uint32_t c, size_t len) const {
        const uint8_t cls = c < PieceAdjacency::kCharacters ? classes[c] : SpmNormalizer::kNeverPlain;
        if (TF_LIKELY(cls == 0)) return true;
        if (cls != SpmNormalizer::kNeverPlain)
          return len >= m || !(sets[cls][p[len] >> 6] >> (p[len] & 63) & 1) || normalizer->plain_after(p, m, len);
        return c < PieceAdjacency::kCharacters && simple[c] ? false : normalizer->plain_at(p, m, c, len);
      }
      bool key_after(const uint8_t* p, size_t m) const { return normalizer->key_after(p, m); }
    };
    const SpmNormalizer& normalizer_;
    const SpmUnigramModel& model_;
    bool escape_;
    uint8_t ascii_[0x80];
    uint32_t reads_[0x80];
    std::vector<uint8_t> pairs_, classes_;
    std::vector<uint16_t> simple_;                // see Check::simple
    std::vector<std::string_view> replacements_;  // (in the normalizer's map)
  };

  // encode(normalized text of s[0..n), ids, lengths) with the Fused's normalizer and escaping,
  // the text normalized into `normalized` (with norm_to_orig and characters as
  // SpmNormalizer::normalize gives them in characters) and cut as it is written: where the
  // normalizer copies the input as it is, the cut reads the input (no second pass over it).
  // False where this text must take the two passes (nothing appended then).
  template <class Alignment = std::vector<uint32_t>>
  bool encode_normalizing(const Fused& fused, const uint8_t* s, size_t n, std::string& normalized,
                          std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths = nullptr,
                          Alignment* norm_to_orig = nullptr, uint32_t* characters = nullptr) const {
    Pool<Cache>::Lease lease(caches_);
    Cache& cache = lease.get();
    reading(cache, fused.escape_);
    struct Cutter {
      const PieceAdjacency& adjacency;
      const Fused& fused;
      Cache& cache;
      PieceAdjacency::CutState state;
      size_t written = 0;  // cuts so far
      bool begun = false;
      bool began() const { return begun; }
      // What prefix() gives at the input's start where it is a simple_key: piece, and used.
      void replaced(std::string_view input, std::string_view& piece, size_t& used) const {
        const uint8_t* p = reinterpret_cast<const uint8_t*>(input.data());
        const size_t len = utf8_length(p[0]);
        if ((len != 2 && len != 3) || len > input.size()) return;
        const uint32_t c = len == 2 ? ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu)
                                    : ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
        if (const uint16_t k = fused.simple_[c]) {
          piece = fused.replacements_[k - 1u];
          used = len;
        }
      }
      void room(size_t out_n) {  // (grown, never shrunk, as PieceAdjacency::cut_kept)
        if (out_n >= std::numeric_limits<uint32_t>::max()) throw std::length_error("text too long to encode (4 GB)");
        if (cache.cuts.size() < out_n + 2) cache.cuts.resize(out_n + 2);
        if (cache.infos.size() < out_n + 2) cache.infos.resize(out_n + 2);
      }
      void more(const std::string& out, size_t from) {
        room(out.size());
        const uint8_t* o = reinterpret_cast<const uint8_t*>(out.data());
        uint32_t* const base = cache.cuts.data();
        uint32_t* w = base + written;
        if (!begun) {  // (from 0: as PieceAdjacency::cut_at begins)
          size_t len;
          state.prev_byte = o[0] < 0x80 ? o[0] : 0x80;
          state.prev = PieceAdjacency::read(o, out.size(), fused.escape_, len);
          state.prev_info = adjacency.info(state.prev);
          cache.infos[0] = state.prev_info;
          *w++ = 0;
          from = len;
          begun = true;
        }
        if (out.size() - from == 1 && o[from] < 0x80)  // (a replaced character's one byte, mostly)
          adjacency.cut_ascii(o[from], from, fused.escape_, state, base, w, cache.infos.data());
        else
          adjacency.cut_on<true>(o, from, out.size(), fused.escape_, state, base, w, cache.infos.data(),
                                 PieceAdjacency::NoCheck{});
        written = size_t(w - base);
      }
      size_t plain(const uint8_t* s, size_t at, size_t n, size_t out_n) {
        if (!begun) return at;
        room(out_n + (n - at));
        uint32_t* const base = cache.cuts.data();
        uint32_t* w = base + written;
        const Fused::Check check{out_n - at,         fused.pairs_.data(),   fused.ascii_,
                                 fused.reads_,       fused.classes_.data(), fused.normalizer_.next_sets(),
                                 &fused.normalizer_, fused.simple_.data()};
        const size_t stop = adjacency.cut_on<true>(s, at, n, fused.escape_, state, base, w, cache.infos.data(), check);
        written = size_t(w - base);
        return stop;
      }
    } cutter{adjacency_, fused, cache, {}};
    if (!fused.normalizer_.normalize_cut(s, n, normalized, cutter, norm_to_orig, characters)) return false;
    const size_t m = normalized.size();
    if (m == 0) return true;
    size_t count = cutter.written;
    uint32_t* const cuts = cache.cuts.data();
    while (count > 1 && cuts[count - 1] >= m) --count;  // (trailing spaces dropped)
    cuts[count++] = uint32_t(m);
    encode_cut(Text{reinterpret_cast<const uint8_t*>(normalized.data()), m, fused.escape_}, count, ids, lengths, cache);
    return true;
  }

  // The ids of the best nbest segmentations, best first (sentencepiece's NBestEncode).
  std::vector<std::vector<uint32_t>> encode_nbest(const uint8_t* s, size_t n, size_t nbest) const {
    std::vector<std::vector<uint32_t>> out(1);
    if (n == 0) return out;
    if (nbest <= 1) {
      encode(s, n, out[0]);  // sentencepiece's n-best of one is its Viterbi search
      return out;
    }
    const SpmLattice lattice = build_lattice(s, n);
    const std::vector<SpmLattice::Path> paths = lattice.nbest(nbest);
    out.resize(paths.size());
    for (size_t i = 0; i < paths.size(); ++i) emit_path(s, lattice, paths[i].nodes, out[i]);
    return out;
  }

  // One segmentation drawn at random (sentencepiece's SampleEncode): nbest_size 0 or 1 the best
  // one; above 1 one of the nbest_size best, with probability proportional to exp(alpha * score);
  // below 0 one of all, with probability proportional to exp(alpha * score).
  void sample_encode(const uint8_t* s, size_t n, float alpha, int nbest_size, std::mt19937_64& rng,
                     std::vector<uint32_t>& ids) const {
    if (n == 0) return;
    if (nbest_size == 0 || nbest_size == 1) return encode(s, n, ids);
    const SpmLattice lattice = build_lattice(s, n);
    if (nbest_size < 0) return emit_path(s, lattice, lattice.sample(alpha, rng), ids);
    const std::vector<SpmLattice::Path> paths = lattice.nbest(size_t(nbest_size));
    std::vector<double> log_probs;
    for (const SpmLattice::Path& p : paths) log_probs.push_back(alpha * p.score);
    const double top = *std::max_element(log_probs.begin(), log_probs.end());
    for (double& lp : log_probs) lp = std::exp(lp - top);
    const size_t chosen = std::discrete_distribution<size_t>(log_probs.begin(), log_probs.end())(rng);
    emit_path(s, lattice, paths[chosen].nodes, ids);
  }

 private:
  // Calls node(start, end, id) for each node of the lattice over s[0..n), in sentencepiece's
  // order: by start, then by length, then the unknown (when no piece covers the character
  // alone); begin(start) comes before the nodes at each start.
  template <class Begin, class Visit>
  void for_each_node(const uint8_t* s, size_t n, Begin&& begin, Visit&& node) const {
    for (size_t start = 0; start < n;) {
      begin(start);
      const size_t char_len = std::min(utf8_length(s[start]), n - start);
      bool has_single = false;
      uint32_t t = DoubleArrayTrie::kRoot;
      size_t end = start;
      if (char_len == 2 || char_len == 3) {  // its bytes' steps in one, from char_nodes_
        const uint32_t past = node_past_character(s + start, char_len);
        if (past != kUnread) {
          t = past;
          end = start + char_len;
          const uint32_t id = t == DoubleArrayTrie::kNone ? kNoToken : trie_.value(t);
          if (id != kNoToken) {
            node(start, end, id);
            has_single = true;
          }
        }
      }
      while (t != DoubleArrayTrie::kNone && end < n) {
        t = trie_.child(t, s[end++]);
        if (t == DoubleArrayTrie::kNone) break;
        const uint32_t id = trie_.value(t);
        if (id == kNoToken) continue;
        node(start, end, id);
        if (end - start == char_len) has_single = true;
      }
      if (!has_single) node(start, start + char_len, vocab_.unk_id());
      start += char_len;
    }
  }

  // The trie's node past the character of len (2 or 3) bytes at s (kNone: no piece starts with
  // it), from char_nodes_; kUnread where the bytes are not one character's shortest UTF-8 form of
  // that length (a character cut short at the text's end, say: then read byte by byte).
  static constexpr uint32_t kUnread = DoubleArrayTrie::kNone - 1;
  TF_INLINE uint32_t node_past_character(const uint8_t* s, size_t len) const {
    if (len == 2) {
      const uint32_t c = ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu);
      return (s[0] & 0xE0) == 0xC0 && (s[1] & 0xC0) == 0x80 && c >= 0x80 ? char_nodes_[c] : kUnread;
    }
    const uint32_t c = ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
    return (s[0] & 0xF0) == 0xE0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 && c >= 0x800 ? char_nodes_[c]
                                                                                                 : kUnread;
  }

  SpmLattice build_lattice(const uint8_t* s, size_t n) const {
    if (n >= std::numeric_limits<uint32_t>::max()) throw std::length_error("text too long for a lattice (4 GB)");
    std::vector<SpmLattice::Node> found;
    for_each_node(
        s, n, [](size_t) {},
        [&](size_t start, size_t end, uint32_t id) {
          size_t length = end - start;
          if (vocab_.type(id) == SpmVocab::kUserDefined)  // the lattice measures them in characters
            length = size_t(std::count_if(s + start, s + end, [](uint8_t b) { return (b & 0xC0) != 0x80; }));
          found.push_back(SpmLattice::Node{uint32_t(start), uint32_t(end), id, node_score(id, length)});
        });
    return SpmLattice(n, found);
  }

  struct Text {
    const uint8_t* s;
    size_t n;
    bool escape;  // " " reads as "▁"
  };
  // Where a text's ids go (begin..end), and the bytes each covers if wanted.
  struct Out {
    uint32_t* begin;
    uint32_t* end;
    uint32_t* lengths;  // null, or where the next id's length goes
  };
  static constexpr uint32_t kLengthShift = 24, kIdMask = (1u << kLengthShift) - 1;
  static constexpr size_t kMostInTable = 31;  // values a table entry holds
  static constexpr size_t kBatch = 16;        // segments whose table slots are fetched ahead together
  // utf8_length() by a byte's high four bits (no branches, for runs of characters of any length).
  static constexpr uint8_t kUtf8Lengths[16] = {1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 4};

  // A batch of segments' keys, computed ahead so that their table slots can be fetched. A
  // segment is one character, a run of lone unknowns (PieceAdjacency::lone_unknown), or a key.
  struct Batch {
    enum Kind : uint8_t { kOne, kUnknownRun, kShort, kMedium, kOther };
    uint8_t kind[kBatch];
    uint64_t hash[kBatch];
    ShortKey shorts[kBatch];
    MediumKey mediums[kBatch];
    // Segment p[0..m), whose first character has PieceAdjacency::info() `info` (where outside ASCII).
    void look_ahead(size_t k, const uint8_t* p, size_t m, uint32_t info, const Text& text, bool cacheable,
                    const PieceCache& paths) {
      if (m == utf8_length(p[0]) && m <= 3) {  // (PieceAdjacency::info() has the characters of up to 3 bytes)
        kind[k] = kOne;
      } else if (p[0] >= 0x80 && PieceAdjacency::lone_unknown(info)) {
        kind[k] = kUnknownRun;
      } else if (cacheable && m <= kShortPiece) {
        kind[k] = kShort;
        shorts[k] = short_key(p, m, text.s, text.s + text.n);
        paths.shorts.prefetch(hash[k] = shorts[k].hash());
      } else if (cacheable && m <= kMediumPiece) {
        kind[k] = kMedium;
        mediums[k] = medium_key(p, m);
        paths.mediums.prefetch(hash[k] = mediums[k].hash());
      } else {
        kind[k] = kOther;
      }
    }
  };
  // Per thread: the segments seen and their best paths (keys read with `escape`); a text's cuts
  // and batch; a segment's working state.
  struct Cache {
    PieceCache paths;
    bool escape = false;
    std::vector<uint32_t> cuts;   // segment starts, then the end (PieceAdjacency::cut_kept; longer than that)
    std::vector<uint32_t> infos;  // in step with cuts: the info() of a segment's first character outside ASCII
    IdBuffer out_lengths;         // a text's lengths, in step with paths.out
    Batch batch;
    std::vector<uint32_t> path;  // a limit (safe_limit), then nodes: id | bytes << kLengthShift
    uint32_t entry[kMostInTable + MediumPieceTable::kInlineIds];  // a path read from a table
    std::string expanded;                                         // a segment with its escaped spaces as "▁"
    std::vector<uint32_t> to_segment;  // by byte of `expanded`, and its end: the segment's byte
    // By byte of a segment (exact_path): the best sum of a path to it, the best other sum
    // (its rival), where the best path's last node starts (-1: none yet) and its id.
    struct Exact {
      double best, second;
      int64_t from;
      uint32_t node;
    };
    std::vector<Exact> exact;
    std::vector<uint32_t> ends;
    struct Best {
      float score = 0;
      uint32_t id = SpmVocab::kNone;
      int64_t starts_at = -1;
    };
    std::vector<Best> float_best;
    void trim() {  // after a huge text (see release_if_large)
      paths.trim();
      out_lengths.trim();
      release_if_large(cuts);
      release_if_large(infos);
      release_if_large(path);
      release_if_large(expanded);
      release_if_large(to_segment);
      release_if_large(exact);
      release_if_large(ends);
      release_if_large(float_best);
    }
  };
  // sentencepiece rebases its sums where the best score at a character's start leaves
  // [-kRebaseAt, kRebaseAt].
  static constexpr float kRebaseAt = 1e5f;
  // sentencepiece's best score at the start of a character where a segment begins (no node
  // from before it reaches past it): rebased to 0 where it has left [-kRebaseAt, kRebaseAt].
  static TF_INLINE float rebased(float sum) { return sum >= -kRebaseAt && sum <= kRebaseAt ? sum : 0.0f; }

  // A cache that remembered keys read with another escaping forgets them.
  static void reading(Cache& cache, bool escape) {
    if (cache.escape != escape) {  // " " stands for something else in the remembered keys
      cache.paths = PieceCache();
      cache.escape = escape;
    }
  }

  // encode's work past the cut: the text's cut_count cuts are in cache.cuts (infos in step).
  // Each segment's best path is remembered per thread (see append_segment), and the segments'
  // table slots are fetched a batch ahead.
  void encode_cut(const Text& text, size_t cut_count, std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths,
                  Cache& cache) const {
    const uint8_t* const s = text.s;
    const size_t n = text.n;
    cache.paths.out.reserve(n);  // at most one id per byte
    if (lengths) cache.out_lengths.reserve(n);
    Out out{cache.paths.out.begin(), cache.paths.out.begin(), lengths ? cache.out_lengths.begin() : nullptr};
    float so_far = 0;  // sentencepiece's best score at the start of the current segment
    const uint32_t* cuts = cache.cuts.data();
    const size_t segments = cut_count - 1;
    Batch& batch = cache.batch;
    for (size_t first = 0; first < segments; first += kBatch) {
      const size_t count = std::min(kBatch, segments - first);
      for (size_t k = 0; k < count; ++k)
        batch.look_ahead(k, s + cuts[first + k], cuts[first + k + 1] - cuts[first + k], cache.infos[first + k], text,
                         cacheable_, cache.paths);
      for (size_t k = 0; k < count; ++k) {
        if (batch.kind[k] == Batch::kOne) {
          k = out.lengths ? append_ones<true>(text, first, k, count, so_far, out, cache)
                          : append_ones<false>(text, first, k, count, so_far, out, cache);
          if (k == count) break;
        }
        append_segment(text, first + k, batch, k, so_far, out, cache);
      }
    }
    ids.insert(ids.end(), out.begin, out.end);
    if (lengths) lengths->insert(lengths->end(), cache.out_lengths.begin(), out.lengths);
  }

  // The id of a segment of each character alone (of the Basic Multilingual Plane), for cutting
  // (PieceAdjacency::info): its piece, where used.
  void index_characters() {
    char_nodes_.assign(PieceAdjacency::kCharacters, DoubleArrayTrie::kNone);
    for (uint32_t c = 0; c < PieceAdjacency::kCharacters; ++c) {
      uint8_t bytes[4];
      const size_t len = c >= 0xD800 && c < 0xE000 ? 0 : encode_utf8(c, bytes);  // (no surrogates in UTF-8)
      const uint32_t id =
          len ? vocab_.find(std::string_view(reinterpret_cast<const char*>(bytes), len)) : SpmVocab::kNone;
      if (id != SpmVocab::kNone && vocab_.type(id) != SpmVocab::kUnused && id < PieceAdjacency::kNoOne)
        adjacency_.set_one(c, id);
      uint32_t t = DoubleArrayTrie::kRoot;
      for (size_t i = 0; i < len && t != DoubleArrayTrie::kNone; ++i) t = trie_.child(t, bytes[i]);
      char_nodes_[c] = len ? t : DoubleArrayTrie::kNone;
    }
    for (int escape = 0; escape < 2; ++escape)
      for (uint32_t c = 0; c < 0x80; ++c)
        ascii_ones_[escape][c] = one_id(adjacency_.info(PieceAdjacency::read_char(c, escape)));
  }
  // The id of a segment of one character, from its PieceAdjacency::info().
  uint32_t one_id(uint32_t info) const {
    const uint32_t id = info & PieceAdjacency::kNoOne;
    return id == PieceAdjacency::kNoOne ? vocab_.unk_id() : id;
  }

  // Appends the batch's segments from slot k on (segment first + k) while they are one character
  // (Batch::kOne) with a piece of its own: one node each, no rival, so the sum is sentencepiece's
  // with its rebasing. Returns the slot where it stops (count, or one for append_segment).
  // (A loop of its own, with its state in locals: the registers of the loop around it are taken.)
  template <bool kLengths>
  TF_INLINE size_t append_ones(const Text& text, size_t first, size_t k, size_t count, float& so_far, Out& out,
                               const Cache& cache) const {
    const uint8_t* const kind = cache.batch.kind;
    const uint32_t* const cuts = cache.cuts.data() + first;
    const uint32_t* const infos = cache.infos.data() + first;
    const uint32_t* const ascii = ascii_ones_[text.escape];
    const float* const scores = node_scores_.data();
    const uint32_t unk = vocab_.unk_id();
    float sum = so_far;
    uint32_t* ids = out.end;
    uint32_t* lengths = out.lengths;
    for (; k < count && kind[k] == Batch::kOne; ++k) {
      const uint32_t start = cuts[k];
      const uint8_t lead = text.s[start];
      const uint32_t id = lead < 0x80 ? ascii[lead] : one_id(infos[k]);
      if (TF_UNLIKELY(id == unk)) break;
      sum = rebased(sum) + scores[id];
      *ids++ = id;
      if (kLengths) *lengths++ = cuts[k + 1] - start;
    }
    so_far = sum;
    out.end = ids;
    if (kLengths) out.lengths = lengths;
    return k;
  }

  // Appends segment `segment` of the text (between cache.cuts; batch slot k), with sentencepiece's
  // best score so far at its start (updated to its end). sentencepiece sums in float from the
  // start of the text, so a near tie may fall either way depending on the sum before it: a path remembered
  // from the segment alone (exact sums) is taken only where its margin over every rival at each
  // of its nodes exceeds what rounding can change at this magnitude; otherwise the segment is
  // searched again with sentencepiece's float sums (as also where those are about to be rebased).
  TF_INLINE void append_segment(const Text& text, size_t segment, const Batch& batch, size_t k, float& so_far, Out& out,
                                Cache& cache) const {
    const size_t start = cache.cuts[segment], end = cache.cuts[segment + 1];
    const uint8_t* p = text.s + start;
    const size_t m = end - start;
    if (batch.kind[k] == Batch::kOne) {  // one node, no rival
      const uint32_t id = p[0] < 0x80 ? ascii_ones_[text.escape][p[0]] : one_id(cache.infos[segment]);
      so_far = rebased(so_far) + node_scores_[id];
      return emit(id, p, m, out);
    }
    if (batch.kind[k] == Batch::kUnknownRun) return unknown_run(text, start, end, so_far, out);
    std::vector<uint32_t>& path = cache.path;
    // The path: its limit (float bits; see safe_limit), then its nodes; none: no path that may
    // be taken as it is. A path read from a table lands in cache.entry, up to entry_end. (path
    // keeps its last size until exact_path resizes it, which then only shrinks it, mostly.)
    const uint32_t* entry_end = nullptr;
    auto remembered = [&](auto& table, const auto& key) {
      if (const auto* e = table.find(key, batch.hash[k]))
        entry_end = table.emit(*e, cache.entry);
      else if (exact_path(text, p, m, cache) && path.size() <= kMostInTable)
        table.insert(key, batch.hash[k], path.data(), path.size());
    };
    PieceCache& paths = cache.paths;
    if (batch.kind[k] == Batch::kShort) {
      remembered(paths.shorts, batch.shorts[k]);
    } else if (batch.kind[k] == Batch::kMedium) {
      remembered(paths.mediums, batch.mediums[k]);
    } else if (cacheable_ && m <= PieceCache::kMaxBytes) {
      const uint64_t key = bytes_key(p, m);
      path.clear();  // (get_long appends)
      if (!paths.get_long(p, m, key, path) && exact_path(text, p, m, cache))
        paths.put_long(p, m, key, path.data(), path.size());
    } else {
      path.clear();
    }
    const uint32_t* nodes = entry_end ? cache.entry : path.data();
    const uint32_t* nodes_end = entry_end ? entry_end : path.data() + path.size();
    float limit = 0;
    if (nodes != nodes_end) std::memcpy(&limit, nodes, sizeof limit);
    if (!(std::fabs(so_far) < limit)) return float_path(text, start, end, so_far, out, cache);
    float sum = so_far;  // (kept in a register)
    for (const uint32_t* node = nodes + 1; node != nodes_end; ++node) {
      const uint32_t id = *node & kIdMask, bytes = *node >> kLengthShift;
      sum += node_scores_[id];  // the sum sentencepiece makes, in its order
      emit(id, p, bytes, out);
      p += bytes;
    }
    so_far = sum;
  }

  // Appends a run of lone unknowns s[start..end) (characters of up to 3 bytes, each with an
  // unknown node alone): sentencepiece adds the unknown's score once per character (rebasing
  // the sum at a character's start as it does), and the ids are one unknown (or bytes).
  TF_INLINE void unknown_run(const Text& text, size_t start, size_t end, float& so_far, Out& out) const {
    const float score = node_scores_[vocab_.unk_id()];
    float sum = so_far;  // (in a register)
    // Where no sum can reach the rebasing, the sums need no test: the k-th is within |so_far| +
    // k |score| of zero exactly (k at most the run's bytes), and k float additions move it by
    // at most k half-spacings (2^-24 of it each).
    const double bytes = double(end - start);
    if ((double(std::fabs(sum)) + bytes * std::fabs(double(score))) * (1.0 + bytes * 0x1p-23) < double(kRebaseAt)) {
      for (size_t at = start; at < end; at += kUtf8Lengths[text.s[at] >> 4]) sum += score;
    } else {
      for (size_t at = start; at < end; at += kUtf8Lengths[text.s[at] >> 4]) sum = rebased(sum) + score;
    }
    so_far = sum;
    emit(vocab_.unk_id(), text.s + start, end - start, out);
  }

  // Appends node `id` over the model's input p[0..bytes) (as SpmVocab::write: byte fallback and
  // unknown runs for the unknown id, whose character is never an escaped space).
  TF_INLINE void emit(uint32_t id, const uint8_t* p, size_t bytes, Out& out) const {
    if (TF_UNLIKELY(id == vocab_.unk_id())) {
      if (out.end != out.begin && vocab_.continues_unknown_run(id, out.end[-1])) {  // (as SpmVocab::write)
        if (out.lengths) out.lengths[-1] += uint32_t(bytes);
        return;
      }
      if (vocab_.byte_fallback()) {  // (else written as any id; through a copy, as float_path)
        Out o = out;
        emit_unknown(p, bytes, o);
        out = o;
        return;
      }
    }
    *out.end++ = id;
    if (out.lengths) *out.lengths++ = uint32_t(bytes);
  }
  TF_NOINLINE void emit_unknown(const uint8_t* p, size_t bytes, Out& out) const {
    const size_t written = vocab_.write(vocab_.unk_id(), std::string_view(reinterpret_cast<const char*>(p), bytes),
                                        out.begin, out.end, out.lengths);
    out.end += written;
    if (out.lengths) out.lengths += written;
  }

  // How large sentencepiece's sum before a segment of m bytes may be for the segment's exact
  // best path, which beats every rival at each of its nodes by `margin`, to be its path too.
  // Each float addition rounds by at most half the spacing of floats where the sums lie (below
  // |sum| + m * the largest score), and a node's sum takes at most m of them, so margin >
  // m * that spacing suffices. The sums must also stay inside sentencepiece's rebasing (within
  // kRebaseAt, each off by at most m half-spacings of 2^-7 there).
  float safe_limit(double margin, size_t m) const {
    const double spacing_below = margin / double(m);  // the spacing must stay below this
    if (!(spacing_below > 0)) return 0;
    double limit = double(kRebaseAt) - double(m) * 0x1p-8;
    if (spacing_below < 1.0) {
      // Floats in [2^e, 2^(e+1)) are 2^(e-23) apart: take the largest e with 2^(e-23) < spacing_below.
      // (From the double's bits: ilogb() is its exponent, and 2^ilogb() equals it where its
      // mantissa is zero. A subnormal one leaves a limit below 2^-999: none.)
      uint64_t bits;
      std::memcpy(&bits, &spacing_below, sizeof bits);
      const int exponent = int(bits >> 52);  // (positive: no sign bit)
      if (exponent == 0) return 0;
      const int e = exponent - 1023 + 23 - int((bits & ((uint64_t(1) << 52) - 1)) == 0);
      const uint64_t power_bits = uint64_t(e + 1 + 1023) << 52;  // 2^(e + 1), a normal double
      double power;
      std::memcpy(&power, &power_bits, sizeof power);
      limit = std::min(limit, power * (1 - 1e-6));  // (slack for the sums' own error)
    }
    limit -= double(m) * max_abs_score_ + 1.0;
    if (limit <= 0) return 0;
    const float rounded = float(limit);
    return double(rounded) > limit ? std::nextafter(rounded, 0.0f) : rounded;
  }

  // Segment p[0..m) as the lattice reads it: with escaped spaces, a copy with "▁" for each " "
  // (and in cache.to_segment, for each of its bytes and its end, the segment's byte).
  std::string_view lattice_text(const Text& text, const uint8_t* p, size_t m, Cache& cache) const {
    const std::string_view segment(reinterpret_cast<const char*>(p), m);
    if (!text.escape || segment.find(' ') == std::string_view::npos) return segment;
    const size_t lm = m + 2 * size_t(std::count(segment.begin(), segment.end(), ' '));
    std::string& out = cache.expanded;
    std::vector<uint32_t>& to = cache.to_segment;
    out.resize(lm);  // (then written in place)
    to.resize(lm + 1);
    char* o = &out[0];
    uint32_t* t = to.data();
    for (size_t i = 0; i < m; ++i) {
      if (p[i] == ' ') {
        *o++ = '\xE2';
        *o++ = '\x96';
        *o++ = '\x81';
        *t++ = uint32_t(i);
        *t++ = uint32_t(i);
      } else {
        *o++ = char(p[i]);
      }
      *t++ = uint32_t(i);
    }
    *t = uint32_t(m);
    return out;
  }
  // The segment's byte for byte `at` of lattice_text(), or its end.
  static uint32_t segment_byte(std::string_view lattice, size_t m, const Cache& cache, size_t at) {
    return lattice.size() == m ? uint32_t(at) : cache.to_segment[at];
  }

  // The best path of segment p[0..m) alone with exact sums (doubles of the float scores), into
  // cache.path after its safe_limit(), from its margin: the least by which its node beats the
  // best rival ending at the same place, at each of its nodes. False (and path empty) where the
  // path cannot be stored.
  bool exact_path(const Text& text, const uint8_t* p, size_t m, Cache& cache) const {
    const std::string_view lattice = lattice_text(text, p, m, cache);
    const size_t lm = lattice.size();
    const double none = -std::numeric_limits<double>::infinity();
    if (cache.exact.size() < lm + 1) cache.exact.resize(lm + 1);  // (kept: only `from` is reset below)
    Cache::Exact* const at = cache.exact.data();
    at[0] = Cache::Exact{0, none, -1, 0};
    for (size_t i = 1; i <= lm; ++i) at[i].from = -1;  // (a start is read only once a node ends there)
    for_each_node(
        reinterpret_cast<const uint8_t*>(lattice.data()), lm, [](size_t) {},
        [&](size_t start, size_t end, uint32_t id) {
          const double candidate = at[start].best + double(node_scores_[id]);
          Cache::Exact& e = at[end];
          if (e.from == -1) {
            e = Cache::Exact{candidate, none, int64_t(start), id};
          } else if (candidate > e.best) {
            e.second = e.best;
            e.best = candidate;
            e.node = id;
            e.from = int64_t(start);
          } else {
            e.second = std::max(e.second, candidate);
          }
        });
    std::vector<uint32_t>& path = cache.path;
    size_t count = 1;  // the limit, then the nodes: written from the back
    for (int64_t end = int64_t(lm); end > 0; end = at[end].from) ++count;
    path.resize(count);
    uint32_t* w = path.data() + count;
    double margin = std::numeric_limits<double>::infinity();
    for (int64_t end = int64_t(lm); end > 0; end = at[end].from) {
      margin = std::min(margin, at[end].best - at[end].second);
      const size_t bytes =
          segment_byte(lattice, m, cache, size_t(end)) - segment_byte(lattice, m, cache, size_t(at[end].from));
      if (bytes >= (size_t(1) << (32 - kLengthShift))) {
        path.clear();  // a node too long to store
        return false;
      }
      *--w = at[end].node | uint32_t(bytes) << kLengthShift;
    }
    const float limit = safe_limit(margin, lm);
    std::memcpy(path.data(), &limit, sizeof limit);
    return true;
  }

  // Appends segment s[start..end) as sentencepiece's own search finds it, given its best score
  // so far at the start (updated to the end): float sums, the first of equal ones kept, and all
  // rebased when the best score at a start leaves [-1e5, 1e5].
  // (Through copies, so that the caller's sum and Out, whose addresses go no further, stay in
  // registers.)
  TF_INLINE void float_path(const Text& text, size_t start, size_t end, float& so_far, Out& out, Cache& cache) const {
    float sum = so_far;
    Out o = out;
    search_float_path(text, start, end, sum, o, cache);
    so_far = sum;
    out = o;
  }
  TF_NOINLINE void search_float_path(const Text& text, size_t start, size_t end, float& so_far, Out& out,
                                     Cache& cache) const {
    const uint8_t* p = text.s + start;
    const size_t m = end - start;
    const std::string_view lattice = lattice_text(text, p, m, cache);
    const size_t lm = lattice.size();
    std::vector<Cache::Best>& best = cache.float_best;
    best.assign(lm + 1, Cache::Best{});
    best[0].score = so_far;
    auto begin = [&](size_t from) {
      so_far = best[from].score;
      if (so_far >= -kRebaseAt && so_far <= kRebaseAt) return;
      for (size_t i = from; i <= std::min(lm, from + longest_); ++i)  // past it nothing is set yet
        if (i == from || best[i].starts_at != -1) best[i].score -= so_far;
      so_far = 0;
    };
    auto relax = [&](size_t from, size_t to, uint32_t id) {
      const float candidate = so_far + node_scores_[id];
      Cache::Best& target = best[to];
      if (target.starts_at == -1 || candidate > target.score) target = Cache::Best{candidate, id, int64_t(from)};
    };
    for_each_node(reinterpret_cast<const uint8_t*>(lattice.data()), lm, begin, relax);
    so_far = best[lm].score;
    std::vector<uint32_t>& ends = cache.ends;  // the path's node ends, last first
    ends.clear();
    for (int64_t to = int64_t(lm); to > 0; to = best[to].starts_at) ends.push_back(uint32_t(to));
    uint32_t from = 0;
    for (auto it = ends.rbegin(); it != ends.rend(); from = *it++) {
      const uint32_t a = segment_byte(lattice, m, cache, from), b = segment_byte(lattice, m, cache, *it);
      emit(best[*it].id, p + a, b - a, out);
    }
  }

  // A node's score; a user-defined symbol's depends on its length (in bytes or characters).
  float node_score(uint32_t id, size_t length) const {
    if (id == vocab_.unk_id()) return min_score_ - 10.0f;
    if (vocab_.type(id) == SpmVocab::kUserDefined) return float(double(length - 1) * 0.1);
    return vocab_.score(id);
  }

  void emit_path(const uint8_t* s, const SpmLattice& lattice, const std::vector<uint32_t>& path,
                 std::vector<uint32_t>& ids) const {
    const size_t first = ids.size();
    for (uint32_t i : path) {
      const SpmLattice::Node& node = lattice.node(i);
      vocab_.emit(node.id, std::string_view(reinterpret_cast<const char*>(s) + node.start, node.end - node.start),
                  first, ids);
    }
  }

  SpmVocab vocab_;
  DoubleArrayTrie trie_;              // each piece the lattice has (no unused one) -> its id
  std::vector<uint32_t> char_nodes_;  // by character of the Basic Multilingual Plane: trie_'s node past its bytes
  float min_score_ = FLT_MAX;
  size_t longest_ = 4;                 // bytes of the longest node: a piece, or an unknown character
  double max_abs_score_ = 0;           // the largest magnitude of a node's score (a node has a byte at least)
  std::vector<float> node_scores_;     // by id, as the Viterbi search scores a node of the piece
  PieceAdjacency adjacency_;           // where texts are cut, and the id of each character alone
  bool cacheable_ = false;             // ids fit the remembered paths
  uint32_t ascii_ones_[2][0x80] = {};  // [escape][c]: the id of a segment of ASCII c alone
  mutable Pool<Cache> caches_;
};

}  // namespace tokenforge
