// Regex (pre_tokenizers/regex.h) over Oniguruma (third_party/oniguruma/, the release HF
// tokenizers' onig crate builds): compiling as onig's Regex::new, searching as its find_iter, and
// the spans as HF's `impl Pattern for &SysRegex` (tokenizers/src/utils/onig.rs) makes them.
#include "pre_tokenizers/regex.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "oniguruma.h"

namespace tokenforge {

namespace {

// Oniguruma's message for an error code (with the pattern fragment it names, if any).
std::string onig_message(int code, OnigErrorInfo* info) {
  OnigUChar buf[ONIG_MAX_ERROR_MESSAGE_LEN];
  const int len = info ? onig_error_code_to_str(buf, code, info) : onig_error_code_to_str(buf, code);
  return std::string(reinterpret_cast<const char*>(buf), len > 0 ? size_t(len) : 0);
}

// Compiling touches Oniguruma's global state (its one-time initialization, the tables of names
// it shares), so compiles take turns, as the onig crate makes them (its REGEX_NEW_MUTEX).
std::mutex& compile_mutex() {
  static std::mutex m;
  return m;
}

// The length of the UTF-8 character that starts with byte b (1 for a stray byte).
size_t utf8_length(unsigned char b) { return b < 0xE0 ? 1 + (b >= 0xC0) : b < 0xF0 ? 3 : 4; }

struct RegionFree {
  void operator()(OnigRegion* r) const { onig_region_free(r, 1); }
};
struct MatchParamFree {
  void operator()(OnigMatchParam* p) const { onig_free_match_param(p); }
};

}  // namespace

Regex::Regex(std::string_view pattern) : pattern_(pattern), regex_(nullptr) {
  const auto* p = reinterpret_cast<const OnigUChar*>(pattern_.data());
  OnigErrorInfo info{};
  OnigRegex reg = nullptr;
  int r;
  {
    std::lock_guard<std::mutex> lock(compile_mutex());
    OnigEncoding utf8 = ONIG_ENCODING_UTF8;
    r = onig_initialize(&utf8, 1);  // a no-op after the first time
    if (r == ONIG_NORMAL)
      r = onig_new(&reg, p, p + pattern_.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_DEFAULT, &info);
  }
  if (r != ONIG_NORMAL) throw std::invalid_argument("invalid regex '" + pattern_ + "': " + onig_message(r, &info));
  regex_ = reg;
}

Regex::~Regex() { onig_free(static_cast<OnigRegex>(regex_)); }

// onig's FindMatches::next, match by match: search s[last_end..n) (the whole text stays in view,
// for look-behind, \b and anchors); an empty match where the previous match ended is refused
// and the search starts again one character on.
template <class Emit>
void Regex::search_all(const char* s, size_t n, Emit emit) const {
  if (n > size_t(INT_MAX)) throw std::length_error("regex search: the text is over 2 GiB");
  const auto reg = static_cast<OnigRegex>(regex_);
  const auto* str = reinterpret_cast<const OnigUChar*>(s);
  const std::unique_ptr<OnigRegion, RegionFree> region(onig_region_new());
  const std::unique_ptr<OnigMatchParam, MatchParamFree> param(onig_new_match_param());
  if (!region || !param) throw std::bad_alloc();
  onig_initialize_match_param(param.get());
  size_t last_end = 0, last_match_end = 0;
  bool matched = false;
  while (last_end <= n) {
    const uint64_t budget = std::max<uint64_t>(uint64_t(n - last_end) * kRetriesPerByte, kMinRetriesInSearch);
    onig_set_retry_limit_in_search_of_match_param(param.get(), (unsigned long)std::min<uint64_t>(budget, ULONG_MAX));
    const int r =
        onig_search_with_param(reg, str, str + n, str + last_end, str + n, region.get(), ONIG_OPTION_NONE, param.get());
    if (r == ONIG_MISMATCH) return;
    if (r < 0) throw std::runtime_error("regex '" + pattern_ + "': " + onig_message(r, nullptr));
    const size_t start = size_t(region->beg[0]), end = size_t(region->end[0]);
    if (start == end && matched && last_match_end == end) {
      last_end += last_end < n ? utf8_length(uint8_t(s[last_end])) : 1;
      continue;
    }
    last_end = last_match_end = end;
    matched = true;
    emit(start, end);
  }
}

void Regex::find_matches(const char* s, size_t n, std::vector<MatchSpan>& out) const {
  if (n == 0) {
    out.push_back({0, 0, false});
    return;
  }
  size_t prev = 0;
  search_all(s, n, [&](size_t start, size_t end) {
    if (prev != start) out.push_back({uint32_t(prev), uint32_t(start), false});
    out.push_back({uint32_t(start), uint32_t(end), true});
    prev = end;
  });
  if (prev != n) out.push_back({uint32_t(prev), uint32_t(n), false});
}

void Regex::find_iter(const char* s, size_t n, std::vector<MatchSpan>& out) const {
  if (n == 0) return;  // as find_matches: HF never searches an empty text
  search_all(s, n, [&](size_t start, size_t end) { out.push_back({uint32_t(start), uint32_t(end), true}); });
}

}  // namespace tokenforge
