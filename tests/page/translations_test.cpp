// The 39 languages of the default pages: every string, every plural form, the right direction.
#include <doctest/doctest.h>

#include <set>

#include "model/enums.h"
#include "page/translations.h"

using wr::page::Catalog;

TEST_CASE("page: every language of the API has a complete translation") {
    const Catalog& catalog = Catalog::embedded();
    CHECK(catalog.locales().size() == wr::model::k_template_languages.size());
    for (const std::string_view code : wr::model::k_template_languages) {
        CAPTURE(code);
        const wr::page::Locale& locale = catalog.locale(code);
        REQUIRE(locale.code == code);
        for (const std::string& key : wr::page::required_texts()) {
            CAPTURE(key);
            REQUIRE(locale.texts.contains(key));
            CHECK_FALSE(locale.texts.at(key).empty());
        }
        CHECK(locale.texts.at("prequeue").find("{{timeUntilEventStartFormatted}}") != std::string::npos);
        CHECK(locale.range.find("{from}") != std::string::npos);
        CHECK(locale.range.find("{to}") != std::string::npos);
        // Every plural form the language's rule can ask for exists, for minutes and hours.
        for (int64_t n = 0; n <= 1000; ++n) {
            const std::string category = wr::page::plural_category(code, n);
            CAPTURE(n);
            CAPTURE(category);
            CHECK(locale.minute.contains(category));
            CHECK(locale.hour.contains(category));
        }
        CHECK(locale.minute.contains("other"));
        // The default pages have every text filled in.
        CHECK(locale.queue_page.find("[[") == std::string::npos);
        CHECK(locale.reject_page.find("[[") == std::string::npos);
        CHECK(locale.queue_page.find("lang=\"" + std::string(code) + "\"") != std::string::npos);
    }
}

TEST_CASE("page: Arabic, Persian and Hebrew pages read right to left") {
    const std::set<std::string> rtl = {"ar-EG", "fa-IR", "he-IL"};
    for (const wr::page::Locale& locale : Catalog::embedded().locales()) {
        CAPTURE(locale.code);
        CHECK(locale.right_to_left == rtl.contains(locale.code));
        const bool marked = locale.queue_page.find("<html lang=\"" + locale.code + "\" dir=\"rtl\">") != std::string::npos;
        CHECK(marked == locale.right_to_left);
    }
}

TEST_CASE("page: waits are written with each language's plural rules") {
    struct Case {
        const char* language;
        int64_t minutes;
        const char* text;
    };
    const Case cases[] = {
        {"en-US", 1, "1 minute"},          {"en-US", 2, "2 minutes"},          {"en-US", 60, "1 hour"},
        {"en-US", 75, "1 hour 15 minutes"}, {"en-US", 121, "2 hours 1 minute"}, {"de-DE", 75, "1 Stunde 15 Minuten"},
        {"fr-FR", 1, "1 minute"},          {"fr-FR", 0, "0 minute"},           {"ru-RU", 21, "21 минута"},
        {"ru-RU", 22, "22 минуты"},        {"ru-RU", 25, "25 минут"},          {"ru-RU", 11, "11 минут"},
        {"pl-PL", 1, "1 minuta"},          {"pl-PL", 22, "22 minuty"},         {"pl-PL", 25, "25 minut"},
        {"cs-CZ", 3, "3 minuty"},          {"cs-CZ", 5, "5 minut"},            {"sl-SI", 2, "2 minuti"},
        {"lt-LT", 12, "12 minučių"},       {"lv-LV", 10, "10 minūšu"},         {"ro-RO", 25, "25 de minute"},
        {"ar-EG", 1, "دقيقة واحدة"},        {"ar-EG", 2, "دقيقتان"},             {"ar-EG", 5, "5 دقائق"},
        {"ar-EG", 15, "15 دقيقة"},          {"he-IL", 2, "שתי דקות"},            {"ja-JP", 90, "1時間30分"},
        {"zh-CN", 5, "5 分钟"},             {"xx-XX", 3, "3 minutes"}, // unknown languages fall back to English
    };
    for (const Case& c : cases) {
        CAPTURE(c.language);
        CAPTURE(c.minutes);
        CHECK(wr::page::format_minutes(c.minutes, c.language) == c.text);
    }
    CHECK(wr::page::format_minute_range(5, 15, "en-US") == "5 minutes to 15 minutes");
    CHECK(wr::page::format_minute_range(5, 15, "de-DE") == "5 Minuten bis 15 Minuten");
    CHECK(wr::page::unavailable_text("es-ES") == "no disponible");
}
