// The description of one staged-pipeline component (pipelines/staged.h) as tokenizer.json spells
// it: a type name and its options, a small JSON-like tree (null, bool, int, float, string, list,
// dict), converted once from Python by python/bind_staged.cpp. OptionReader is how a component's
// factory (normalizers/normalizer_factory.h and its siblings) reads them: each option it takes
// is marked as read, and finish() refuses any it did not take, naming it, so a misspelled or
// unsupported option is an error rather than silently ignored.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tokenforge {

struct OptionValue {
  enum class Kind { kNull, kBool, kInt, kFloat, kString, kList, kDict };
  Kind kind = Kind::kNull;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<OptionValue> list;
  std::vector<std::pair<std::string, OptionValue>> dict;

  const OptionValue* find(const std::string& key) const {
    for (const auto& [k, v] : dict)
      if (k == key) return &v;
    return nullptr;
  }
};

class OptionReader {
 public:
  // what: the component, for messages ("normalizer BertNormalizer"); options: a dict (its "type"
  // entry, if any, counts as read).
  OptionReader(std::string what, const OptionValue& options) : what_(std::move(what)), options_(options) {
    if (options.kind != OptionValue::Kind::kDict && options.kind != OptionValue::Kind::kNull)
      fail("its options must be a dict");
    read_.assign(options.dict.size(), false);
    find("type");
  }

  const std::string& what() const { return what_; }

  bool get_bool(const std::string& key, bool fallback) {
    const OptionValue* v = find(key);
    if (!v || v->kind == OptionValue::Kind::kNull) return fallback;
    if (v->kind != OptionValue::Kind::kBool) fail("option '" + key + "' must be true or false");
    return v->b;
  }
  // A bool that may be null (absent or null: `fallback`, usually -1 for "unset").
  int get_optional_bool(const std::string& key, int fallback) {
    const OptionValue* v = find(key);
    if (!v || v->kind == OptionValue::Kind::kNull) return fallback;
    if (v->kind != OptionValue::Kind::kBool) fail("option '" + key + "' must be true, false or null");
    return v->b ? 1 : 0;
  }
  int64_t get_int(const std::string& key, int64_t fallback, int64_t lowest = 0) {
    const OptionValue* v = find(key);
    if (!v || v->kind == OptionValue::Kind::kNull) return fallback;
    if (v->kind != OptionValue::Kind::kInt) fail("option '" + key + "' must be an integer");
    if (v->i < lowest) fail("option '" + key + "' must be at least " + std::to_string(lowest));
    return v->i;
  }
  std::string get_string(const std::string& key, const std::string& fallback) {
    const OptionValue* v = find(key);
    if (!v || v->kind == OptionValue::Kind::kNull) return fallback;
    if (v->kind != OptionValue::Kind::kString) fail("option '" + key + "' must be a string");
    return v->s;
  }
  // A string of exactly one character (Rust's char).
  std::string get_char(const std::string& key, const std::string& fallback) {
    std::string s = get_string(key, fallback);
    size_t chars = 0;
    for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
    if (chars != 1) fail("option '" + key + "' must be one character, got '" + s + "'");
    return s;
  }
  // A required entry of any kind (null when absent and not required).
  const OptionValue& get(const std::string& key, bool required) {
    static const OptionValue kNull;
    const OptionValue* v = find(key);
    if (!v) {
      if (required) fail("option '" + key + "' is required");
      return kNull;
    }
    return *v;
  }
  // A pattern {"String": s} or {"Regex": r}; sets is_regex.
  std::string get_pattern(const std::string& key, bool& is_regex) {
    const OptionValue& v = get(key, true);
    if (v.kind == OptionValue::Kind::kString) {  // a plain string reads as a string pattern
      is_regex = false;
      return v.s;
    }
    if (v.kind != OptionValue::Kind::kDict || v.dict.size() != 1 ||
        v.dict[0].second.kind != OptionValue::Kind::kString ||
        (v.dict[0].first != "String" && v.dict[0].first != "Regex"))
      fail("option '" + key + "' must be {\"String\": ...} or {\"Regex\": ...}");
    is_regex = v.dict[0].first == "Regex";
    return v.dict[0].second.s;
  }

  // Refuses the options not read.
  void finish() const {
    for (size_t k = 0; k < read_.size(); ++k)
      if (!read_[k]) fail("unknown option '" + options_.dict[k].first + "'");
  }

  [[noreturn]] void fail(const std::string& message) const { throw std::invalid_argument(what_ + ": " + message); }

 private:
  const OptionValue* find(const std::string& key) {
    for (size_t k = 0; k < options_.dict.size(); ++k)
      if (options_.dict[k].first == key) {
        read_[k] = true;
        return &options_.dict[k].second;
      }
    return nullptr;
  }

  std::string what_;
  const OptionValue& options_;
  std::vector<bool> read_;
};

// The "type" of a component's dict (as in a Sequence's list).
inline std::string type_of(const OptionValue& component, const std::string& what) {
  const OptionValue* t = component.kind == OptionValue::Kind::kDict ? component.find("type") : nullptr;
  if (!t || t->kind != OptionValue::Kind::kString) throw std::invalid_argument(what + ": each entry needs a \"type\"");
  return t->s;
}

// Runs make(), naming the component (reader.what()) in an std::invalid_argument that does not
// already name it (a regex that does not compile, a merge naming a missing token).
template <class Make>
auto build_named(const OptionReader& reader, Make&& make) -> decltype(make()) {
  try {
    return make();
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    if (message.rfind(reader.what(), 0) == 0) throw;
    throw std::invalid_argument(reader.what() + ": " + message);
  }
}

// A table of constructors by type name (sentencepiece's model_factory shape): make() finds the
// type, builds it from its options and refuses unknown types and options, naming them.
template <class Component>
class ComponentFactory {
 public:
  using Maker = std::unique_ptr<Component> (*)(OptionReader&);
  ComponentFactory(std::string stage, std::vector<std::pair<std::string, Maker>> makers)
      : stage_(std::move(stage)), makers_(std::move(makers)) {}

  std::unique_ptr<Component> make(const std::string& type, const OptionValue& options) const {
    for (const auto& [name, maker] : makers_)
      if (name == type) {
        OptionReader reader(stage_ + " " + type, options);
        std::unique_ptr<Component> out = build_named(reader, [&] { return maker(reader); });
        reader.finish();
        return out;
      }
    std::string known;
    for (const auto& entry : makers_) known += (known.empty() ? "" : ", ") + entry.first;
    throw std::invalid_argument("unknown " + stage_ + " type '" + type + "' (known: " + known + ")");
  }
  std::unique_ptr<Component> make(const OptionValue& component) const {
    return make(type_of(component, stage_), component);
  }

 private:
  std::string stage_;
  std::vector<std::pair<std::string, Maker>> makers_;
};

}  // namespace tokenforge
