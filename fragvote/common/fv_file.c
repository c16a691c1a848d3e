/* Private files written whole (fv_file.h). */
#include "fv_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fv_err.h"

FILE *fv_file_begin(const char *target, char *tmp, size_t tmplen, char *err, size_t errlen) {
    int n = snprintf(tmp, tmplen, "%s.XXXXXX", target);
    if (n < 0 || (size_t)n >= tmplen) {
        fv_fail(err, errlen, "%s: the path is too long", target);
        return NULL;
    }
    int fd = mkstemp(tmp); /* O_CREAT | O_EXCL, mode 0600 */
    if (fd < 0) {
        fv_fail(err, errlen, "cannot write %s: %s", target, strerror(errno));
        return NULL;
    }
    if (fchmod(fd, FV_FILE_MODE) < 0) { /* whatever the C library's mkstemp chose */
        fv_fail(err, errlen, "cannot write %s: %s", target, strerror(errno));
        close(fd);
        unlink(tmp);
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        fv_fail(err, errlen, "cannot write %s: %s", target, strerror(errno));
        close(fd);
        unlink(tmp);
    }
    return f;
}

int fv_file_commit(FILE *f, const char *tmp, const char *target, char *err, size_t errlen) {
    if (fclose(f) != 0) {
        fv_fail(err, errlen, "writing %s failed: %s", target, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, target) != 0) {
        fv_fail(err, errlen, "cannot write %s: %s", target, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

void fv_file_abort(FILE *f, const char *tmp) {
    if (f) fclose(f);
    unlink(tmp);
}

int fv_file_open_early(const char *target, char *err, size_t errlen) {
    int fd = open(target, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, FV_FILE_MODE);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        return fv_fail(err, errlen, "cannot write %s: not a regular file", target);
    }
    if (fd >= 0 && fchmod(fd, FV_FILE_MODE) < 0) { /* now: its owner may be another user than the writer's */
        fv_seterr(err, errlen, "cannot write %s: %s", target, strerror(errno));
        close(fd);
        return -1;
    }
    if (fd < 0) fv_seterr(err, errlen, "cannot write %s: %s", target, strerror(errno));
    return fd;
}

int fv_file_write_fd(int fd, const char *target, const void *data, size_t n, char *err, size_t errlen) {
    const char *p = data;
    int ok = ftruncate(fd, 0) == 0;
    for (size_t done = 0; ok && done < n;) {
        ssize_t w = pwrite(fd, p + done, n - done, (off_t)done);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        if (ok) done += (size_t)w;
    }
    ok = ok && fsync(fd) == 0;
    if (!ok) fv_seterr(err, errlen, "writing %s failed: %s", target, strerror(errno));
    if (close(fd) != 0 && ok) ok = 0, fv_seterr(err, errlen, "writing %s failed: %s", target, strerror(errno));
    return ok ? 0 : -1;
}

char *fv_file_read(const char *path, size_t max, size_t *len, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) return fv_seterr(err, errlen, "%s: %s", path, strerror(errno)), NULL;
    char *buf = malloc(max + 2);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = !buf || ferror(f) || n > max;
    if (bad) fv_seterr(err, errlen, "%s: %s", path, !buf ? "out of memory" : n > max ? "too large" : "cannot read it");
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
