// Loads the embedded translations and applies each language's plural rules.
#include "page/translations.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "util/embedded_files.h"
#include "util/escape.h"

namespace wr::page {
namespace {

// Fills [[key]] placeholders of a page with the locale's texts. The texts are ours (not user
// input), may hold Mustache tags such as {{timeUntilEventStartFormatted}}, and are HTML-escaped.
std::string fill(std::string_view page, const Locale& locale) {
    std::string out;
    size_t at = 0;
    while (true) {
        const size_t open = page.find("[[", at);
        if (open == std::string_view::npos) break;
        const size_t close = page.find("]]", open);
        if (close == std::string_view::npos) break;
        out.append(page.substr(at, open - at));
        const std::string key(page.substr(open + 2, close - open - 2));
        if (key == "lang") out += locale.code;
        else if (key == "direction") out += locale.right_to_left ? "rtl" : "ltr";
        else if (const auto it = locale.texts.find(key); it != locale.texts.end()) out += util::escape_html(it->second);
        else throw std::runtime_error("templates: no text \"" + key + "\" for " + locale.code);
        at = close + 2;
    }
    out.append(page.substr(at));
    return out;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    return text;
}

std::string language_of(std::string_view code) { return std::string(code.substr(0, code.find('-'))); }

std::string quantity(const std::map<std::string, std::string>& forms, std::string_view language, int64_t n) {
    auto it = forms.find(plural_category(language, n));
    if (it == forms.end()) it = forms.find("other");
    return replace_all(it == forms.end() ? "{n}" : it->second, "{n}", std::to_string(n));
}

} // namespace

const std::vector<std::string>& required_texts() {
    static const std::vector<std::string> k_texts = {
        "language", "title", "heading", "busy", "prequeue", "shuffle", "random", "estimated_wait", "wait_unknown",
        "queue_full", "last_updated", "auto_refresh", "reject_title", "reject_text"};
    return k_texts;
}

Catalog::Catalog() {
    const std::string_view queue = util::embedded_file("templates/queue.html").value_or("");
    const std::string_view reject = util::embedded_file("templates/reject.html").value_or("");
    for (const util::EmbeddedFile& file : util::embedded_files()) {
        if (!file.path.starts_with("templates/i18n/") || !file.path.ends_with(".json")) continue;
        const nlohmann::json data = nlohmann::json::parse(file.content);
        Locale locale;
        locale.code = std::string(file.path.substr(15, file.path.size() - 15 - 5));
        locale.right_to_left = data.value("direction", "ltr") == "rtl";
        for (const auto& [key, value] : data.items())
            if (value.is_string()) locale.texts[key] = value.get<std::string>();
        locale.minute = data.value("minute", std::map<std::string, std::string>{});
        locale.hour = data.value("hour", std::map<std::string, std::string>{});
        locale.range = data.value("range", "{from} – {to}");
        locale.unavailable = data.value("unavailable", "unavailable");
        locale.join = data.value("join", " ");
        locale.queue_page = fill(queue, locale);
        locale.reject_page = fill(reject, locale);
        m_locales.push_back(std::move(locale));
    }
}

const Catalog& Catalog::embedded() {
    static const Catalog k_catalog;
    return k_catalog;
}

const Locale& Catalog::locale(std::string_view code) const {
    const Locale* fallback = nullptr;
    for (const Locale& locale : m_locales) {
        if (locale.code == code) return locale;
        if (locale.code == "en-US") fallback = &locale;
    }
    if (!fallback) throw std::runtime_error("templates: the build embedded no en-US translation");
    return *fallback;
}

std::string plural_category(std::string_view code, int64_t n) {
    const std::string language = language_of(code);
    const int64_t mod10 = n % 10;
    const int64_t mod100 = n % 100;
    if (language == "ja" || language == "ko" || language == "zh" || language == "id" || language == "ms" || language == "th" ||
        language == "vi")
        return "other";
    if (language == "fr" || language == "pt" || language == "hi" || language == "fa") return n == 0 || n == 1 ? "one" : "other";
    if (language == "ru" || language == "uk") {
        if (mod10 == 1 && mod100 != 11) return "one";
        if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return "few";
        return "many";
    }
    if (language == "hr" || language == "sr") {
        if (mod10 == 1 && mod100 != 11) return "one";
        if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return "few";
        return "other";
    }
    if (language == "pl") {
        if (n == 1) return "one";
        if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return "few";
        return "many";
    }
    if (language == "cs" || language == "sk") {
        if (n == 1) return "one";
        if (n >= 2 && n <= 4) return "few";
        return "other";
    }
    if (language == "sl") {
        if (mod100 == 1) return "one";
        if (mod100 == 2) return "two";
        if (mod100 == 3 || mod100 == 4) return "few";
        return "other";
    }
    if (language == "lt") {
        if (mod10 == 1 && (mod100 < 11 || mod100 > 19)) return "one";
        if (mod10 >= 2 && (mod100 < 11 || mod100 > 19)) return "few";
        return "other";
    }
    if (language == "lv") {
        if (mod10 == 0 || (mod100 >= 11 && mod100 <= 19)) return "zero";
        if (mod10 == 1 && mod100 != 11) return "one";
        return "other";
    }
    if (language == "ro") {
        if (n == 1) return "one";
        if (n == 0 || (mod100 >= 2 && mod100 <= 19)) return "few";
        return "other";
    }
    if (language == "ar") {
        if (n == 0) return "zero";
        if (n == 1) return "one";
        if (n == 2) return "two";
        if (mod100 >= 3 && mod100 <= 10) return "few";
        if (mod100 >= 11) return "many";
        return "other";
    }
    if (language == "he") {
        if (n == 1) return "one";
        if (n == 2) return "two";
        return "other";
    }
    return n == 1 ? "one" : "other"; // en, es, de, it, nl, tr, bg, da, fi, nb, sv, el, hu, tl
}

std::string format_minutes(int64_t minutes, std::string_view code) {
    const Locale& locale = Catalog::embedded().locale(code);
    if (minutes < 60) return quantity(locale.minute, code, minutes);
    const int64_t hours = minutes / 60;
    const int64_t rest = minutes % 60;
    std::string text = quantity(locale.hour, code, hours);
    if (rest > 0) text += locale.join + quantity(locale.minute, code, rest);
    return text;
}

std::string format_minute_range(int64_t from, int64_t to, std::string_view code) {
    const Locale& locale = Catalog::embedded().locale(code);
    return replace_all(replace_all(locale.range, "{from}", format_minutes(from, code)), "{to}", format_minutes(to, code));
}

std::string unavailable_text(std::string_view code) { return Catalog::embedded().locale(code).unavailable; }

} // namespace wr::page
