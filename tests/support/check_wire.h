/* The wire decoders' results in tests (probe/wire/probe_wire.h, for probe/
 * and its tests): a decoded ICMP message checked field by field. */
#ifndef FRAGVOTE_CHECK_WIRE_H
#define FRAGVOTE_CHECK_WIRE_H
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "probe_wire.h"

/* A decoded ICMP message's field by name (its own: "kind", "mtu", "type";
 * its quote's: "family", "total_len", "ttl", "df", "mf", "frag_offset",
 * "frag_hdr", "id", "l4", "sport", "dport", "quoted_bytes"; and "fragment",
 * probe_quote_is_fragment of the quote). Unknown names are -999999. */
struct check_field {
    const char *name;
    long long want;
};

static inline long long check_icmp_field(const struct probe_icmp *m, const char *name) {
    const struct probe_quote *q = &m->q;
    const struct {
        const char *name;
        long long v;
    } f[] = {{"kind", m->kind},           {"mtu", m->mtu},         {"type", m->type},
             {"family", q->family},       {"total_len", q->total_len}, {"ttl", q->ttl},
             {"df", q->df},               {"mf", q->mf},           {"frag_offset", q->frag_offset},
             {"frag_hdr", q->frag_hdr},   {"id", q->id},           {"l4", q->l4},
             {"sport", q->sport},         {"dport", q->dport},     {"quoted_bytes", q->quoted_bytes},
             {"fragment", probe_quote_is_fragment(q)}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!strcmp(f[i].name, name)) return f[i].v;
    return -999999;
}

/* Each field of want (up to a NULL name) as m has it. */
#define CHECK_ICMP_FIELDS(m, ...) do { \
    for (const struct check_field *w_ = (const struct check_field[]){__VA_ARGS__, {NULL, 0}}; w_->name; w_++) { \
        long long got_ = check_icmp_field((m), w_->name); \
        if (got_ != w_->want) { check_cur_failed_ = 1; \
            fprintf(stderr, "%s:%d: %s: %s == %lld, expected %lld\n", __FILE__, __LINE__, check_cur_name_, w_->name, got_, w_->want); } } } while (0)

#endif
