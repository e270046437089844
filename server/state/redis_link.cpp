// A connection to one Redis master, made ready for the reconcile script.
#include "state/redis_link.h"

#include <hiredis/hiredis.h>

#include "state/host_lookup.h"
#include "state/reconcile_call.h"

namespace wr::state {
namespace {

timeval to_timeval(util::Milliseconds duration) {
    return timeval{static_cast<time_t>(duration.count() / 1000), static_cast<suseconds_t>((duration.count() % 1000) * 1000)};
}

struct Argv {
    explicit Argv(const std::vector<std::string>& arguments) {
        for (const std::string& argument : arguments) {
            pointers.push_back(argument.data());
            lengths.push_back(argument.size());
        }
    }
    std::vector<const char*> pointers;
    std::vector<size_t> lengths;
};

} // namespace

void ReplyDeleter::operator()(redisReply* reply) const { freeReplyObject(reply); }

std::string endpoint_text(const RedisEndpoint& endpoint) {
    const bool v6 = endpoint.host.find(':') != std::string::npos;
    return (v6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + std::to_string(endpoint.port);
}

redisContext* open_context(const RedisEndpoint& endpoint, const char* role, const LinkTimeouts& timeouts) {
    const std::string what = std::string("cannot connect to ") + role + " " + endpoint_text(endpoint);
    // The name looked up within the connect timeout (host_lookup.h), each address tried in the
    // resolver's order, as hiredis would.
    const auto addresses = addresses_within(endpoint.host, timeouts.connect);
    if (!addresses)
        throw StoreUnavailable(what + ": looking " + endpoint.host + " up took longer than " + std::to_string(timeouts.connect.count()) + " ms",
                               false);
    if (addresses->empty()) throw StoreUnavailable(what + ": " + endpoint.host + " has no address", false);
    std::string why;
    for (const std::string& address : *addresses) {
        redisContext* context = redisConnectWithTimeout(address.c_str(), endpoint.port, to_timeval(timeouts.connect));
        if (!context) {
            why = "out of memory";
            continue;
        }
        if (context->err) {
            why = context->errstr;
            redisFree(context);
            continue;
        }
        redisSetTimeout(context, to_timeval(timeouts.command));
        return context;
    }
    throw StoreUnavailable(what + ": " + why, false);
}

RedisReplyPtr run_command(redisContext* context, const std::vector<std::string>& arguments) {
    Argv argv(arguments);
    return RedisReplyPtr(static_cast<redisReply*>(
        redisCommandArgv(context, static_cast<int>(argv.pointers.size()), argv.pointers.data(), argv.lengths.data())));
}

void append_command(redisContext* context, const std::vector<std::string>& arguments) {
    Argv argv(arguments);
    redisAppendCommandArgv(context, static_cast<int>(argv.pointers.size()), argv.pointers.data(), argv.lengths.data());
}

void RedisLink::set_command_timeout(util::Milliseconds timeout) {
    if (m_context) redisSetTimeout(m_context, to_timeval(timeout));
}

void RedisLink::close() {
    if (m_context) redisFree(m_context);
    m_context = nullptr;
}

void RedisLink::open(const RedisEndpoint& endpoint, const StateUrl& url, const LinkTimeouts& timeouts) {
    close();
    redisContext* context = open_context(endpoint, "redis", timeouts);
    const auto fail = [&](const std::string& why) {
        redisFree(context);
        throw StoreUnavailable("redis " + endpoint_text(endpoint) + ": " + why, false);
    };
    const auto run = [&](const std::vector<std::string>& arguments, const char* what) {
        RedisReplyPtr reply = run_command(context, arguments);
        if (!reply) fail(std::string(what) + ": " + context->errstr);
        if (reply->type == REDIS_REPLY_ERROR) fail(std::string(what) + ": " + reply_text(reply.get()));
        return reply;
    };
    if (!url.password.empty()) {
        if (url.username.empty()) run({"AUTH", url.password}, "AUTH");
        else run({"AUTH", url.username, url.password}, "AUTH");
    }
    if (url.database != 0) run({"SELECT", std::to_string(url.database)}, "SELECT");
    // A replica would refuse the script's writes; Sentinel (or a Cluster's slot map read just
    // before a failover) may name a master that has just become a replica. Either way, not this one.
    const RedisReplyPtr role = run({"ROLE"}, "ROLE");
    if (role->type != REDIS_REPLY_ARRAY || role->elements == 0 || reply_text(role->element[0]) != "master")
        fail("is a " + (role->type == REDIS_REPLY_ARRAY && role->elements ? reply_text(role->element[0]) : std::string("server")) +
             ", not the master");
    // The server's identity: a room whose state another server wrote (a promoted replica, a
    // restart) holds its grants until every node has synced (reconcile.lua).
    const RedisReplyPtr info = run({"INFO", "server"}, "INFO");
    const std::string text = reply_text(info.get());
    const size_t run_id = text.find("run_id:");
    if (run_id == std::string::npos) fail("INFO server has no run_id");
    m_server = text.substr(run_id + 7, text.find_first_of("\r\n", run_id) - run_id - 7);
    const RedisReplyPtr loaded = run({"SCRIPT", "LOAD", std::string(reconcile_script())}, "SCRIPT LOAD");
    m_sha = reply_text(loaded.get());
    m_context = context;
    m_endpoint = endpoint;
}

} // namespace wr::state
