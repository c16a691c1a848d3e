/* The lab routers' behaviours as words: their option names, what each means
 * for people, parsing "r2" and a behaviour's name, and one sentence of them
 * all. Pure (lab_rules.c puts them into the kernel). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragprobe.h"
#include "fv_msg.h"

/* What each means for people is the catalogs' lab.NAME (a sentence: "drops
 * every fragment that reaches it") and labbrief.NAME (a few words: "drops
 * fragments"), their English read from msg/ (docs/LANGUAGES.md): the
 * terminal, the evidence and the pages say the same words, and a change of
 * wording is one edit of audience-web/i18n-en.json. */
static const struct {
    unsigned bit;
    const char *name;
} behaviours[PROBE_LAB_BEHAVIOURS] = {
    {PROBE_LAB_RATELIMIT, "ratelimit"}, {PROBE_LAB_DROPFRAG, "dropfrag"}, {PROBE_LAB_BLACKHOLE, "blackhole"},
    {PROBE_LAB_SILENT, "silent"},       {PROBE_LAB_NAT, "nat"},           {PROBE_LAB_CLEARDF, "cleardf"},
};

/* The English of the catalog's family.NAME for behaviour i (family "lab" or
 * "labbrief"), its name should the catalog lack it (the catalog test keeps
 * that from shipping). */
static const char *words_of(int i, const char *family) {
    char key[FV_MSG_KEY_MAX];
    snprintf(key, sizeof key, "%s.%s", family, behaviours[i].name);
    const char *t = fv_msg_en(key);
    return t ? t : behaviours[i].name;
}

/* A joint or phrase of the catalog's lab. family ("lab.and"), its English. */
static const char *lab_en(const char *key, const char *fallback) {
    const char *t = fv_msg_en(key);
    return t ? t : fallback;
}

const char *probe_lab_behaviour_name(unsigned bit) {
    for (int i = 0; i < PROBE_LAB_BEHAVIOURS; i++)
        if (behaviours[i].bit == bit) return behaviours[i].name;
    return NULL;
}

const char *probe_lab_behaviour_says(unsigned bit) {
    for (int i = 0; i < PROBE_LAB_BEHAVIOURS; i++)
        if (behaviours[i].bit == bit) return words_of(i, "lab");
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

void probe_lab_node_does(const struct probe_lab *lab, int node, int brief, const char *and_, char *buf, size_t len) {
    size_t n = 0;
    if (len) buf[0] = '\0';
    if (node < 1 || node + 1 >= lab->nnodes) return;
    for (int i = 0; i < PROBE_LAB_BEHAVIOURS && n < len; i++)
        if (lab->cfg.behave[node] & behaviours[i].bit)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? and_ : "", words_of(i, brief ? "labbrief" : "lab"));
}

void probe_lab_behaviours_text(const struct probe_lab *lab, int reassembly, char *buf, size_t len) {
    size_t n = 0;
    const char *then = lab_en("lab.then", "; ");
    if (len) buf[0] = '\0';
    for (int k = 1; k + 1 < lab->nnodes && n < len; k++) {
        char does[512];
        probe_lab_node_does(lab, k, 0, lab_en("lab.and", " and "), does, sizeof does);
        if (reassembly && lab->cfg.reassemble == k)
            n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? then : "", lab->name[k],
                                  lab_en("lab.reassembles", "reassembles fragments"));
        if (does[0] && n < len) n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? then : "", lab->name[k], does);
    }
}

void probe_lab_behaviours_msgs(const struct probe_lab *lab, struct fv_msg *m, int *n, int cap) {
    int first = 1;
    for (int k = 1; k + 1 < lab->nnodes; k++) {
        int said = 0;
        for (int i = 0; i < PROBE_LAB_BEHAVIOURS; i++) {
            if (!(lab->cfg.behave[k] & behaviours[i].bit)) continue;
            char key[FV_MSG_KEY_MAX];
            snprintf(key, sizeof key, "lab.%s", behaviours[i].name);
            if (!said && !first) fv_msg_row_add(m, n, cap, "lab.then", " ");
            if (!said) fv_msg_row_add(m, n, cap, "lab.node_does", "node=%s @does=%s", lab->name[k], key);
            else fv_msg_row_add(m, n, cap, "lab.and", " "), fv_msg_row_add(m, n, cap, key, " ");
            said = 1;
            first = 0;
        }
    }
}

int probe_lab_config_same(const struct probe_lab_config *a, const struct probe_lab_config *b) {
    int ra = a->routers ? a->routers : PROBE_LAB_ROUTERS_DEFAULT, rb = b->routers ? b->routers : PROBE_LAB_ROUTERS_DEFAULT;
    return ra == rb && a->reassemble == b->reassemble && !memcmp(a->mtu, b->mtu, sizeof a->mtu) &&
           !memcmp(a->behave, b->behave, sizeof a->behave);
}
