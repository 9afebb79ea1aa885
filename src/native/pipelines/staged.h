// The general staged pipeline: any HF tokenizer.json pipeline, stage by stage, as HF tokenizers
// runs it (tokenizer/mod.rs, encode_single_sequence): added tokens are matched as HF's
// AddedVocabulary does (added_tokens/special_matcher.h: the raw ones in the raw text, then the
// normalized ones in the normalized stretches between them); each stretch is normalized (normalizers/normalizer.h) into
// a NormalizedText (text/normalized_text.h) that remembers, per byte, the input bytes it came from; the pre-tokenizer
// (pre_tokenizers/pre_tokenizer.h) cuts the pieces (text/pre_tokenized_text.h); the model (models/model.h) turns each
// piece into tokens, whose offsets map back through the alignments to input bytes and then to input code points (HF's
// BytesToCharOffsetConverter). The post-processor (processors/post_processing.h) then adds the template, truncates and
// pads; decode() runs the decoder (decoders/decoder.h) over the tokens' texts.
//
// Where the pre-tokenizer only cuts (a Cutter: Whitespace, BertPreTokenizer, Split, Digits, ...,
// or a Sequence of them) or there is none, no piece gets a NormalizedText of its own: the pieces
// stay byte spans of their stretch's one normalized text, the model reads them in place and
// their offsets map back through that text's alignments (for_each_piece, exactly as slices
// would). encode_ids gives the ids alone (no offsets, words or names) for the ids-first path
// of python/py_pipeline.h.
//
// The fused pipelines (wordpiece_tokenizer.h, byte_level_bpe.h, spm_tokenizer.h) are the fast
// paths for their families; this one runs the rest, and where both apply they agree. Each stage
// is built by its factory from the description (pipelines/stage_options.h); encode is const and
// thread-safe (components keep no state).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "added_tokens/special_matcher.h"
#include "decoders/decoder.h"
#include "decoders/decoder_factory.h"
#include "models/model.h"
#include "models/model_factory.h"
#include "models/unigram/unigram_model.h"
#include "normalizers/normalizer.h"
#include "normalizers/normalizer_factory.h"
#include "pipelines/stage_options.h"
#include "pre_tokenizers/pre_tokenizer.h"
#include "pre_tokenizers/pre_tokenizer_factory.h"
#include "processors/offset_trim.h"
#include "processors/post_processing.h"
#include "text/pre_tokenized_text.h"

namespace tokenforge {

// A pipeline as tokenizer.json describes it: each stage a component dict with its "type"
// (null: no such stage; the model is required), the model's vocabulary apart.
struct StagedDescription {
  OptionValue normalizer, pre_tokenizer, decoder;
  std::string model_type;
  OptionValue model_options;
  Vocabulary vocab;
  // The ByteLevel (or RobertaProcessing) post-processor's trim_offsets: each token's offsets
  // leave out the spaces its text starts and ends with (HF's process_offsets), except the one
  // space add_prefix_space put before the first token. names: the token text by id.
  bool trim_offsets = false, trim_add_prefix_space = false;
  std::vector<std::string> names;
  // A BPE model's merges in rank order, where the binding read them apart from model_options
  // (python/stage_convert.h, take_merges: a 150,000-merge list is read straight into pairs, not
  // into option values first); model_options then holds none. merges_given: these are the merges.
  HfBpeModel::Merges merges;
  bool merges_given = false;
};

// Input byte offsets to code-point offsets, as HF's BytesToCharOffsetConverter (an end inside a
// character maps to that character's index; a start past the text leaves the offsets in bytes).
class CharOffsets {
 public:
  CharOffsets(const uint8_t* s, size_t n) : n_(n) {
    bool ascii = true;
    for (size_t i = 0; i < n && ascii; ++i) ascii = s[i] < 0x80;
    if (ascii) return;
    char_of_.resize(n);
    uint32_t c = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && (s[i] & 0xC0) != 0x80) ++c;
      char_of_[i] = c;
    }
  }
  std::pair<uint32_t, uint32_t> convert(uint32_t start, uint32_t end) const {
    if (start >= n_) return {start, end};
    const uint32_t s = at(start);
    if (end < n_) return {s, at(end)};
    if (end == n_) return {s, at(end - 1) + 1};
    // Past the text (a byte-fallback token of an affix's bytes): HF's converter finds no
    // character at end - 1 either and takes the start's next one as the last.
    return {s, s + 2};
  }

 private:
  uint32_t at(size_t i) const { return char_of_.empty() ? uint32_t(i) : char_of_[i]; }
  size_t n_;
  std::vector<uint32_t> char_of_;  // empty: ASCII, byte i is character i
};

