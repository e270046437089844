// `wr templates preview`: a queue page rendered locally in any state, to stdout, a file, or a
// local server that reloads the browser when the template file changes.
#include <atomic>
#include <csignal>
#include <filesystem>
#include <httplib.h>
#include <iostream>
#include <map>
#include <thread>

#include "commands.h"
#include "edge/gate.h"
#include "model/template_syntax.h"
#include "page/compiled_template.h"
#include "page/preview.h"
#include "page/template_variables.h"
#include "page/translations.h"
#include "page/variables.h"
#include "resolve.h"
#include "util/address.h"
#include "util/files.h"
#include "util/nearest_name.h"
#include "util/time_format.h"

namespace wr::cli {
namespace {

struct PreviewCommand {
    std::string file;
    std::string room;
    std::string zone;
    std::string state = "fifo";
    std::string language;
    std::vector<std::string> variables;
    std::string out;
    std::string serve;
};

// A room's event, for the states that show one (prequeue, event).
struct RoomEvent {
    util::TimePoint start{};
    util::TimePoint end{};
    bool shuffle_at_event_start = false;
    std::optional<std::string> custom_page_html; // the event's own page, when it has one
};

// Where the template comes from: a file (read afresh on every render), a room, or the default.
struct TemplateSource {
    std::string file;
    std::string html;         // a room's custom page, or "" for the default page
    std::string language = "en-US";
    std::optional<RoomEvent> event; // --room: its running or next event
};

page::Overrides parse_variables(const std::vector<std::string>& variables) {
    page::Overrides overrides;
    for (const std::string& variable : variables) {
        const size_t equals = variable.find('=');
        if (equals == std::string::npos || equals == 0)
            throw CliError("--var " + variable + ": expected name=value, as in --var waitTime=42");
        overrides[variable.substr(0, equals)] = variable.substr(equals + 1);
    }
    return overrides;
}

page::PreviewOptions options_for(const std::string& state, const std::string& language, const TemplateSource& source,
                                 const page::Overrides& overrides) {
    const auto options = page::preview_state(state);
    if (!options)
        throw CliError("--state " + state + ": expected one of " + page::preview_state_names() +
                       util::did_you_mean(state, page::preview_states()));
    page::PreviewOptions chosen = *options;
    chosen.language = language;
    if (source.event && chosen.event != "none") {
        chosen.event_start = source.event->start;
        chosen.event_end = source.event->end;
        if (state != "prequeue-shuffle") chosen.shuffle_at_event_start = source.event->shuffle_at_event_start;
    }
    if (const std::vector<std::string> problems = page::apply_overrides(overrides, chosen); !problems.empty())
        throw CliError("--var " + problems.front());
    return chosen;
}

// The event a room's page would show now: the one running, else the next to start.
std::optional<RoomEvent> room_event(const ApiClient& client, const RoomRef& room, util::TimePoint now) {
    std::optional<RoomEvent> chosen;
    for (const nlohmann::json& event : client.get_all(room.path() + "/events")) {
        if (event.value("suspended", false)) continue;
        const auto start = util::parse_iso8601(event.value("event_start_time", ""));
        const auto end = util::parse_iso8601(event.value("event_end_time", ""));
        if (!start || !end || *end <= now) continue;
        const bool running = *start <= now;
        if (chosen && !running && chosen->start <= *start) continue;
        RoomEvent found{*start, *end, event.value("shuffle_at_event_start", false), std::nullopt};
        if (event.contains("custom_page_html") && event["custom_page_html"].is_string())
            found.custom_page_html = event["custom_page_html"].get<std::string>();
        chosen = found;
        if (running) break;
    }
    return chosen;
}

// Warnings for what would silently show nothing on a real page: a variable the template uses
// that wr never sets, and a --var that names no variable of wr's.
void warn_of_unknown_variables(const std::string& html, const std::string& where, const page::Overrides& overrides) {
    const std::vector<std::string>& known = page::queue_page_variables();
    for (const std::string& name : page::template_variables(html))
        if (std::find(known.begin(), known.end(), name) == known.end())
            std::cerr << "wr: warning: " << where << " uses {{" << name << "}}, which wr never sets" << util::did_you_mean(name, known)
                      << "; it shows as nothing on queue pages\n";
    for (const auto& [name, value] : overrides)
        if (std::find(known.begin(), known.end(), name) == known.end())
            std::cerr << "wr: warning: --var " << name << ": wr sets no variable of that name" << util::did_you_mean(name, known)
                      << "\n";
}

// The rendered page, or a CliError naming the template's problem and where it is.
std::string render(const TemplateSource& source, const page::PreviewOptions& options, const page::Overrides& overrides) {
    std::string html = source.html;
    if (!source.file.empty()) {
        const auto content = util::read_text_file(source.file);
        if (!content) throw CliError("cannot read " + source.file);
        html = *content;
        if (const auto problem = model::template_syntax_error(html)) throw CliError(source.file + ": " + *problem);
    }
    const page::PreviewPage state = page::preview_page(options, util::SystemClock{}.now());
    if (source.event && source.event->custom_page_html && options.event != "none") html = *source.event->custom_page_html;
    if (html.empty()) html = state.reject ? edge::reject_page(options.language) : edge::default_queue_page(options.language);
    page::CompiledTemplate compiled(html);
    const auto rendered = compiled.render(state.view, &overrides);
    if (!rendered) throw CliError("the template could not be rendered");
    return *rendered;
}

// The page for --serve, with a script that reloads it when the template file changes.
std::string with_live_reload(std::string page, const std::string& version) {
    const std::string script = "<script>(function(){var v=\"" + version +
                               "\";setInterval(function(){fetch(\"/__wr/version\").then(function(r){return r.text();})"
                               ".then(function(t){if(t!==v)location.reload();}).catch(function(){});},1000);})();</script>\n";
    const size_t body_end = page.rfind("</body>");
    if (body_end == std::string::npos) return page + script;
    page.insert(body_end, script);
    return page;
}

std::string file_version(const std::string& file) {
    if (file.empty()) return "static";
    std::error_code error;
    const auto time = std::filesystem::last_write_time(file, error);
    return error ? "missing" : std::to_string(time.time_since_epoch().count());
}

void serve(const TemplateSource& source, const PreviewCommand& command, const page::Overrides& overrides) {
    const auto address = util::parse_listen_address(command.serve);
    if (!address) throw CliError("--serve: expected host:port, such as 127.0.0.1:8081");
    httplib::Server server;
    server.set_tcp_nodelay(true);
    server.Get("/favicon.ico", [](const httplib::Request&, httplib::Response& response) { response.status = 204; });
    server.Get("/__wr/version", [&](const httplib::Request&, httplib::Response& response) {
        response.set_content(file_version(source.file), "text/plain");
    });
    server.Get("/", [&](const httplib::Request& request, httplib::Response& response) {
        // ?state= and ?language= pick another state without restarting.
        const std::string state = request.has_param("state") ? request.get_param_value("state") : command.state;
        const std::string language = request.has_param("language") ? request.get_param_value("language") : source.language;
        try {
            response.set_content(with_live_reload(render(source, options_for(state, language, source, overrides), overrides),
                                                  file_version(source.file)),
                                 "text/html; charset=utf-8");
        } catch (const CliError& error) {
            // Show the mistake in the browser, and keep reloading until it is fixed.
            response.status = 500;
            response.set_content(with_live_reload("<!doctype html><pre>" + std::string(error.what()) + "</pre></body>",
                                                  file_version(source.file)),
                                 "text/html; charset=utf-8");
        }
    });
    const int port = address->port == 0 ? server.bind_to_any_port(address->host)
                                        : (server.bind_to_port(address->host, address->port) ? address->port : -1);
    if (port <= 0) throw CliError("--serve: cannot listen on " + command.serve);
    std::cout << "previewing on http://" << util::ListenAddress{address->host, port}.text()
              << "/ (add ?state=random or ?language=de-DE; Ctrl-C to stop)" << std::endl;
    server.listen_after_bind();
}

} // namespace

void add_template_commands(CLI::App& root, Context& context) {
    CLI::App* templates = root.add_subcommand("templates", "Work on queue page templates");
    templates->require_subcommand(1);
    auto command = std::make_shared<PreviewCommand>();
    CLI::App* preview = templates->add_subcommand("preview", "Render a queue page in any state, locally");
    auto* file = preview->add_option("--file", command->file, "A Mustache template to render (no server needed)")->check(CLI::ExistingFile);
    auto* room = preview->add_option("--room", command->room, "Render this room's page (asks the admin API)");
    file->excludes(room);
    preview->add_option("--zone", command->zone, "The room's zone, when several zones have rooms of that name");
    preview->add_option("--state", command->state, std::string("The state to show: ") + page::preview_state_names())
        ->capture_default_str();
    preview->add_option("--var", command->variables, "Override a variable: name=value (repeatable), e.g. --var waitTime=42");
    preview->add_option("--language", command->language, "Language of the default page and the *Formatted variables (default: the room's, or en-US)");
    auto* out = preview->add_option("--out", command->out, "Write the page to this file instead of stdout");
    auto* serve_option = preview->add_option("--serve", command->serve, "Serve it at host:port and reload the browser when the file changes");
    out->excludes(serve_option);
    preview->footer("Examples:\n  wr templates preview --file page.html --state random --out /tmp/page.html\n"
                    "  wr templates preview --file page.html --serve 127.0.0.1:8081\n"
                    "  wr templates preview --room shop --state prequeue --language de-DE\n"
                    "  wr templates preview --state queue-full --var waitTimeFormatted='ages'\n\n"
                    "Without --file or --room it renders the default page.");
    preview->callback([&context, command] {
        TemplateSource source;
        source.file = command->file;
        const std::string state = command->state;
        const bool shows_event = state == "prequeue" || state == "prequeue-shuffle" || state == "event";
        if (!command->room.empty()) {
            const ApiClient client = context.client();
            const RoomRef room = find_room(client, command->room, command->zone);
            source.html = room.room.value("custom_page_html", "");
            source.language = room.room.value("default_template_language", "en-US");
            if (shows_event) {
                source.event = room_event(client, room, util::SystemClock{}.now());
                if (!source.event)
                    std::cerr << "wr: warning: " << command->room << " has no upcoming event; the page shows one that starts in 15 minutes\n";
            }
        }
        if (!command->language.empty()) {
            const auto& locales = page::Catalog::embedded().locales();
            if (std::none_of(locales.begin(), locales.end(), [&](const page::Locale& l) { return l.code == command->language; }))
                throw CliError("--language " + command->language + ": not one of the 39 languages (en-US, de-DE, …)");
            source.language = command->language;
        }
        const page::Overrides overrides = parse_variables(command->variables);
        std::string html = source.html;
        if (!source.file.empty())
            if (const auto content = util::read_text_file(source.file)) html = *content;
        if (source.event && source.event->custom_page_html) html = *source.event->custom_page_html;
        warn_of_unknown_variables(html, source.file.empty() ? "the room's page" : source.file, overrides);
        if (!command->serve.empty()) {
            serve(source, *command, overrides);
            return;
        }
        const std::string page = render(source, options_for(command->state, source.language, source, overrides), overrides);
        if (command->out.empty())
            std::cout << page;
        else
            util::write_text_file(command->out, page);
    });
}

} // namespace wr::cli
