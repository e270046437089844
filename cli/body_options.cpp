// Collects the options a user gave into a JSON body.
#include "body_options.h"

#include "context.h"
#include "util/files.h"
#include "util/time_format.h"

namespace wr::cli {

BodyOptions::Entry& BodyOptions::add(Kind kind, std::string key) {
    Entry& entry = m_entries.emplace_back();
    entry.kind = kind;
    entry.key = std::move(key);
    return entry;
}

void BodyOptions::add_string(CLI::App* command, const std::string& flags, std::string key, const std::string& help) {
    Entry& entry = add(Kind::string, std::move(key));
    entry.option = command->add_option(flags, entry.text, help);
}

CLI::Option* BodyOptions::add_integer(CLI::App* command, const std::string& flags, std::string key, const std::string& help) {
    Entry& entry = add(Kind::integer, std::move(key));
    entry.option = command->add_option(flags, entry.integer, help);
    return entry.option;
}

void BodyOptions::add_boolean(CLI::App* command, const std::string& flag, std::string key, const std::string& help) {
    Entry& entry = add(Kind::boolean, std::move(key));
    entry.option = command->add_flag(flag + ",!--no-" + flag.substr(2), entry.boolean, help + " (--no-" + flag.substr(2) + " to turn off)");
}

void BodyOptions::add_choice(CLI::App* command, const std::string& flags, std::string key, std::vector<std::string> choices,
                             const std::string& help) {
    Entry& entry = add(Kind::string, std::move(key));
    entry.option = command->add_option(flags, entry.text, help)->check(CLI::IsMember(std::move(choices)));
}

void BodyOptions::add_file(CLI::App* command, const std::string& flags, std::string key, const std::string& help) {
    Entry& entry = add(Kind::file, std::move(key));
    entry.option = command->add_option(flags, entry.text, help)->check(CLI::ExistingFile);
}

void BodyOptions::add_time(CLI::App* command, const std::string& flags, std::string key, const std::string& help) {
    Entry& entry = add(Kind::time, std::move(key));
    entry.option = command->add_option(flags, entry.text, help + ": an ISO 8601 time (2026-12-01T10:00:00Z) or a time from now "
                                                                   "(+30m, +2h, +1d)")
                       ->type_name("TIME");
}

std::string resolve_time(const std::string& text) {
    if (text.size() < 3 || text[0] != '+') return text;
    const char unit = text.back();
    const std::string number = text.substr(1, text.size() - 2);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos || number.size() > 6)
        throw CliError("cannot read the time " + text + " (write +30m, +2h, +1d or an ISO 8601 time)");
    const int64_t amount = std::stoll(number);
    std::chrono::minutes offset{0};
    switch (unit) {
    case 's': offset = std::chrono::minutes{amount / 60}; break;
    case 'm': offset = std::chrono::minutes{amount}; break;
    case 'h': offset = std::chrono::hours{amount}; break;
    case 'd': offset = std::chrono::hours{24 * amount}; break;
    default: throw CliError("cannot read the time " + text + " (write +30m, +2h, +1d or an ISO 8601 time)");
    }
    // Whole seconds: a time typed as "+1h" should not carry the milliseconds of the moment.
    const auto now = std::chrono::floor<std::chrono::seconds>(util::SystemClock{}.now());
    return util::format_iso8601(std::chrono::time_point_cast<util::Milliseconds>(now + offset));
}

std::map<std::string, std::string> BodyOptions::flags() const {
    std::map<std::string, std::string> flags;
    for (const Entry& entry : m_entries)
        if (entry.option && !entry.option->get_lnames().empty()) flags[entry.key] = "--" + entry.option->get_lnames().front();
    return flags;
}

nlohmann::json BodyOptions::body() const {
    nlohmann::json body = nlohmann::json::object();
    for (const Entry& entry : m_entries) {
        if (!entry.option || entry.option->count() == 0) continue;
        switch (entry.kind) {
        case Kind::string: body[entry.key] = entry.text; break;
        case Kind::integer: body[entry.key] = entry.integer; break;
        case Kind::boolean: body[entry.key] = entry.boolean; break;
        case Kind::time: body[entry.key] = resolve_time(entry.text); break;
        case Kind::file: {
            const auto content = util::read_text_file(entry.text);
            if (!content) throw CliError("cannot read " + entry.text);
            body[entry.key] = *content;
            break;
        }
        }
    }
    return body;
}

} // namespace wr::cli