class StagedPipeline {
 public:
  explicit StagedPipeline(const StagedDescription& d) {
    if (d.normalizer.kind != OptionValue::Kind::kNull) normalizer_ = make_normalizer(d.normalizer);
    if (d.pre_tokenizer.kind != OptionValue::Kind::kNull) pre_tokenizer_ = make_pre_tokenizer(d.pre_tokenizer);
    model_ = make_model(d.model_type, d.model_options, d.vocab, d.merges_given ? &d.merges : nullptr);
    if (d.model_type == "Unigram") {  // HF shows an unknown piece as the text it covers
      const auto& unigram = static_cast<const UnigramModel&>(*model_);
      unk_id_ = unigram.unk_id();
      for (const auto& [piece, id] : unigram.ids()) {
        if (id == unk_id_) unk_piece_ = piece;
        // (a Unigram vocabulary is its pieces, not d.vocab: hidden tokens as below)
        if (id < d.names.size() && d.names[id] != piece) hidden_.emplace_back(id, piece);
      }
    }
    if (d.decoder.kind != OptionValue::Kind::kNull) decoder_ = make_decoder(d.decoder);
    name_size_.resize(d.names.size());
    for (size_t id = 0; id < d.names.size(); ++id) name_size_[id] = uint32_t(d.names[id].size());
    // A vocabulary token whose id an added token names (HF gives an added token the next id
    // after the vocabulary's count, which a BPE or WordLevel vocabulary with an id gap may use):
    // the model's tokens of that id still show the model's text (HF's Token value).
    for (const auto& [token, id] : d.vocab)
      if (id < d.names.size() && d.names[id] != token) hidden_.emplace_back(id, token);
    if (d.trim_offsets) trim_ = OffsetTrim(d.names, d.trim_add_prefix_space);
  }

