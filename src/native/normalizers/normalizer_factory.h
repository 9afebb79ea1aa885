// Builds a staged-pipeline normalizer (normalizers/normalizer.h) from its tokenizer.json
// description: the type name and options (pipelines/stage_options.h).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "formats/tiktoken_file.h"
#include "normalizers/bert_normalizer.h"
#include "normalizers/byte_level.h"
#include "normalizers/lowercase.h"
#include "normalizers/nmt.h"
#include "normalizers/normalizer.h"
#include "normalizers/normalizer_sequence.h"
#include "normalizers/precompiled.h"
#include "normalizers/prepend.h"
#include "normalizers/replace.h"
#include "normalizers/strip.h"
#include "normalizers/strip_accents.h"
#include "normalizers/unicode_forms.h"
#include "pipelines/stage_options.h"

namespace tokenforge {

std::unique_ptr<Normalizer> make_normalizer(const OptionValue& component);

namespace normalizer_makers {

inline std::unique_ptr<Normalizer> bert(OptionReader& o) {
  const bool clean_text = o.get_bool("clean_text", true);
  const bool chinese = o.get_bool("handle_chinese_chars", true);
  const int strip_accents = o.get_optional_bool("strip_accents", -1);
  const bool lowercase = o.get_bool("lowercase", true);
  return std::make_unique<BertNormalizer>(clean_text, chinese, strip_accents, lowercase);
}
inline std::unique_ptr<Normalizer> lowercase(OptionReader&) { return std::make_unique<LowercaseNormalizer>(); }
inline std::unique_ptr<Normalizer> strip(OptionReader& o) {
  const bool left = o.get_bool("strip_left", true);
  const bool right = o.get_bool("strip_right", true);
  return std::make_unique<StripNormalizer>(left, right);
}
inline std::unique_ptr<Normalizer> strip_accents(OptionReader&) { return std::make_unique<StripAccentsNormalizer>(); }
inline std::unique_ptr<Normalizer> replace(OptionReader& o) {
  bool is_regex = false;
  std::string pattern = o.get_pattern("pattern", is_regex);
  std::string content = o.get_string("content", "");
  o.get("content", true);
  std::shared_ptr<const Regex> regex = is_regex ? std::make_shared<const Regex>(pattern) : nullptr;
  return std::make_unique<ReplaceNormalizer>(std::move(pattern), std::move(content), std::move(regex));
}
inline std::unique_ptr<Normalizer> prepend(OptionReader& o) {
  o.get("prepend", true);
  return std::make_unique<PrependNormalizer>(o.get_string("prepend", ""));
}
inline std::unique_ptr<Normalizer> sequence(OptionReader& o) {
  const OptionValue& list = o.get("normalizers", true);
  if (list.kind != OptionValue::Kind::kList) o.fail("option 'normalizers' must be a list");
  std::vector<std::unique_ptr<Normalizer>> parts;
  for (const OptionValue& part : list.list) {
    std::unique_ptr<Normalizer> made = make_normalizer(part);
    // a Replace of one character right after ByteLevel: folded into its byte table
    auto* byte_level = parts.empty() ? nullptr : dynamic_cast<ByteLevelNormalizer*>(parts.back().get());
    const auto* step = dynamic_cast<const ReplaceNormalizer*>(made.get());
    uint32_t cp;
    if (byte_level != nullptr && step != nullptr && step->one_character(cp)) {
      byte_level->fold_replace(cp, step->content());
      continue;
    }
    parts.push_back(std::move(made));
  }
  return std::make_unique<NormalizerSequence>(std::move(parts));
}
inline std::unique_ptr<Normalizer> nmt(OptionReader&) { return std::make_unique<NmtNormalizer>(); }
inline std::unique_ptr<Normalizer> byte_level(OptionReader&) { return std::make_unique<ByteLevelNormalizer>(); }
// The character map in base64, as HF writes it.
inline std::unique_ptr<Normalizer> precompiled(OptionReader& o) {
  o.get("precompiled_charsmap", true);
  const std::string encoded = o.get_string("precompiled_charsmap", "");
  std::string charsmap;
  if (!encoded.empty() && !decode_base64(encoded, charsmap)) o.fail("option 'precompiled_charsmap' is not base64");
  return std::make_unique<PrecompiledNormalizer>(charsmap);
}
// The Unicode normalization forms.
template <NormalForm form>
std::unique_ptr<Normalizer> unicode_form(OptionReader&) {
  return std::make_unique<UnicodeFormNormalizer>(form);
}

}  // namespace normalizer_makers

inline const ComponentFactory<Normalizer>& normalizer_factory() {
  using namespace normalizer_makers;
  static const ComponentFactory<Normalizer> factory("normalizer", {{"BertNormalizer", bert},
                                                                   {"Lowercase", lowercase},
                                                                   {"Strip", strip},
                                                                   {"StripAccents", strip_accents},
                                                                   {"Replace", replace},
                                                                   {"Prepend", prepend},
                                                                   {"Nmt", nmt},
                                                                   {"ByteLevel", byte_level},
                                                                   {"Precompiled", precompiled},
                                                                   {"Sequence", sequence},
                                                                   {"NFC", unicode_form<NormalForm::kNFC>},
                                                                   {"NFD", unicode_form<NormalForm::kNFD>},
                                                                   {"NFKC", unicode_form<NormalForm::kNFKC>},
                                                                   {"NFKD", unicode_form<NormalForm::kNFKD>}});
  return factory;
}

inline std::unique_ptr<Normalizer> make_normalizer(const OptionValue& component) {
  return normalizer_factory().make(component);
}

}  // namespace tokenforge
