#pragma once
// Enum <-> string: one constexpr table per enum feeds both its name function and its parser, so a spelling is
// written once. A table lists one row per enumerator, in enumerator order (row i names enumerator i, which
// makes enumName an index); a parser that also takes other spellings keeps them in a second table of aliases
// (parse-only rows) next to it. Checks for the .cpp that holds a table:
//   static_assert(enumTableCovers(kPhaseNames, Phase::Optimizer));  // rows 0..last, in order
//   static_assert(enumNamesValid(kPhaseNames, kPhaseAliases));      // non-empty, distinct, C strings
// No enum is converted to JSON as such (every JSON field holds the name function's string); an enum that ever is
// should get its nlohmann conversion from the same table (to_json = enumName, from_json = enumFromName).
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace ss {

template <class E>
struct EnumName {
  E value;
  std::string_view name;  // a string literal: enumName hands out name.data() as a C string (enumNamesValid checks)
};

namespace enum_names_detail {
template <class E>
constexpr size_t index(E v) {
  return static_cast<size_t>(static_cast<std::make_unsigned_t<std::underlying_type_t<E>>>(v));
}
}  // namespace enum_names_detail

// The table's name for v (its first row holding v); `fallback` for a value no row holds (a value cast from a
// number out of range: what the old switch returned after it).
template <class E, size_t N>
constexpr const char* enumName(const EnumName<E> (&table)[N], E v, const char* fallback) {
  const size_t i = enum_names_detail::index(v);
  if (i < N && table[i].value == v) return table[i].name.data();  // a table in enumerator order
  for (const EnumName<E>& r : table)
    if (r.value == v) return r.name.data();
  return fallback;
}

// The value a row of the table names, exactly (case-sensitive, whole string); nullopt when no row does.
template <class E, size_t N>
constexpr std::optional<E> enumFromName(const EnumName<E> (&table)[N], std::string_view name) {
  for (const EnumName<E>& r : table)
    if (r.name == name) return r.value;
  return std::nullopt;
}

// Names, then aliases.
template <class E, size_t N, size_t M>
constexpr std::optional<E> enumFromName(const EnumName<E> (&names)[N], const EnumName<E> (&aliases)[M],
                                        std::string_view name) {
  if (auto v = enumFromName(names, name)) return v;
  return enumFromName(aliases, name);
}

// The value of the row whose name is `prefix` followed by `name` ("torch." then "float32").
template <class E, size_t N>
constexpr std::optional<E> enumFromPrefixedName(const EnumName<E> (&table)[N], std::string_view prefix,
                                                std::string_view name) {
  for (const EnumName<E>& r : table)
    if (r.name.size() == prefix.size() + name.size() && r.name.substr(0, prefix.size()) == prefix &&
        r.name.substr(prefix.size()) == name)
      return r.value;
  return std::nullopt;
}

// Row i holds enumerator i, and the rows end at `last`: with enumerators 0..last (no gaps, no later ones), the
// table names every enumerator, which the switch it replaces had from -Wswitch. Adding an enumerator after `last`
// needs `last` moved here too.
template <class E, size_t N>
constexpr bool enumTableInOrder(const EnumName<E> (&table)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (enum_names_detail::index(table[i].value) != i) return false;
  return true;
}
template <class E, size_t N>
constexpr bool enumTableCovers(const EnumName<E> (&table)[N], E last) {
  return enum_names_detail::index(last) + 1 == N && enumTableInOrder(table);
}

// Every name non-empty, a string literal's whole text (NUL right after it) and distinct from every other name in
// the tables given, so that parsing is unambiguous and enumName's C strings are sound.
namespace enum_names_detail {
template <class E, size_t N>
constexpr bool terminated(const EnumName<E> (&table)[N]) {
  for (const EnumName<E>& r : table)
    if (r.name.empty() || r.name.data()[r.name.size()] != '\0') return false;
  return true;
}
template <class E, size_t N, size_t M>
constexpr bool disjoint(const EnumName<E> (&a)[N], const EnumName<E> (&b)[M], bool same) {
  for (size_t i = 0; i < N; ++i)
    for (size_t k = same ? i + 1 : 0; k < M; ++k)
      if (a[i].name == b[k].name) return false;
  return true;
}
}  // namespace enum_names_detail

template <class E, size_t N>
constexpr bool enumNamesValid(const EnumName<E> (&names)[N]) {
  return enum_names_detail::terminated(names) && enum_names_detail::disjoint(names, names, true);
}
template <class E, size_t N, size_t M>
constexpr bool enumNamesValid(const EnumName<E> (&names)[N], const EnumName<E> (&aliases)[M]) {
  return enumNamesValid(names) && enumNamesValid(aliases) && enum_names_detail::disjoint(names, aliases, false);
}

}  // namespace ss
