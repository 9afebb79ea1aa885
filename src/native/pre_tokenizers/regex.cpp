// Regex (pre_tokenizers/regex.h) over Oniguruma (third_party/oniguruma/, the release HF
// tokenizers' onig crate builds): compiling as onig's Regex::new, searching as its find_iter, and
// the spans as HF's `impl Pattern for &SysRegex` (tokenizers/src/utils/onig.rs) makes them.
#include "pre_tokenizers/regex.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "oniguruma.h"
#include "unicode/unicode_classes.h"

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

struct RegionFree {
  void operator()(OnigRegion* r) const { onig_region_free(r, 1); }
};
struct MatchParamFree {
  void operator()(OnigMatchParam* p) const { onig_free_match_param(p); }
};

}  // namespace

// A pattern that is one set of characters (see regex.h): its members and how many in a row make
// a match (repeat: + or {min,}, maximal runs; else each character alone).
struct Regex::CharRuns {
  std::array<bool, 128> ascii{};
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // members above ASCII, as ranges
  bool repeat = false;
  size_t min = 1;

  bool has(uint32_t cp) const {
    if (cp < 128) return ascii[cp];
    for (const auto& [lo, hi] : ranges)
      if (cp >= lo && cp <= hi) return true;
    return false;
  }
  void add(uint32_t lo, uint32_t hi) {
    for (; lo <= hi && lo < 128; ++lo) ascii[lo] = true;
    if (lo <= hi) ranges.emplace_back(lo, hi);
  }

  // The pattern as such a set, or nullptr where it is anything else (Oniguruma runs it).
  static std::unique_ptr<CharRuns> parse(std::string_view p) {
    auto runs = std::make_unique<CharRuns>();
    size_t i = 0;
    uint32_t cp;
    if (i < p.size() && p[i] == '[') {
      ++i;
      if (i < p.size() && (p[i] == '^' || p[i] == ']')) return nullptr;  // (negation; ']' first)
      bool any = false, after_range = false;
      while (i < p.size() && p[i] != ']') {
        if (p[i] == '[' || (p[i] == '&' && i + 1 < p.size() && p[i + 1] == '&')) return nullptr;
        const bool dash = p[i] == '-';
        // ("--", a range from "-"?, and "a-z-0", a "-" right after a range: Oniguruma's reading)
        if (dash && ((i + 1 < p.size() && p[i + 1] == '-') || after_range)) return nullptr;
        if (!member(p, i, cp, true)) return nullptr;
        uint32_t hi = cp;
        after_range = false;
        // a range: "-" between two members ("-" first or last is itself)
        if (!dash && i + 1 < p.size() && p[i] == '-' && p[i + 1] != ']') {
          ++i;
          if (p[i] == '[' || !member(p, i, hi, true) || hi < cp) return nullptr;
          after_range = true;
        }
        runs->add(cp, hi);
        any = true;
      }
      if (i >= p.size() || !any) return nullptr;
      ++i;  // (the ']')
    } else {
      if (i >= p.size() || std::string_view(".^$|()[]{}*+?").find(p[i]) != std::string_view::npos) return nullptr;
      if (!member(p, i, cp, false)) return nullptr;
      runs->add(cp, cp);
    }
    if (i == p.size()) return runs;
    if (p[i] == '+' && i + 1 == p.size()) {
      runs->repeat = true;
      return runs;
    }
    if (p[i] == '{' && p.back() == '}' && p[p.size() - 2] == ',') {
      size_t min = 0;
      for (size_t k = i + 1; k + 2 < p.size(); ++k) {
        if (p[k] < '0' || p[k] > '9' || min > 100000) return nullptr;
        min = min * 10 + size_t(p[k] - '0');
      }
      if (i + 3 > p.size() - 1 || min == 0) return nullptr;  // ("{,}" and "{0,}": not here)
      runs->repeat = true;
      runs->min = min;
      return runs;
    }
    return nullptr;
  }

 private:
  // One member at p[i] (a character or an escape this reads as one), i moved past it; false for
  // anything else (an escaped punctuation mark only in a class: outside one, some are anchors).
  static bool member(std::string_view p, size_t& i, uint32_t& cp, bool in_class) {
    const auto* u = reinterpret_cast<const uint8_t*>(p.data());
    if (p[i] != '\\') {
      size_t len;
      cp = decode_utf8(u + i, p.size() - i, len);
      i += len;
      return true;
    }
    if (++i >= p.size()) return false;
    const char e = p[i++];
    auto hex = [&](size_t digits, bool braced) {
      cp = 0;
      size_t k = 0;
      for (; i < p.size() && (braced || k < digits); ++i, ++k) {
        const char h = p[i];
        if (braced && h == '}') break;
        const int v = h >= '0' && h <= '9'   ? h - '0'
                      : h >= 'a' && h <= 'f' ? h - 'a' + 10
                      : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                             : -1;
        if (v < 0 || k >= 6) return false;
        cp = cp * 16 + uint32_t(v);
      }
      if (braced) {
        if (i >= p.size() || p[i] != '}' || k == 0) return false;
        ++i;
      } else if (k != digits) {
        return false;
      }
      return cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    };
    switch (e) {
      case 't':
        cp = '\t';
        return true;
      case 'n':
        cp = '\n';
        return true;
      case 'r':
        cp = '\r';
        return true;
      case 'f':
        cp = '\f';
        return true;
      case 'v':
        cp = '\v';
        return true;
      case 'u':
        return hex(4, false);
      case 'x':
        if (i < p.size() && p[i] == '{') {
          ++i;
          return hex(0, true);
        }
        return hex(2, false) && cp < 0x80;  // (\xHH above ASCII is a byte to Oniguruma)
      default:
        // an escaped ASCII punctuation mark is itself
        if (in_class && std::string_view("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~").find(e) != std::string_view::npos) {
          cp = uint8_t(e);
          return true;
        }
        return false;
    }
  }
};

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
  runs_ = CharRuns::parse(pattern_);
}

Regex::~Regex() { onig_free(static_cast<OnigRegex>(regex_)); }

// onig's FindMatches::next, match by match: search s[last_end..n) (the whole text stays in view,
// for look-behind, \b and anchors); an empty match where the previous match ended is refused
// and the search starts again one character on.
template <class Emit>
void Regex::search_all(const char* s, size_t n, Emit emit) const {
  if (n > size_t(INT_MAX)) throw std::length_error("regex search: the text is over 2 GiB");
  if (runs_) {  // (a set of characters: each one, or each run of at least min)
    const auto* u = reinterpret_cast<const uint8_t*>(s);
    const CharRuns& set = *runs_;
    auto at = [&](size_t i, size_t& len) { return set.has(decode_utf8(u + i, n - i, len)); };
    size_t len;
    for (size_t i = 0; i < n;) {
      if (!at(i, len)) {
        i += len;
        continue;
      }
      const size_t start = i;
      i += len;
      size_t count = 1;
      if (set.repeat)
        for (; i < n && at(i, len); ++count) i += len;
      if (count >= set.min) emit(start, i);
    }
    return;
  }
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
