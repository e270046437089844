// HTTP/2 header blocks in and out of the edge's HTTP/1.1 heads.
#include "edge/h2_fields.h"

#include <charconv>

#include "edge/cookie_caching.h"
#include "edge/forward_head.h"

namespace wr::edge {
namespace {

constexpr size_t k_field_overhead = 32; // RFC 9113 §6.5.2: each field counts 32 bytes beside its name and value

bool is_pseudo(std::string_view name) { return !name.empty() && name.front() == ':'; }

} // namespace

void RequestFields::clear() {
    m_storage.clear();
    m_fields.clear();
    m_list_size = 0;
    m_counted_fields = 0;
    m_cookie_counted = false;
    m_too_large = false;
}

bool RequestFields::add(std::string_view name, std::string_view value) {
    m_list_size += name.size() + value.size() + k_field_overhead;
    const bool crumb = name == "cookie";
    if (!crumb || !m_cookie_counted) ++m_counted_fields;
    m_cookie_counted = m_cookie_counted || crumb;
    if (m_too_large) return false;
    if (m_list_size > k_max_list_size || m_counted_fields > k_max_fields) {
        m_too_large = true;
        return false;
    }
    const auto at = static_cast<uint32_t>(m_storage.size());
    m_storage += name;
    m_storage += value;
    m_fields.push_back(Span{at, static_cast<uint32_t>(name.size()), static_cast<uint32_t>(at + name.size()),
                            static_cast<uint32_t>(value.size())});
    return true;
}

bool usable_path(std::string_view method, std::string_view target) {
    return target.starts_with('/') || (target == "*" && method == "OPTIONS");
}

void RequestFields::build(net::MessageHead& head, bool end_stream) const {
    head.headers.clear(); // its room is kept: a connection's streams reuse their heads
    head.method = head.target = head.reason = {};
    head.status = 0;
    head.size = 0;
    head.content_length = 0;
    head.upgrade = false;
    head.version_minor = 1;
    head.keep_alive = true;
    std::string_view authority;
    for (const Span& span : m_fields) {
        const std::string_view name = text(span.name_at, span.name_size);
        const std::string_view value = text(span.value_at, span.value_size);
        if (name == ":method") head.method = value;
        else if (name == ":path") head.target = value;
        else if (name == ":authority") authority = value;
    }
    // :authority is the host; a Host field beside it (allowed, and meant to agree) is not read twice.
    if (!authority.empty()) head.headers.push_back(net::HeaderField{"host", authority});
    bool has_length = false;
    for (const Span& span : m_fields) {
        const std::string_view name = text(span.name_at, span.name_size);
        if (is_pseudo(name)) continue;
        if (!authority.empty() && name == "host") continue;
        const std::string_view value = text(span.value_at, span.value_size);
        head.headers.push_back(net::HeaderField{name, value});
        if (name == "content-length" && !has_length) {
            uint64_t length = 0;
            const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), length);
            if (error == std::errc{} && end == value.data() + value.size()) {
                has_length = true;
                head.content_length = length;
            }
        }
    }
    head.framing = has_length ? net::BodyFraming::length : end_stream ? net::BodyFraming::none : net::BodyFraming::chunked;
    if (has_length && head.content_length == 0) head.framing = net::BodyFraming::none;
}

void ResponseFields::clear() {
    m_storage.clear();
    m_spans.clear();
    m_nv.clear();
}

void ResponseFields::add(std::string_view name, std::string_view value) {
    const size_t at = m_storage.size();
    // HTTP/2 field names are lowercase (RFC 9113 §8.2.1); origins write them as they like.
    for (const char c : name) m_storage += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    m_storage += value;
    m_spans.push_back(Span{at, name.size(), at + name.size(), value.size(), false});
}

void ResponseFields::add_unique(std::string_view name, std::string_view value) {
    add(name, value);
    m_spans.back().unique = true;
}

void ResponseFields::add(std::string_view name, int64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    add(name, std::string_view(digits, static_cast<size_t>(end - digits)));
}

const nghttp2_nv* ResponseFields::finish(bool copy) {
    m_nv.clear();
    auto* base = reinterpret_cast<uint8_t*>(m_storage.data());
    const uint8_t copying = copy ? NGHTTP2_NV_FLAG_NONE : NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
    for (const Span& span : m_spans)
        m_nv.push_back(nghttp2_nv{base + span.name_at, base + span.value_at, span.name_size, span.value_size,
                                  static_cast<uint8_t>(copying | (span.unique ? NGHTTP2_NV_FLAG_NO_INDEX : 0))});
    return m_nv.data();
}

std::string_view ResponseFields::find(std::string_view name) const {
    for (const Span& span : m_spans)
        if (std::string_view(m_storage).substr(span.name_at, span.name_size) == name)
            return std::string_view(m_storage).substr(span.value_at, span.value_size);
    return {};
}

void page_fields(ResponseFields& out, const PageHead& head, size_t body_size) {
    out.clear();
    out.add(":status", head.status);
    out.add("content-type", head.content_type);
    out.add("cache-control", "no-store");
    if (head.refresh_seconds > 0) out.add("refresh", head.refresh_seconds);
    if (head.retry_after_seconds > 0) out.add("retry-after", head.retry_after_seconds);
    if (!head.location.empty()) out.add("location", head.location);
    if (!head.set_cookie.empty()) out.add_unique("set-cookie", head.set_cookie);
    if (!head.request_id.empty()) out.add_unique("x-request-id", head.request_id);
    out.add("content-length", static_cast<int64_t>(body_size));
}

void origin_fields(ResponseFields& out, const net::MessageHead& response, std::string_view set_cookie, bool keep_length) {
    out.clear();
    out.add(":status", response.status);
    for (const net::HeaderField& field : response.headers) {
        if (net::equals_ignoring_case(field.name, "cf-waiting-room-command")) continue; // never shown to visitors
        if (net::equals_ignoring_case(field.name, "content-length")) {
            if (keep_length && response.status != 204 && response.status >= 200) out.add(field.name, field.value);
            continue;
        }
        // HTTP/1 framing and connection fields have no meaning in HTTP/2 (RFC 9113 §8.2.2).
        if (is_hop_by_hop(response, field.name) || net::equals_ignoring_case(field.name, "proxy-connection")) continue;
        out.add(field.name, field.value);
    }
    if (!set_cookie.empty()) {
        out.add_unique("set-cookie", set_cookie);
        if (cookie_needs_private(response)) out.add("cache-control", k_private_cookie);
    }
}

} // namespace wr::edge
