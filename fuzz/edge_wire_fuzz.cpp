// libFuzzer target for what nodes hand each other: any bytes as an edge's push (read by the
// control node), as the configuration snapshot (read by an edge) and as an edge's saved outbox.
// What reads must write back and read again to the same thing; nothing may crash. Build and run
// with `make fuzz` (fuzz/run.sh).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fleet/outbox.h"
#include "fleet/report_wire.h"
#include "fleet/snapshot_wire.h"
#include "model/config_document_json.h"

namespace {

void check(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);

    std::string error;
    if (const auto push = wr::fleet::read_push(input, error)) {
        const std::string again = wr::fleet::push_body(*push);
        std::string second_error;
        const auto reread = wr::fleet::read_push(again, second_error);
        check(reread.has_value(), "a push read once reads again");
        check(wr::fleet::push_body(*reread) == again, "a push writes the same twice");
        if (push->batch) check(reread->batch->records == push->batch->records, "a batch's minutes survive the round trip");
    } else {
        check(!error.empty(), "a refused push says why");
    }

    error.clear();
    if (const auto snapshot = wr::fleet::read_snapshot(input, error)) {
        check(!snapshot->keys->keys().empty(), "a snapshot has keys");
        const std::string again = wr::fleet::snapshot_body(snapshot->document, *snapshot->keys);
        std::string second_error;
        const auto reread = wr::fleet::read_snapshot(again, second_error);
        check(reread.has_value(), "a snapshot read once reads again");
        check(wr::fleet::snapshot_body(reread->document, *reread->keys) == again, "a snapshot writes the same twice");
    } else {
        check(!error.empty(), "a refused snapshot says why");
    }

    const nlohmann::json json = nlohmann::json::parse(input, nullptr, false);
    if (json.is_discarded()) return 0;
    if (auto outbox = wr::fleet::Outbox::from_json(json)) {
        const nlohmann::json saved = outbox->to_json();
        check(wr::fleet::Outbox::from_json(saved).has_value(), "a saved outbox loads again");
        // Draining it never loops and never sends a number twice.
        int64_t last = 0;
        for (int i = 0; i < 100000; ++i) {
            const wr::fleet::AnalyticsBatch* batch = outbox->next();
            if (!batch) break;
            check(batch->sequence > last, "batch numbers grow");
            last = batch->sequence;
            outbox->acknowledge(batch->sequence);
        }
        check(outbox->empty(), "an outbox drains");
    }
    wr::model::ConfigDocument document;
    const wr::model::FieldErrors errors = wr::model::read_config_document(json, document);
    for (const wr::model::FieldError& field_error : errors) check(!field_error.message.empty(), "every error says what is wrong");
    return 0;
}
