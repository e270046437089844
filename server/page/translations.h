#pragma once
// The default pages in the 39 languages of the API: the translations (templates/i18n/*.json,
// embedded in the binary), the plural rules that pick "1 minute" or "5 minutes", and the default
// queue and reject pages with each language's texts filled in.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace wr::page {

struct Locale {
    std::string code;      // "de-DE"
    bool right_to_left = false;
    std::map<std::string, std::string> texts;              // heading, busy, prequeue, …
    std::map<std::string, std::string> minute;             // plural category → "{n} Minuten"
    std::map<std::string, std::string> hour;
    std::string range;      // "{from} bis {to}"
    std::string unavailable;
    std::string join;       // between hours and minutes
    std::string queue_page; // the default queue page, texts filled in (still a Mustache template)
    std::string reject_page;
};

// The strings every locale must have.
const std::vector<std::string>& required_texts();

class Catalog {
public:
    // The catalog of the embedded translations. Immutable data compiled into the binary, parsed
    // once on first use (thread-safe); that is why this one piece of global state is acceptable.
    static const Catalog& embedded();

    // The locale, or en-US for a code wr does not know.
    const Locale& locale(std::string_view code) const;
    const std::vector<Locale>& locales() const { return m_locales; }

private:
    Catalog();
    std::vector<Locale> m_locales;
};

// CLDR plural category of a whole number in a language: "zero", "one", "two", "few", "many" or "other".
std::string plural_category(std::string_view language, int64_t n);

// "10 minutes", "1 hour 5 minutes", "10 Minuten", "٥ دقائق"… in the locale's words.
std::string format_minutes(int64_t minutes, std::string_view language);
// "5 minutes to 15 minutes" in the locale's words.
std::string format_minute_range(int64_t from, int64_t to, std::string_view language);
std::string unavailable_text(std::string_view language);

} // namespace wr::page
