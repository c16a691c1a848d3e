/* Picks the witness a command or deck asked for; see witness_cli.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "witness_cli.h"

int witness_cli_setup(const char *spec, const char *key_hex, const struct probe_lab *lab, struct witness_cli *w,
                      char *err, size_t errlen) {
    memset(w, 0, sizeof *w);
    if (!spec || !*spec) spec = lab ? "lab" : "none";
    snprintf(w->label, sizeof w->label, "%s", spec);
    if (!strcmp(spec, "none")) return 0;
    if (!strcmp(spec, "lab")) {
        if (!lab) {
            snprintf(err, errlen, "witness \"lab\" needs the lab as target (a real target: --witness HOST:PORT)");
            return -1;
        }
        char e[256];
        if (probe_lab_witness_start(lab, -1, &w->lab, e, sizeof e) < 0) {
            snprintf(err, errlen, "%s", e);
            return -1;
        }
        w->lab_started = 1;
        w->target = &w->lab.target;
        snprintf(w->label, sizeof w->label, "lab (%s, port %d)", probe_lab_dst_ns(lab), w->lab.target.port);
        return 0;
    }
    if (probe_witness_target_parse(spec, &w->remote, err, errlen) < 0) return -1;
    if (!key_hex || !*key_hex) key_hex = getenv(WITNESS_CLI_KEY_ENV);
    if (!key_hex || !*key_hex) {
        snprintf(err, errlen,
                 "the witness %s needs its key: --witness-key HEX or $%s (`fragvote witness` prints it)", spec,
                 WITNESS_CLI_KEY_ENV);
        return -1;
    }
    if (probe_witness_key_parse(key_hex, w->remote.key) < 0) {
        snprintf(err, errlen, "the witness key must be 32 hex digits");
        return -1;
    }
    w->target = &w->remote;
    return 0;
}

void witness_cli_stop(struct witness_cli *w) {
    if (w->lab_started) probe_lab_witness_stop(&w->lab);
    w->lab_started = 0;
    w->target = NULL;
}
