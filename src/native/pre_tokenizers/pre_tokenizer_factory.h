// Builds a staged-pipeline pre-tokenizer (pre_tokenizers/pre_tokenizer.h) from its
// tokenizer.json description: the type name and options (pipelines/stage_options.h). Split
// with a regex pattern matches with pre_tokenizers/regex.h (Oniguruma, as HF).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pipelines/stage_options.h"
#include "pre_tokenizers/bert_pre_tokenizer.h"
#include "pre_tokenizers/byte_level.h"
#include "pre_tokenizers/char_delimiter_split.h"
#include "pre_tokenizers/digits.h"
#include "pre_tokenizers/fixed_length.h"
#include "pre_tokenizers/metaspace.h"
#include "pre_tokenizers/pre_tokenizer.h"
#include "pre_tokenizers/pre_tokenizer_sequence.h"
#include "pre_tokenizers/regex.h"
#include "pre_tokenizers/punctuation.h"
#include "pre_tokenizers/split.h"
#include "pre_tokenizers/unicode_scripts.h"
#include "pre_tokenizers/whitespace.h"

namespace tokenforge {

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const OptionValue& component);

namespace pre_tokenizer_makers {

inline SplitBehavior behavior(OptionReader& o, const char* fallback) {
  const std::string name = o.get_string("behavior", fallback);
  SplitBehavior b;
  if (!split_behavior_of(name, b))
    o.fail("unknown behavior '" + name + "' (Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)");
  return b;
}
inline uint32_t code_point_of(const std::string& one_char) {
  size_t len;
  return decode_utf8(reinterpret_cast<const uint8_t*>(one_char.data()), one_char.size(), len);
}

inline std::unique_ptr<PreTokenizer> bert(OptionReader&) { return std::make_unique<BertPreTokenizer>(); }
inline std::unique_ptr<PreTokenizer> whitespace(OptionReader&) { return std::make_unique<WhitespacePreTokenizer>(); }
inline std::unique_ptr<PreTokenizer> whitespace_split(OptionReader&) {
  return std::make_unique<WhitespaceSplitPreTokenizer>();
}
inline std::unique_ptr<PreTokenizer> punctuation(OptionReader& o) {
  return std::make_unique<PunctuationPreTokenizer>(behavior(o, "Isolated"));
}
inline std::unique_ptr<PreTokenizer> digits(OptionReader& o) {
  return std::make_unique<DigitsPreTokenizer>(o.get_bool("individual_digits", false));
}
inline std::unique_ptr<PreTokenizer> char_delimiter_split(OptionReader& o) {
  o.get("delimiter", true);
  return std::make_unique<CharDelimiterSplitPreTokenizer>(code_point_of(o.get_char("delimiter", " ")));
}
inline std::unique_ptr<PreTokenizer> metaspace(OptionReader& o) {
  std::string replacement = o.get_char("replacement", "\xE2\x96\x81");
  // tokenizer.json files from before prepend_scheme carry add_prefix_space instead
  const int add_prefix_space = o.get_optional_bool("add_prefix_space", -1);
  const std::string scheme = o.get_string("prepend_scheme", add_prefix_space == 0 ? "never" : "always");
  MetaspacePreTokenizer::Prepend prepend = MetaspacePreTokenizer::Prepend::kAlways;
  if (scheme == "first")
    prepend = MetaspacePreTokenizer::Prepend::kFirst;
  else if (scheme == "never")
    prepend = MetaspacePreTokenizer::Prepend::kNever;
  else if (scheme != "always")
    o.fail("unknown prepend_scheme '" + scheme + "' (always, first, never)");
  const bool split = o.get_bool("split", true);
  return std::make_unique<MetaspacePreTokenizer>(std::move(replacement), prepend, split);
}
inline std::unique_ptr<PreTokenizer> byte_level(OptionReader& o) {
  const bool add_prefix_space = o.get_bool("add_prefix_space", true);
  o.get_bool("trim_offsets", true);  // the post-processor's business
  const bool use_regex = o.get_bool("use_regex", true);
  return std::make_unique<ByteLevelPreTokenizer>(add_prefix_space, use_regex);
}
inline std::unique_ptr<PreTokenizer> split(OptionReader& o) {
  bool is_regex = false;
  std::string pattern = o.get_pattern("pattern", is_regex);
  o.get("behavior", true);
  const SplitBehavior b = behavior(o, "Removed");
  const bool invert = o.get_bool("invert", false);
  if (is_regex)
    return std::make_unique<SplitPreTokenizer>(SplitPreTokenizer::matcher_of(std::make_shared<const Regex>(pattern)), b,
                                               invert);
  return std::make_unique<SplitPreTokenizer>(SplitPreTokenizer::string_matcher(std::move(pattern)), b, invert);
}
inline std::unique_ptr<PreTokenizer> fixed_length(OptionReader& o) {
  return std::make_unique<FixedLengthPreTokenizer>(size_t(o.get_int("length", 5, 1)));
}
inline std::unique_ptr<PreTokenizer> unicode_scripts(OptionReader&) {
  return std::make_unique<UnicodeScriptsPreTokenizer>();
}
inline std::unique_ptr<PreTokenizer> sequence(OptionReader& o) {
  const OptionValue& list = o.get("pretokenizers", true);
  if (list.kind != OptionValue::Kind::kList) o.fail("option 'pretokenizers' must be a list");
  std::vector<std::unique_ptr<PreTokenizer>> parts;
  for (const OptionValue& part : list.list) parts.push_back(make_pre_tokenizer(part));
  return std::make_unique<PreTokenizerSequence>(std::move(parts));
}

}  // namespace pre_tokenizer_makers

inline const ComponentFactory<PreTokenizer>& pre_tokenizer_factory() {
  using namespace pre_tokenizer_makers;
  static const ComponentFactory<PreTokenizer> factory("pre-tokenizer", {{"BertPreTokenizer", bert},
                                                                        {"Whitespace", whitespace},
                                                                        {"WhitespaceSplit", whitespace_split},
                                                                        {"Punctuation", punctuation},
                                                                        {"Digits", digits},
                                                                        {"CharDelimiterSplit", char_delimiter_split},
                                                                        {"Metaspace", metaspace},
                                                                        {"ByteLevel", byte_level},
                                                                        {"Split", split},
                                                                        {"FixedLength", fixed_length},
                                                                        {"UnicodeScripts", unicode_scripts},
                                                                        {"Sequence", sequence}});
  return factory;
}

inline std::unique_ptr<PreTokenizer> make_pre_tokenizer(const OptionValue& component) {
  return pre_tokenizer_factory().make(component);
}

}  // namespace tokenforge
