#pragma once
// One POST of a notification to a webhook URL, with its own client (never the edge's or the admin
// API's), the whole attempt (connect, send, answer) bounded by a timeout. The notification
// service's sender thread is its only caller.
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wr::notify {

struct PostOutcome {
    std::optional<int> status; // the receiver's HTTP status; none when it could not be reached
    std::string error;         // why it was not delivered, "" when it was

    bool delivered() const { return status && *status >= 200 && *status < 300; }
};

using Headers = std::vector<std::pair<std::string, std::string>>;

// `url` is a destination's (validated) URL. https URLs are checked against the system's CAs.
PostOutcome post_webhook(const std::string& url, const Headers& headers, const std::string& body, std::chrono::milliseconds timeout);

} // namespace wr::notify
