#pragma once
// On a node that owns the database (control or all): the snapshot edges pull, kept serialised in
// memory with its ETag. The configuration feed replaces it when the configuration or the keys
// change; edges' polls read it without touching the database, so a hundred edges polling every
// second cost a hundred comparisons of a string.
#include <memory>
#include <mutex>
#include <string>

#include "util/key_ring.h"
#include "model/config_document.h"

namespace wr::fleet {

class PublishedSnapshot {
public:
    struct Current {
        std::shared_ptr<const std::string> body; // null before the first update
        std::string etag;
    };

    void update(const model::ConfigDocument& document, const util::KeyRing& keys);
    Current current() const;

private:
    mutable std::mutex m_mutex; // guards m_current; held only to copy or swap it
    Current m_current;
};

} // namespace wr::fleet
