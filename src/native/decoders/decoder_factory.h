// Builds a staged-pipeline decoder (decoders/decoder.h) from its tokenizer.json description: the
// type name and options (pipelines/stage_options.h).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "decoders/byte_fallback_decoder.h"
#include "decoders/byte_level_decoder.h"
#include "decoders/decoder.h"
#include "decoders/decoder_sequence.h"
#include "decoders/metaspace_decoder.h"
#include "decoders/simple_decoders.h"
#include "decoders/wordpiece_stage_decoder.h"
#include "pipelines/stage_options.h"

namespace tokenforge {

std::unique_ptr<Decoder> make_decoder(const OptionValue& component);

namespace decoder_makers {

inline std::unique_ptr<Decoder> wordpiece(OptionReader& o) {
  std::string prefix = o.get_string("prefix", "##");
  return std::make_unique<WordPieceStageDecoder>(std::move(prefix), o.get_bool("cleanup", true));
}
inline std::unique_ptr<Decoder> byte_level(OptionReader& o) {
  o.get_bool("add_prefix_space", true);  // the pre-tokenizer's options, unused here
  o.get_bool("trim_offsets", true);
  o.get_bool("use_regex", true);
  return std::make_unique<ByteLevelDecoder>();
}
inline std::unique_ptr<Decoder> metaspace(OptionReader& o) {
  std::string replacement = o.get_char("replacement", "\xE2\x96\x81");
  const int add_prefix_space = o.get_optional_bool("add_prefix_space", -1);
  const std::string scheme = o.get_string("prepend_scheme", add_prefix_space == 0 ? "never" : "always");
  if (scheme != "always" && scheme != "first" && scheme != "never")
    o.fail("unknown prepend_scheme '" + scheme + "' (always, first, never)");
  o.get_bool("split", true);
  return std::make_unique<MetaspaceDecoder>(std::move(replacement), scheme != "never");
}
inline std::unique_ptr<Decoder> byte_fallback(OptionReader&) { return std::make_unique<ByteFallbackDecoder>(); }
inline std::unique_ptr<Decoder> fuse(OptionReader&) { return std::make_unique<FuseDecoder>(); }
inline std::unique_ptr<Decoder> strip(OptionReader& o) {
  const std::string content = o.get_char("content", " ");
  size_t len;
  const uint32_t cp = decode_utf8(reinterpret_cast<const uint8_t*>(content.data()), content.size(), len);
  const size_t start = size_t(o.get_int("start", 0));
  const size_t stop = size_t(o.get_int("stop", 0));
  return std::make_unique<StripDecoder>(cp, start, stop);
}
inline std::unique_ptr<Decoder> replace(OptionReader& o) {
  bool is_regex = false;
  std::string pattern = o.get_pattern("pattern", is_regex);
  o.get("content", true);
  std::string content = o.get_string("content", "");
  std::shared_ptr<const Regex> regex = is_regex ? std::make_shared<const Regex>(pattern) : nullptr;
  return std::make_unique<ReplaceDecoder>(std::move(pattern), std::move(content), std::move(regex));
}
inline std::unique_ptr<Decoder> bpe(OptionReader& o) {
  return std::make_unique<BpeDecoder>(o.get_string("suffix", "</w>"));
}
inline std::unique_ptr<Decoder> ctc(OptionReader& o) {
  std::string pad = o.get_string("pad_token", "<pad>");
  std::string delimiter = o.get_string("word_delimiter_token", "|");
  return std::make_unique<CtcDecoder>(std::move(pad), std::move(delimiter), o.get_bool("cleanup", true));
}
inline std::unique_ptr<Decoder> sequence(OptionReader& o) {
  const OptionValue& list = o.get("decoders", true);
  if (list.kind != OptionValue::Kind::kList) o.fail("option 'decoders' must be a list");
  std::vector<std::unique_ptr<Decoder>> parts;
  for (const OptionValue& part : list.list) parts.push_back(make_decoder(part));
  return std::make_unique<DecoderSequence>(std::move(parts));
}

}  // namespace decoder_makers

inline const ComponentFactory<Decoder>& decoder_factory() {
  using namespace decoder_makers;
  static const ComponentFactory<Decoder> factory("decoder", {{"WordPiece", wordpiece},
                                                             {"ByteLevel", byte_level},
                                                             {"Metaspace", metaspace},
                                                             {"ByteFallback", byte_fallback},
                                                             {"Fuse", fuse},
                                                             {"Strip", strip},
                                                             {"Replace", replace},
                                                             {"BPEDecoder", bpe},
                                                             {"CTC", ctc},
                                                             {"Sequence", sequence}});
  return factory;
}

inline std::unique_ptr<Decoder> make_decoder(const OptionValue& component) { return decoder_factory().make(component); }

}  // namespace tokenforge
