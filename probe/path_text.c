/* The hop table of a path (see probe_path_rows in probe_path.h). Pure. */
#include <stdio.h>
#include <string.h>

#include "fragprobe.h"

/* Appends to a row's seen column, "; " between parts, cut to fit. */
static void seen_add(struct probe_path_row *row, const char *part, const char *by) {
    size_t n = strlen(row->seen);
    if (n + 4 >= sizeof row->seen) return;
    snprintf(row->seen + n, sizeof row->seen - n, "%s%s [%s]", n ? "; " : "", part, by);
}

/* What left the host, as the host row's first part. */
static void sent_line(const struct probe_path *p, char *buf, size_t len) {
    const char *df = p->df < 0 ? "" : p->df ? ", DF=1" : ", DF=0";
    if (p->left == 0) snprintf(buf, len, "nothing left (%d bytes%s)", p->bytes, df);
    else if (p->sent.n == 1) snprintf(buf, len, "sent %d bytes whole%s", p->sent.len[0], df);
    else if (p->sent.n > 1) snprintf(buf, len, "sent %d bytes in %d pieces%s", p->bytes, p->sent.n, df);
    else if (p->left == 1) snprintf(buf, len, "sent %d bytes%s", p->bytes, df);
    else snprintf(buf, len, "%d bytes%s, not seen leaving", p->bytes, df);
}

int probe_path_rows(const struct probe_path *p, struct probe_path_row *rows, int max) {
    int n = p->nnodes < max ? p->nnodes : max;
    for (int i = 0; i < n; i++) {
        struct probe_path_row *row = &rows[i];
        const struct probe_path_node *nd = &p->node[i];
        memset(row, 0, sizeof *row);
        if (nd->role == PROBE_PATH_GAP) snprintf(row->hop, sizeof row->hop, "…");
        else snprintf(row->hop, sizeof row->hop, "%d", i);
        snprintf(row->name, sizeof row->name, "%s", nd->name);
        snprintf(row->addr, sizeof row->addr, "%s", nd->addr);
        if (i + 1 < p->nnodes) {
            if (p->link[i].mtu > 0) snprintf(row->mtu, sizeof row->mtu, "%d", p->link[i].mtu);
            else snprintf(row->mtu, sizeof row->mtu, "?");
        }
        if (i == 0) {
            char line[160];
            sent_line(p, line, sizeof line);
            if (p->left >= 0 || p->sent.n >= 0)
                seen_add(row, line, p->sent.from == PROBE_PATH_PIECES_CAPTURE ? "capture" : "kernel");
        }
        if (nd->reassembles) seen_add(row, "reassembles fragments", "topology");
        if (nd->does[0]) seen_add(row, nd->does, "lab");
        if (nd->silent) seen_add(row, "no answer during TTL discovery", "discovery");
        for (int e = 0; e < p->nevents; e++) {
            const struct probe_path_event *ev = &p->ev[e];
            if (ev->node != i || (ev->what == PROBE_PATH_REASSEMBLED && nd->reassembles && !ev->text[0])) continue;
            seen_add(row, ev->text[0] ? ev->text : probe_path_what_name(ev->what), probe_path_seen_name(ev->seen_by));
        }
        if (!row->seen[0]) snprintf(row->seen, sizeof row->seen, "-");
    }
    return n;
}

int probe_path_text(const struct probe_path *p, const char *indent, char *buf, size_t len) {
    struct probe_path_row rows[PROBE_PATH_NODES_MAX];
    int n = p->v ? probe_path_rows(p, rows, PROBE_PATH_NODES_MAX) : 0;
    if (len) buf[0] = 0;
    if (!n) return 0;
    int wn = 4, wa = 7;
    for (int i = 0; i < n; i++) {
        if ((int)strlen(rows[i].name) > wn) wn = (int)strlen(rows[i].name);
        if ((int)strlen(rows[i].addr) > wa) wa = (int)strlen(rows[i].addr);
    }
    size_t at = 0;
    for (int i = -1; i < n && at < len; i++) {
        int w = i < 0 ? snprintf(buf + at, len - at, "%s%3s  %-*s  %-*s  %5s  %s\n", indent, "hop", wn, "node", wa,
                                 "address", "mtu", "seen there")
                      : snprintf(buf + at, len - at, "%s%3s  %-*s  %-*s  %5s  %s\n", indent, rows[i].hop, wn,
                                 rows[i].name, wa, rows[i].addr[0] ? rows[i].addr : "?", rows[i].mtu, rows[i].seen);
        if (w < 0) break;
        at += (size_t)w;
    }
    return n;
}
