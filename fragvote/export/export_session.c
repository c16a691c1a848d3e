/* One stored session's export as a string (see export.h): what `fragvote
 * export --format F ID` writes, for the hub to hand to the laptop over its
 * connection (serve --prober remote, docs/PROTOCOL.md "export"). */

#include <stdio.h>
#include <stdlib.h>

#include "export.h"

int export_session_text(struct db *db, int64_t session_id, const char *format, char **out, char *err,
                        size_t errlen) {
    *out = NULL;
    enum export_format f;
    if (!format || export_format_parse(format, &f)) {
        snprintf(err, errlen, "unknown export format '%s' (csv, json, markdown, md, svg)", format ? format : "");
        return -1;
    }
    struct db_report *r = db_report_open(db, err, errlen);
    if (!r) return -1;
    struct db_report_session s;
    int rc = db_report_session_load(db, r, session_id, &s, err, errlen);
    db_report_close(r);
    if (rc) return -1;
    size_t len = 0;
    FILE *mem = open_memstream(out, &len);
    if (!mem) {
        snprintf(err, errlen, "out of memory for the export");
        db_report_session_free(&s);
        return -1;
    }
    rc = export_write(mem, f, &s, 1, err, errlen);
    if (fclose(mem) && !rc) {
        snprintf(err, errlen, "out of memory for the export");
        rc = -1;
    }
    db_report_session_free(&s);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}
