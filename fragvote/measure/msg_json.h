/* A message (fv_msg.h: a catalog key and its arguments) as JSON, the form
 * the pages word in their reader's language (docs/PROTOCOL.md "Texts as
 * messages"), and back:
 *   {"key": "rule.do_fits", "args": {"opt": "IP_PMTUDISC_DO", "size": 1400, "mtu": 1500}}
 * a number as a JSON number, a string as a string, a key's argument as
 * {"key": "answer.no"}; "args" absent when there are none. */
#ifndef FRAGVOTE_MSG_JSON_H
#define FRAGVOTE_MSG_JSON_H

#include <jansson.h>

#include "fv_msg.h"

/* m as JSON (a new reference), NULL when m has no key. */
json_t *msg_json(const struct fv_msg *m);

/* A JSON array of n messages (a new reference). */
json_t *msg_json_list(const struct fv_msg *m, int n);

/* A row of n messages (fv_msg_row_add): one as msg_json writes it, several
 * as an array of them (a page words each and joins them), NULL for none or
 * a lost row (n <= 0). */
json_t *msg_json_row(const struct fv_msg *m, int n);

/* A row from j, either shape: the number of messages (at most cap), 0 when
 * j is absent, -1 when it is not a message or an array of them. */
int msg_json_read_row(const json_t *j, struct fv_msg *m, int cap);

/* m from j (as msg_json writes it): 0, or -1 (m emptied) when j is not one. */
int msg_json_read(const json_t *j, struct fv_msg *m);

#endif
