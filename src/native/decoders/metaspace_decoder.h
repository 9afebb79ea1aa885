// HF's Metaspace decoder (pre_tokenizers/metaspace.rs): the replacement ("▁") read as a space,
// except in the first token, where it is dropped unless prepend_scheme is "never".
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "decoders/decoder.h"

namespace tokenforge {

class MetaspaceDecoder : public Decoder {
 public:
  MetaspaceDecoder(std::string replacement, bool prepend) : replacement_(std::move(replacement)), prepend_(prepend) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i)
      tokens[i] = rust_replace(tokens[i], replacement_, i == 0 && prepend_ ? "" : " ");
  }

 private:
  std::string replacement_;
  bool prepend_;  // prepend_scheme is not "never"
};

}  // namespace tokenforge
