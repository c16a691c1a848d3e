/* The program's data directory, relative to its own binary (see datadir.h). */
#include "datadir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FRAGVOTE_DATADIR_REL
#error "FRAGVOTE_DATADIR_REL (data dir relative to the binary's dir) comes from CMake"
#endif

int datadir_path(const char *sub, char *out, size_t outlen, char *err, size_t errlen) {
    char exe[PATH_MAX], joined[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(err, errlen, "cannot find the program's own path (/proc/self/exe: %s)", strerror(errno));
        return -1;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) {
        snprintf(err, errlen, "the program's own path %s has no directory", exe);
        return -1;
    }
    *slash = 0;
    int len = snprintf(joined, sizeof joined, "%s/%s%s%s", exe, FRAGVOTE_DATADIR_REL, sub[0] ? "/" : "", sub);
    if (len < 0 || (size_t)len >= sizeof joined) {
        snprintf(err, errlen, "the data directory's path is longer than %d bytes", PATH_MAX);
        return -1;
    }
    char real[PATH_MAX];
    const char *best = realpath(joined, real) ? real : joined;
    if (snprintf(out, outlen, "%s", best) >= (int)outlen) {
        snprintf(err, errlen, "the data directory's path %s is too long", best);
        return -1;
    }
    return 0;
}

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *datadir_deck(const char *arg, char *buf, size_t buflen) {
    if (strchr(arg, '/') || is_file(arg)) return arg;
    static const char *const suffixes[] = {"", ".json"};
    char e[256], dir[PATH_MAX];
    if (datadir_path("decks", dir, sizeof dir, e, sizeof e)) return arg;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        int len = snprintf(buf, buflen, "%s/%s%s", dir, arg, suffixes[i]);
        if (len > 0 && (size_t)len < buflen && is_file(buf)) return buf;
    }
    return arg;
}
