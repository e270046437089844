#pragma once
// UTF-8 as the API's limits and the CLI's columns count it: in characters (code points), and
// cut only between them. Pure.
#include <cstddef>
#include <string_view>

namespace wr::util {

// The length in bytes of the well-formed UTF-8 sequence that starts `text` (1 for ASCII), or 0
// when it does not start with one (a stray continuation byte, an overlong form, a surrogate,
// a sequence cut short).
size_t utf8_sequence_length(std::string_view text);

// The characters `text` holds; a byte that is not part of a well-formed sequence counts as one.
size_t utf8_length(std::string_view text);

// The first `characters` characters of `text` (all of it when it holds fewer), never ending
// inside a sequence.
std::string_view utf8_prefix(std::string_view text, size_t characters);

} // namespace wr::util