  // The pipeline's contract (see pipelines/wordpiece_tokenizer.h): one text or a pair, through
  // the post-processor `post`; `added` (may be null) finds the added tokens in the raw text.
  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special,
                 const SpecialMatcher* added, const PostProcessor& post) const {
    if (trim_.on() && post.truncate)  // (trimmed after truncation, each part on its own)
      return trim_.encode_truncated(*this, a, na, b, nb, pair, add_special, added, post);
    Encoded first = encode_sequence(a, na, added);
    if (!pair) return process_keeping_texts(post, std::move(first), nullptr, add_special);
    Encoded second = encode_sequence(b, nb, added);
    return process_keeping_texts(post, std::move(first), &second, add_special);
  }

  // The model's tokens for one text, before post-processing.
  Encoded encode_sequence(const uint8_t* s, size_t n, const SpecialMatcher* added, bool trim = true) const {
    const CharOffsets chars(s, n);
    Encoded e;
    e.rows.reserve(n / 4 + 8);
    std::vector<ModelToken> tokens;
    std::string scratch;  // (a piece for a model that reads std::string)
    uint32_t word = 0;    // HF's word id: the piece's index (into_encoding)
    for_each_piece(
        s, n, added,
        [&](const NormalizedText& t, size_t from, size_t to, std::string_view piece) {
          tokens.clear();
          model_->tokenize_view(piece, scratch, tokens);
          for (const ModelToken& tok : tokens) {
            const NormalizedText::Span span = t.piece_to_original(from, to, tok.start, tok.end);
            const auto [start, end] = chars.convert(span.start, span.end);
            push_row(e.rows, tok.id, start, end, word);
            if (tok.id == unk_id_) {
              const std::string covered(piece.substr(tok.start, tok.end - tok.start));
              if (covered != unk_piece_)
                e.texts.push_back(TokenText{tok.id, word, start, end, 0, covered, uint32_t(e.rows.size() - 1)});
            }
            e.show_hidden(e.rows.size() - 1, hidden_);
          }
          ++word;
        },
        [&](const NormalizedText& matched, uint32_t id, bool grown) {
          const NormalizedText::Span span = matched.original();
          const auto [start, end] = chars.convert(span.start, span.end);
          push_row(e.rows, id, start, end, word++);
          // HF's token is the text matched: where lstrip / rstrip moved the span, not the name
          // (even at the name's length: an lstrip span that starts where an rstrip match before it
          // ended shows "world " for " world").
          if (grown || id >= name_size_.size() || matched.size() != name_size_[id])
            e.rows.back().name = e.name_slot(matched.text());
        });
    // (trim_offsets counts the spaces of the text a row shows: its name)
    e.texts_to_names();
    if (trim) trim_.apply(e);
    return e;
  }

  // Whether trim_offsets runs (processors/offset_trim.h; pre-tokenized input, python/py_pipeline.h,
  // trims the whole sequence's rows once its words are joined, as HF's post-processor does).
  const OffsetTrim& offset_trim() const { return trim_; }

  // Itself: the staged pipeline of its file (as the fused kernels built on it answer staged()).
  const StagedPipeline& staged() const { return *this; }

  // Ids first (python/py_pipeline.h): the ids encode_sequence's rows would hold, appended to
  // `out`, without the offsets, words and names.
  bool encode_ids(const uint8_t* s, size_t n, const SpecialMatcher* added, std::vector<uint32_t>& out) const {
    std::vector<ModelToken> tokens;
    std::string scratch;
    out.reserve(out.size() + n / 4 + 8);
    for_each_piece(
        s, n, added,
        [&](const NormalizedText&, size_t, size_t, std::string_view piece) {
          model_->tokenize_ids(piece, scratch, tokens, out);
        },
        [&](const NormalizedText&, uint32_t id, bool) { out.push_back(id); }, false);
    return true;
  }

  // Each piece the model sees, in order: on_piece(t, from, to, text) for the bytes [from, to)
  // of the normalized text t (text: a view of those bytes), on_added(matched, id, grown) for an added
  // token matched (its own NormalizedText). Where the pre-tokenizer only cuts (or there is
  // none), the pieces are spans of one normalized stretch, cut straight from its text; else
  // they come from pre_tokenized(), each a NormalizedText of its own (from 0, to its size).
  // Without `offsets` (a caller that reads only the pieces' bytes and the added tokens' ids), the
  // stretches cut straight keep no alignments where no normalized added token is matched in them.
  template <class OnPiece, class OnAdded>
  void for_each_piece(const uint8_t* s, size_t n, const SpecialMatcher* added, OnPiece&& on_piece, OnAdded&& on_added,
                      bool offsets = true) const {
    if (pre_tokenizer_ && !pre_tokenizer_->only_cuts()) {
      const PreTokenizedText pieces = pre_tokenized(s, n, added);
      for (const TextPiece& p : pieces.pieces()) {
        if (p.is_added)
          on_added(p.text, p.added_id, p.grown);
        else
          on_piece(p.text, 0, p.text.size(), std::string_view(p.text.text()));
      }
      return;
    }
    std::vector<Cut> cuts;
    stretches(
        s, n, added,
        [&](NormalizedText& t, size_t from, size_t to, bool) {
          const std::string& text = t.text();
          auto give = [&](size_t a, size_t b) { on_piece(t, a, b, std::string_view(text).substr(a, b - a)); };
          if (!pre_tokenizer_) {
            if (from < to) give(from, to);
            return;
          }
          cuts.clear();
          pre_tokenizer_->cut(std::string_view(text).substr(from, to - from), cuts);
          for (const Cut& c : cuts) give(from + c.start, from + c.end);
        },
        on_added, offsets || (added && !added->normalized().empty()));
  }

  // The pieces the model would see: HF's AddedVocabulary::extract_and_normalize (the raw
  // tokens matched in the input, the stretches between them normalized, the normalized tokens
  // matched in those), then pre-tokenized.
  PreTokenizedText pre_tokenized(const uint8_t* s, size_t n, const SpecialMatcher* added) const {
    PreTokenizedText pieces;
    stretches(
        s, n, added,
        [&](NormalizedText& t, size_t from, size_t to, bool whole) {
          if (whole)
            pieces.add_text(std::move(t));
          else
            pieces.add_text(t.slice(from, to));
        },
        [&](NormalizedText&& matched, uint32_t id, bool grown) { pieces.add_token(std::move(matched), id, grown); });
    if (pre_tokenizer_) pre_tokenizer_->pre_tokenize(pieces);
    return pieces;
  }

  // HF's AddedVocabulary::extract_and_normalize, in order: on_text(t, from, to, whole) for the
  // bytes [from, to) of a normalized stretch t (the input between raw added tokens, normalized
  // and resliced as HF slices it; given several times, for the parts between its normalized
  // added tokens, or once whole, when t may be moved from), on_added(matched, id, grown) for an
  // added token matched (a slice of the input or of t).
  // Without `offsets`, the stretches keep no alignments (NormalizedText's constructor).
  template <class OnText, class OnAdded>
  void stretches(const uint8_t* s, size_t n, const SpecialMatcher* added, OnText&& on_text, OnAdded&& on_added,
                 bool offsets = true) const {
    const char* text = reinterpret_cast<const char*>(s);
    auto add_text = [&](size_t from, size_t to) {
      NormalizedText t(text + from, to - from, uint32_t(from), offsets);
      if (normalizer_) normalizer_->normalize(t);
      t.reslice();
      if (!added || added->normalized().empty()) {
        on_text(t, 0, t.size(), true);
        return;
      }
      const std::string& normalized = t.text();
      find_added(
          added->normalized(), reinterpret_cast<const uint8_t*>(normalized.data()), normalized.size(),
          [&](size_t a, size_t b) { on_text(t, a, b, false); },
          [&](const SpecialMatch& m) { on_added(t.slice(m.pos, m.pos + m.len), m.id, m.grown); });
    };
    if (added && !added->raw().empty()) {
      find_added(added->raw(), s, n, add_text, [&](const SpecialMatch& m) {
        on_added(NormalizedText(text + m.pos, m.len, uint32_t(m.pos)), m.id, m.grown);
      });
    } else if (n > 0) {
      add_text(0, n);
    }
  }

  // The normalizer's text for s (HF's normalize_str).
  std::string normalized(const uint8_t* s, size_t n) const {
    NormalizedText t(reinterpret_cast<const char*>(s), n, 0);
    if (normalizer_) normalizer_->normalize(t);
    return t.text();
  }

  // The decoder over the tokens' texts, joined (HF's Tokenizer::decode after the ids are
  // named); without a decoder the texts are joined by spaces.
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

 private:
  // A Unigram model's unknown id (rows of it that cover other text are named by that text, as
  // HF's) and its piece; kNoToken for other models.
  uint32_t unk_id_ = kNoToken;
  std::string unk_piece_;
  OffsetTrim trim_;                  // ByteLevel's trim_offsets (off: not trimmed)
  std::vector<uint32_t> name_size_;  // per id: the bytes of its name
  HiddenTokens hidden_;              // (id, the model's text) where a name hides it
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Decoder> decoder_;
};

}  // namespace tokenforge
