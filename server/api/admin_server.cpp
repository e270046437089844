// Adapts cpp-httplib to the admin API: turns each httplib request into an api::Request,
// dispatches it, and writes the Reply; serves HTTPS with a certificate that can be swapped under
// it. Also works around Debian's precompiled httplib 0.11.4: TCP_NODELAY and the accept backlog
// must be set at run time (docs/design.md, "Platform traps").
#include "api/admin_server.h"

#include <chrono>
#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <stdexcept>
#include <sys/socket.h>

#include "util/log.h"

namespace wr::api {

// The certificate chain and key; each handshake takes the pair current when it starts.
struct AdminServer::TlsIdentity {
    X509* certificate = nullptr;
    STACK_OF(X509)* chain = nullptr;
    EVP_PKEY* key = nullptr;

    ~TlsIdentity() {
        X509_free(certificate);
        sk_X509_pop_free(chain, X509_free);
        EVP_PKEY_free(key);
    }
};

namespace {

std::string openssl_error() {
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return "no details";
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    return text;
}

std::shared_ptr<const AdminServer::TlsIdentity> load_identity(const std::string& certificate_file, const std::string& key_file) {
    auto identity = std::make_shared<AdminServer::TlsIdentity>();
    BIO* certificates = BIO_new_file(certificate_file.c_str(), "r");
    if (!certificates) throw std::runtime_error("--admin-tls-cert: cannot read " + certificate_file);
    identity->certificate = PEM_read_bio_X509(certificates, nullptr, nullptr, nullptr);
    identity->chain = sk_X509_new_null();
    while (X509* next = PEM_read_bio_X509(certificates, nullptr, nullptr, nullptr)) sk_X509_push(identity->chain, next);
    ERR_clear_error(); // the end of the file reads as an error
    BIO_free(certificates);
    if (!identity->certificate) throw std::runtime_error("--admin-tls-cert: " + certificate_file + " holds no PEM certificate");
    BIO* key = BIO_new_file(key_file.c_str(), "r");
    if (!key) throw std::runtime_error("--admin-tls-key: cannot read " + key_file);
    identity->key = PEM_read_bio_PrivateKey(key, nullptr, nullptr, nullptr);
    BIO_free(key);
    if (!identity->key) throw std::runtime_error("--admin-tls-key: " + key_file + " holds no PEM private key (" + openssl_error() + ")");
    if (X509_check_private_key(identity->certificate, identity->key) != 1)
        throw std::runtime_error("--admin-tls-key: " + key_file + " is not the key of the certificate in " + certificate_file);
    return identity;
}

Request to_request(const httplib::Request& in, bool https) {
    Request request;
    request.method = in.method;
    request.path = in.path;
    for (const auto& [name, value] : in.params) request.query.emplace(name, value);
    for (const auto& [name, value] : in.headers) {
        std::string lower = name;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        request.headers[lower] = value;
    }
    request.body = in.body;
    const std::string host = in.get_header_value("Host");
    request.base_url = (https ? "https://" : "http://") + (host.empty() ? std::string("127.0.0.1") : host);
    request.remote_address = in.remote_addr;
    return request;
}

} // namespace

std::string redact_capabilities(const std::string& path) {
    // A preview URL is a capability: whoever reads it (in a shared log, too) may open the page.
    constexpr std::string_view k_preview = "/preview/";
    if (path.rfind(k_preview, 0) == 0 && path.size() > k_preview.size()) return std::string(k_preview) + "<redacted>";
    return path;
}

AdminServer::AdminServer(Handler handler, AdminServerOptions options) : m_handler(std::move(handler)), m_options(std::move(options)) {
    if (m_options.tls_certificate.empty() != m_options.tls_private_key.empty())
        throw std::runtime_error("--admin-tls-cert and --admin-tls-key go together");
    if (tls()) {
        m_identity = load_identity(m_options.tls_certificate, m_options.tls_private_key);
        // Every handshake asks for the current pair, so a renewed certificate needs no restart.
        m_server = std::make_unique<httplib::SSLServer>([this](SSL_CTX& context) {
            SSL_CTX_set_min_proto_version(&context, TLS1_2_VERSION);
            SSL_CTX_set_cert_cb(
                &context,
                [](SSL* ssl, void* self) -> int {
                    const auto identity = static_cast<AdminServer*>(self)->identity();
                    return SSL_use_cert_and_key(ssl, identity->certificate, identity->key, identity->chain, 1) == 1 ? 1 : 0;
                },
                this);
            return true;
        });
    } else {
        m_server = std::make_unique<httplib::Server>();
    }
    const int threads = m_options.threads;
    m_server->new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
    m_server->set_tcp_nodelay(true);
    m_server->set_payload_max_length(m_options.max_body_bytes);
    m_server->set_keep_alive_timeout(30);
    m_server->set_socket_options([this](socket_t sock) {
        m_socket = sock;
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });

    const auto handle = [this](const httplib::Request& in, httplib::Response& out) {
        const auto started = std::chrono::steady_clock::now();
        Request request = to_request(in, tls());
        const Reply reply = m_handler(request);
        out.status = reply.status;
        out.set_content(*reply.raw_body, reply.content_type.c_str());
        out.set_header("Cache-Control", "no-store");
        for (const auto& [name, value] : reply.headers) out.set_header(name.c_str(), value.c_str());
        if (util::log_enabled(reply.quiet ? util::LogLevel::debug : util::LogLevel::info)) {
            const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
            // The path only, with capabilities in it redacted: never headers (tokens) or bodies.
            util::log(reply.quiet ? util::LogLevel::debug : util::LogLevel::info, "admin",
                      in.method + " " + redact_capabilities(in.path) + " " + std::to_string(reply.status) + " " +
                          std::to_string(elapsed.count() / 1000.0).substr(0, 6) + "ms");
        }
    };
    for (const char* pattern : {".*"}) {
        m_server->Get(pattern, handle);
        m_server->Post(pattern, handle);
        m_server->Put(pattern, handle);
        m_server->Patch(pattern, handle);
        m_server->Delete(pattern, handle);
    }
    // httplib answers oversized bodies (413) and unknown methods itself; give those the envelope too.
    m_server->set_error_handler([](const httplib::Request&, httplib::Response& out) {
        if (!out.body.empty()) return;
        if (out.status == 413) {
            out.set_content(R"({"success":false,"errors":[{"code":1009,"message":"the request body is too large"}],"messages":[],"result":null})",
                            "application/json");
        } else {
            out.set_content(R"({"success":false,"errors":[{"code":1011,"message":"the request could not be handled"}],"messages":[],"result":null})",
                            "application/json");
        }
    });
}

AdminServer::~AdminServer() { stop(); }

std::shared_ptr<const AdminServer::TlsIdentity> AdminServer::identity() const {
    std::lock_guard lock(m_tls_mutex);
    return m_identity;
}

void AdminServer::reload_tls() {
    if (!tls()) return;
    auto fresh = load_identity(m_options.tls_certificate, m_options.tls_private_key);
    std::lock_guard lock(m_tls_mutex);
    m_identity = std::move(fresh);
}

int AdminServer::bind() {
    m_port = m_options.port == 0 ? m_server->bind_to_any_port(m_options.host.c_str())
                                 : (m_server->bind_to_port(m_options.host.c_str(), m_options.port) ? m_options.port : -1);
    if (m_port <= 0)
        throw std::runtime_error("cannot listen on " + m_options.host + ":" + std::to_string(m_options.port) +
                                 " for the admin API (in use, or not a local address)");
    // httplib listens with a backlog of 5, which stalls bursts of connections for seconds.
    if (m_socket >= 0) ::listen(m_socket, 4096);
    return m_port;
}

void AdminServer::start() {
    m_thread = std::thread([this] { m_server->listen_after_bind(); });
    // httplib 0.11.4 has no wait_until_ready.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
    while (!m_server->is_running() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds{1});
    if (!m_server->is_running()) throw std::runtime_error("the admin API did not start");
}

void AdminServer::stop() {
    if (m_server) m_server->stop();
    if (m_thread.joinable()) m_thread.join();
}

} // namespace wr::api
