// Stores template previews after checking that they parse.
#include "control/previews.h"

#include "control/error.h"
#include "model/room.h"
#include "model/template_syntax.h"
#include "store/previews_store.h"
#include "util/secure.h"

namespace wr::control {

std::string create_preview(store::Connection& connection, util::TimePoint now, std::string_view zone_id,
                           const std::string& html) {
    if (html.size() > model::k_max_custom_page_bytes) throw Error::invalid("custom_html", "must be at most 1048576 bytes");
    if (const auto problem = model::template_syntax_error(html))
        throw Error::invalid("custom_html", "is not a valid template: " + *problem);
    store::delete_expired_previews(connection, now);
    store::Preview preview{util::new_id(), std::string(zone_id), html, now + k_preview_lifetime};
    store::insert_preview(connection, preview, now);
    return preview.id;
}

} // namespace wr::control
