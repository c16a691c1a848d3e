/* Every connection the program opens on a database file, opened at once
 * (see db.h, db_hold_files). */
#include "db.h"
#include "db_ckpt.h"
#include "db_internal.h"

int db_hold_files(struct db *db, char *err, size_t errlen) {
    if (db_sql_touch(db_conn(db), err, errlen) < 0) return -1; /* the store's own -wal */
    if (db_ckpt_open(db, err, errlen) < 0) return -1;
    return db_report_hold(db, err, errlen);
}
