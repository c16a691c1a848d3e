/* The lab routers' behaviours as words: their option names, what each means
 * for people, parsing "r2" and a behaviour's name, and one sentence of them
 * all. Pure (lab_rules.c puts them into the kernel). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragprobe.h"
#include "fv_msg.h"

static const struct {
    unsigned bit;
    const char *name, *says; /* the brief words are the catalogs' labbrief.NAME (brief_of) */
} behaviours[PROBE_LAB_BEHAVIOURS] = {
    {PROBE_LAB_RATELIMIT, "ratelimit",
     "keeps Linux's default ICMP rate limits (Time Exceeded to one host: a burst of 6, then 1 a second over IPv4)"},
    {PROBE_LAB_DROPFRAG, "dropfrag", "drops every fragment that reaches it"},
    {PROBE_LAB_BLACKHOLE, "blackhole", "drops the ICMP errors it forwards (a PMTUD black hole; its own still go out)"},
    {PROBE_LAB_SILENT, "silent", "sends no Time Exceeded"},
    {PROBE_LAB_NAT, "nat", "masquerades IPv4 with conntrack (a home or venue router: it reassembles IPv4 fragments)"},
    {PROBE_LAB_CLEARDF, "cleardf",
     "clears the DF bit of the whole IPv4 packets it forwards (some firewalls and VPN gateways do; the rules say no "
     "router does)"},
};

const char *probe_lab_behaviour_name(unsigned bit) {
    for (int i = 0; i < PROBE_LAB_BEHAVIOURS; i++)
        if (behaviours[i].bit == bit) return behaviours[i].name;
    return NULL;
}

const char *probe_lab_behaviour_says(unsigned bit) {
    for (int i = 0; i < PROBE_LAB_BEHAVIOURS; i++)
        if (behaviours[i].bit == bit) return behaviours[i].says;
    return NULL;
}

int probe_lab_behaviour_parse(const char *name, unsigned *bit) {
    for (int i = 0; i < PROBE_LAB_BEHAVIOURS; i++)
        if (!strcmp(name, behaviours[i].name)) {
            *bit = behaviours[i].bit;
            return 0;
        }
    return -1;
}

int probe_lab_router_parse(const char *s) {
    if (s[0] != 'r' || s[1] < '1' || s[1] > '9' || s[2]) return -1;
    int k = s[1] - '0';
    return k <= PROBE_LAB_ROUTERS_MAX ? k : -1;
}

int probe_lab_config_add(struct probe_lab_config *cfg, unsigned bit, const char *router, char *err, size_t errlen) {
    const char *name = probe_lab_behaviour_name(bit);
    int k = probe_lab_router_parse(router);
    if (!name) {
        snprintf(err, errlen, "no lab behaviour 0x%x", bit);
        return PROBE_E_FAIL;
    }
    if (k < 0) {
        snprintf(err, errlen, "--%s wants a router r1..r%d, not \"%s\"", name, PROBE_LAB_ROUTERS_MAX, router);
        return PROBE_E_FAIL;
    }
    cfg->behave[k] |= bit;
    return 0;
}

/* Behaviour i in a few words ("drops fragments", the path picture's): the
 * catalogs' labbrief.NAME, its English from msg/ (docs/LANGUAGES.md), so the
 * terminal and the pages say the same. */
static const char *brief_of(int i) {
    char key[FV_MSG_KEY_MAX];
    snprintf(key, sizeof key, "labbrief.%s", behaviours[i].name);
    const char *t = fv_msg_en(key);
    return t ? t : behaviours[i].name;
}

void probe_lab_node_does(const struct probe_lab *lab, int node, int brief, const char *and_, char *buf, size_t len) {
    size_t n = 0;
    if (len) buf[0] = '\0';
    if (node < 1 || node + 1 >= lab->nnodes) return;
    for (int i = 0; i < PROBE_LAB_BEHAVIOURS && n < len; i++)
        if (lab->cfg.behave[node] & behaviours[i].bit)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? and_ : "", brief ? brief_of(i) : behaviours[i].says);
}

void probe_lab_behaviours_text(const struct probe_lab *lab, int reassembly, char *buf, size_t len) {
    size_t n = 0;
    if (len) buf[0] = '\0';
    for (int k = 1; k + 1 < lab->nnodes && n < len; k++) {
        char does[512];
        probe_lab_node_does(lab, k, 0, " and ", does, sizeof does);
        if (reassembly && lab->cfg.reassemble == k)
            n += (size_t)snprintf(buf + n, len - n, "%s%s reassembles fragments (conntrack defrag)", n ? "; " : "",
                                  lab->name[k]);
        if (does[0] && n < len) n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? "; " : "", lab->name[k], does);
    }
}

int probe_lab_config_same(const struct probe_lab_config *a, const struct probe_lab_config *b) {
    int ra = a->routers ? a->routers : PROBE_LAB_ROUTERS_DEFAULT, rb = b->routers ? b->routers : PROBE_LAB_ROUTERS_DEFAULT;
    return ra == rb && a->reassemble == b->reassemble && !memcmp(a->mtu, b->mtu, sizeof a->mtu) &&
           !memcmp(a->behave, b->behave, sizeof a->behave);
}
