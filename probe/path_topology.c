/* Lookups in what is known of a path before judging it (struct
 * probe_path_topology): the judges get the lab's topology as data and find
 * the answering hop, the node a packet reached and the smallest link a
 * router forwarded it onto here. Pure: plain data in, an index out. Its own file so
 * the judges need nothing of path.c (which itself uses the judge's rules). */
#include <string.h>

#include "fragprobe.h"

int probe_path_topology_node_of(const struct probe_path_topology *t, const char *addr) {
    for (int n = 0; n < t->nnodes && n < PROBE_PATH_NODES_MAX; n++)
        if (t->node[n].addr[0] && !strcmp(addr, t->node[n].addr)) return n;
    return -1;
}

int probe_path_topology_last_node(const struct probe_path_topology *t, const struct probe_result *r) {
    if (r->icmp.hop[0]) return probe_path_topology_node_of(t, r->icmp.hop);
    if (r->spec.ttl <= 0) return -1;
    return r->spec.ttl < t->nnodes - 1 ? r->spec.ttl : t->nnodes - 1;
}

int probe_path_topology_routed_mtu(const struct probe_path_topology *t, int last, int *link) {
    int m = 0;
    for (int i = 1; i < last && i < t->nnodes - 1; i++)
        if (!m || t->link[i].mtu < m) {
            m = t->link[i].mtu;
            *link = i;
        }
    return m;
}

int probe_path_topology_clears_df(const struct probe_path_topology *t) {
    for (int i = 1; t && i + 1 < t->nnodes && i < PROBE_PATH_NODES_MAX; i++)
        if (t->node[i].clears_df) return i;
    return 0;
}
