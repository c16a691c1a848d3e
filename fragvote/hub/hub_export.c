/* `export` over the authed presenter connection (docs/PROTOCOL.md "The
 * remote prober"): the laptop downloads the session's export from a hosted
 * hub, where the database lives. Only once the talk has ended and every
 * question is revealed or skipped (a pending question "next" went past can
 * be opened again after "back"): an export holds every measured answer and
 * its evidence, revealed or not, and nothing may show a truth before its
 * reveal. The export itself is serve's
 * (cfg.export_session): the hub knows no export format. Lws thread. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "hub.h"
#include "hub_batch.h"
#include "hub_export.h"
#include "hub_send.h"

void hub_export(const struct hub_config *cfg, struct room *room, struct hub_batch *b, struct hub_conn *c,
                const char *format) {
    char err[256];
    if (hub_conn_forbidden(c, "only the presenter can download the session's export")) return;
    if (!cfg->export_session) {
        hub_conn_error(c, -1, "not_available", "this hub has no export; run fragvote export on its host");
        return;
    }
    struct quiz *q = room_quiz(room);
    int open = quiz_first_open(q);
    if (!quiz_ended(q)) {
        hub_conn_error(c, -1, "not_ended",
                       "the export is available once the talk has ended (next past the last question): it holds "
                       "answers not yet revealed");
        return;
    }
    if (open >= 0) { /* "next" went past it; "back" could still open it */
        snprintf(err, sizeof err,
                 "the export is available once every question is revealed or skipped: question %d is not (it holds "
                 "answers not yet revealed)", open + 1);
        hub_conn_error(c, -1, "not_ended", err);
        return;
    }
    if (!format) {
        hub_conn_error(c, -1, "bad_export", "an export needs \"format\": json, csv, markdown (md) or svg");
        return;
    }
    if (hub_batch_complete(b, ROOM_BUSY_LIVE_MS)) { /* the export reads the store: no batch in flight */
        hub_conn_error(c, -1, "busy", "the database is busy; ask again");
        return;
    }
    char *text = NULL;
    if (cfg->export_session(cfg->ctx, format, &text, err, sizeof err)) {
        hub_conn_error(c, -1, "bad_export", err);
        return;
    }
    json_t *o = json_pack("{s:s, s:s, s:I, s:s}", "t", "export_ok", "format", format, "session",
                          (json_int_t)room_session_id(room), "data", text);
    free(text);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!s) {
        hub_conn_error(c, -1, "bad_export", "the export is not valid UTF-8 text, or out of memory");
        return;
    }
    hub_conn_send_own(c, s);
}
