/* Private files written whole (fv_file.h). */
#include "fv_file.h"

#include <errno.h>
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
