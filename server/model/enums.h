#pragma once
// The enumerated settings of the API, with their wire names.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace wr::model {

enum class QueueingMethod { fifo, random, passthrough, reject };
enum class SameSite { automatic, lax, none, strict };
enum class SecureAttribute { automatic, always, never };
enum class TurnstileMode { off, invisible, visible_non_interactive, visible_managed };
enum class TurnstileAction { log, infinite_queue };
// edge: an edge node's token, which may only fetch the configuration and cookie keys and push
// analytics (wr's own).
enum class TokenScope { read, edit, edge };

// Maps each value of an enum to its wire name and back.
template <typename Enum> struct EnumNames;

template <> struct EnumNames<QueueingMethod> {
    static constexpr std::array<std::string_view, 4> names{"fifo", "random", "passthrough", "reject"};
};
template <> struct EnumNames<SameSite> {
    static constexpr std::array<std::string_view, 4> names{"auto", "lax", "none", "strict"};
};
template <> struct EnumNames<SecureAttribute> {
    static constexpr std::array<std::string_view, 3> names{"auto", "always", "never"};
};
template <> struct EnumNames<TurnstileMode> {
    static constexpr std::array<std::string_view, 4> names{"off", "invisible", "visible_non_interactive",
                                                           "visible_managed"};
};
template <> struct EnumNames<TurnstileAction> {
    static constexpr std::array<std::string_view, 2> names{"log", "infinite_queue"};
};
template <> struct EnumNames<TokenScope> {
    static constexpr std::array<std::string_view, 3> names{"read", "edit", "edge"};
};

template <typename Enum> constexpr std::string_view to_string(Enum value) {
    return EnumNames<Enum>::names[static_cast<size_t>(value)];
}

template <typename Enum> std::optional<Enum> parse_enum(std::string_view text) {
    const auto& names = EnumNames<Enum>::names;
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == text) return static_cast<Enum>(i);
    return std::nullopt;
}

// "fifo, random, passthrough, reject": for error messages.
template <typename Enum> std::string enum_choices() {
    std::string text;
    for (const std::string_view name : EnumNames<Enum>::names) {
        if (!text.empty()) text += ", ";
        text += name;
    }
    return text;
}

// The 39 languages of the default queue page.
inline constexpr std::array<std::string_view, 39> k_template_languages{
    "en-US", "es-ES", "de-DE", "fr-FR", "it-IT", "ja-JP", "ko-KR", "pt-BR", "zh-CN", "zh-TW",
    "nl-NL", "pl-PL", "id-ID", "tr-TR", "ar-EG", "ru-RU", "fa-IR", "bg-BG", "hr-HR", "cs-CZ",
    "da-DK", "fi-FI", "lt-LT", "lv-LV", "ms-MY", "nb-NO", "ro-RO", "el-GR", "he-IL", "hi-IN",
    "hu-HU", "sr-BA", "sk-SK", "sl-SI", "sv-SE", "tl-PH", "th-TH", "uk-UA", "vi-VN"};

} // namespace wr::model
