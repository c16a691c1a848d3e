/* Messages as JSON and back (msg_json.h). */
#include "msg_json.h"

#include <stdio.h>
#include <string.h>

json_t *msg_json(const struct fv_msg *m) {
    if (!m->key[0]) return NULL;
    json_t *o = json_pack("{s:s}", "key", m->key);
    if (!o || !m->nargs) return o;
    json_t *args = json_object();
    for (int i = 0; i < m->nargs; i++) {
        const struct fv_msg_arg *a = &m->arg[i];
        json_t *v = a->type == FV_MSG_INT   ? json_integer(a->i)
                    : a->type == FV_MSG_KEY ? json_pack("{s:s}", "key", a->s)
                                            : json_string(a->s);
        json_object_set_new(args, a->name, v);
    }
    json_object_set_new(o, "args", args);
    return o;
}

json_t *msg_json_list(const struct fv_msg *m, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *e = msg_json(&m[i]);
        if (e) json_array_append_new(a, e);
    }
    return a;
}

int msg_json_read(const json_t *j, struct fv_msg *m) {
    memset(m, 0, sizeof *m);
    const char *key = json_string_value(json_object_get(j, "key"));
    if (!key || strlen(key) >= sizeof m->key) return -1;
    snprintf(m->key, sizeof m->key, "%s", key);
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(j, "args"), name, v) {
        if (m->nargs == FV_MSG_ARGS_MAX || strlen(name) >= FV_MSG_NAME_MAX) break;
        struct fv_msg_arg *a = &m->arg[m->nargs];
        const char *s = json_is_string(v) ? json_string_value(v) : json_string_value(json_object_get(v, "key"));
        if (json_is_integer(v)) a->type = FV_MSG_INT, a->i = json_integer_value(v);
        else if (s) a->type = json_is_string(v) ? FV_MSG_STR : FV_MSG_KEY, snprintf(a->s, sizeof a->s, "%s", s);
        else continue;
        snprintf(a->name, sizeof a->name, "%s", name);
        m->nargs++;
    }
    return 0;
}

json_t *msg_json_row(const struct fv_msg *m, int n) {
    if (n <= 0) return NULL;
    return n == 1 ? msg_json(&m[0]) : msg_json_list(m, n);
}

int msg_json_read_row(const json_t *j, struct fv_msg *m, int cap) {
    if (!j) return 0;
    if (!json_is_array(j)) return cap > 0 && msg_json_read(j, &m[0]) == 0 ? 1 : -1;
    if (json_array_size(j) > (size_t)cap) return -1;
    size_t i;
    json_t *e;
    json_array_foreach(j, i, e) if (msg_json_read(e, &m[i]) < 0) return -1;
    return (int)json_array_size(j);
}
