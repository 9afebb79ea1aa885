// The sentencepiece Unigram Tokenizer pipeline (pipelines/spm_tokenizer.h over
// models/sentencepiece/spm_unigram.h) in a plain C++ loop, without Python: for comparing two
// builds of the native code by instruction counts, which stay put on a loaded machine where
// wall time does not. The model comes from bench/spm_model_dump.py; the corpus is cut into
// 8 KB documents as bench/encode.py cuts it. Not part of the build:
//
//   g++ -std=c++17 -O3 -march=x86-64-v2 -g -Isrc/native bench/spm_pipeline_loop.cpp -o /tmp/loop
//   MEASURE=1 valgrind --tool=callgrind --instr-atstart=no /tmp/loop model.bin corpus.txt 0.25 pipe 2
//
// Arguments: the dumped model, a corpus, MB to read, what to run (enc: ids only; bounds: ids
// and offsets, as the Tokenizer asks the encoder; pipe: the whole pipeline to rows; norm: the
// normalizer with its alignment), passes. MEASURE=k has callgrind count pass k alone (0: the
// cold first pass).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <time.h>
#include <valgrind/callgrind.h>
#include "pipelines/spm_models.h"
#include "pipelines/spm_tokenizer.h"
using namespace tokenforge;
static double cpu() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
template <class T>
T rd(std::istream& in) {
  T v;
  in.read(reinterpret_cast<char*>(&v), sizeof v);
  return v;
}
int main(int argc, char** argv) {
  // harness MODEL.bin CORPUS MB MODE PASSES ; MODE: enc (no bounds) | bounds | pipe
  std::ifstream f(argv[1], std::ios::binary);
  uint32_t cl = rd<uint32_t>(f);
  std::string cm(cl, 0);
  f.read(&cm[0], cl);
  uint8_t o[5];
  f.read(reinterpret_cast<char*>(o), 5);
  uint32_t np = rd<uint32_t>(f);
  std::vector<std::string> pieces;
  std::vector<float> scores;
  std::vector<uint8_t> types;
  std::vector<std::string> ud;
  for (uint32_t i = 0; i < np; ++i) {
    uint32_t l = rd<uint32_t>(f);
    float s = rd<float>(f);
    uint8_t t = rd<uint8_t>(f);
    std::string p(l, 0);
    f.read(&p[0], l);
    pieces.push_back(p);
    scores.push_back(s);
    types.push_back(t);
    if (t == 4) ud.push_back(p);
  }
  SpmNormalizer norm(cm, {bool(o[0]), bool(o[1]), bool(o[2]), bool(o[3])}, ud);
  std::ifstream c(argv[2], std::ios::binary);
  std::stringstream ss;
  ss << c.rdbuf();
  std::string all = ss.str();
  size_t limit = size_t(atof(argv[3]) * 1e6);
  if (all.size() > limit) {
    while (limit && (uint8_t(all[limit]) & 0xC0) == 0x80) --limit;
    all.resize(limit);
  }
  std::vector<std::string> docs;
  for (size_t i = 0; i < all.size();) {
    size_t j = std::min(all.size(), i + 8192);
    while (j < all.size() && (uint8_t(all[j]) & 0xC0) == 0x80) --j;
    docs.push_back(all.substr(i, j - i));
    i = j;
  }
  std::string mode = argv[4];
  int passes = atoi(argv[5]);
  SpmUnigramModel model(SpmVocab(pieces, scores, types, bool(o[4])));
  std::vector<uint8_t> starts(np);
  for (uint32_t i = 0; i < np; ++i) starts[i] = pieces[i].rfind("\xE2\x96\x81", 0) == 0;
  SpmPipeline pipe(norm, spm_model_function(model), spm_reads(model), starts);
  SpmEncoder enc(norm, spm_model_function(model), spm_reads(model));
  PostProcessor post;
  std::vector<uint32_t> ids, bounds;
  size_t total = 0;
  uint64_t digest = 0;                               // of the last pass's ids, offsets and words: equal across builds
  const bool digests = getenv("DIGEST") != nullptr;  // (off by default: not part of what is measured)
  auto mix = [&digest](uint64_t v) { digest = (digest ^ v) * 0x100000001B3ull; };
  int measured = getenv("MEASURE") ? atoi(getenv("MEASURE")) : -1;
  for (int p = 0; p < passes; ++p) {
    if (p == measured) CALLGRIND_START_INSTRUMENTATION;
    double t0 = cpu();
    total = 0;
    digest = 0xCBF29CE484222325ull;
    for (const std::string& d : docs) {
      const uint8_t* s = reinterpret_cast<const uint8_t*>(d.data());
      if (mode == "enc") {
        ids.clear();
        enc.encode(s, d.size(), ids);
        total += ids.size();
        if (digests)
          for (uint32_t id : ids) mix(id);
      } else if (mode == "bounds") {
        ids.clear();
        enc.encode(s, d.size(), ids, &bounds);
        total += ids.size();
        if (digests) {
          for (uint32_t id : ids) mix(id);
          for (uint32_t b : bounds) mix(b);
        }
      } else if (mode == "norm") {
        std::string out;
        std::vector<uint32_t> a;
        norm.normalize(s, d.size(), out, &a, spm_reads(model).spaces);
        total += out.size();
      } else {
        Encoded e = pipe.encode(s, d.size(), nullptr, 0, false, false, nullptr, post);
        total += e.rows.size();
        if (digests)
          for (const Row& r : e.rows) mix(uint64_t(r.id) << 32 ^ r.start), mix(uint64_t(r.end) << 32 ^ r.word);
      }
    }
    double t = cpu() - t0;
    if (p == measured) CALLGRIND_STOP_INSTRUMENTATION;
    printf("%s pass %d: %.1f MB/s (%zu tokens, digest %016llx)\n", mode.c_str(), p, all.size() / 1e6 / t, total,
           (unsigned long long)digest);
  }
}
