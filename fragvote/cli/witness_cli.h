/* The far-end witness as `probe`, `serve` and decks name it: "lab" (a
 * witness the program runs in the lab's dst), "none", or HOST:PORT of a
 * `fragvote witness` whose key comes from --witness-key or
 * $FRAGVOTE_WITNESS_KEY. */
#ifndef FRAGVOTE_WITNESS_CLI_H
#define FRAGVOTE_WITNESS_CLI_H
#include <stddef.h>

#include "fragprobe.h"

#define WITNESS_CLI_KEY_ENV "FRAGVOTE_WITNESS_KEY"

struct witness_cli {
    const struct probe_witness_target *target; /* for probe_run_opts.witness; NULL = none */
    struct probe_witness_target remote;
    struct probe_lab_witness lab;               /* running when lab_started */
    int lab_started;
    char label[300];                            /* "lab (dst, port N)" / "HOST:PORT" / "none" */
};
/* spec: NULL or "" = "lab" when lab is given, else "none". key_hex may be
 * NULL (then the environment). Starts the lab's witness for "lab". 0, or -1
 * with a sentence in err (a usage error: wrong form, no key, no lab). */
int witness_cli_setup(const char *spec, const char *key_hex, const struct probe_lab *lab, struct witness_cli *w,
                      char *err, size_t errlen);
/* Stops the lab's witness if this started one. */
void witness_cli_stop(struct witness_cli *w);
#endif
