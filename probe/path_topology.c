/* Lookups in what is known of a path before judging it (struct
 * probe_path_topology): the judges get the lab's topology as data and find
 * the answering hop here. Pure: plain data in, an index out. Its own file so
 * the judges need nothing of path.c (which itself uses the judge's rules). */
#include <string.h>

#include "fragprobe.h"

int probe_path_topology_node_of(const struct probe_path_topology *t, const char *addr) {
    for (int n = 0; n < t->nnodes && n < PROBE_PATH_NODES_MAX; n++)
        if (t->node[n].addr[0] && !strcmp(addr, t->node[n].addr)) return n;
    return -1;
}
