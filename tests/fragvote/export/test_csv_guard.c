/* The CSV writer's field (export_csv_text, pure): quoting, and the guard a
 * spreadsheet needs -- a field that starts with = + - @, a TAB or a CR gets
 * a ' first, so a deck title, question or nickname is never evaluated as a
 * formula (issue 36, item 12: TAB and CR were not guarded). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "export.h"

static char *field(const char *s) {
    static char buf[256];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf, "w");
    export_csv_text(f, s);
    fclose(f);
    return buf;
}

static void test_formula_starts_are_guarded(void) {
    CHECK_STR(field("=1+2"), "'=1+2");
    CHECK_STR(field("+1"), "'+1");
    CHECK_STR(field("-1"), "'-1");
    CHECK_STR(field("@SUM(A1)"), "'@SUM(A1)");
    CHECK_STR(field("\t=1+2"), "'\t=1+2");
    CHECK_STR(field("\r=1+2"), "\"'\r=1+2\""); /* a CR is quoted too */
    CHECK_STR(field("a=1"), "a=1");
    CHECK_STR(field(""), "");
    CHECK_STR(field(NULL), "");
}

static void test_quoting(void) {
    CHECK_STR(field("a,b"), "\"a,b\"");
    CHECK_STR(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    CHECK_STR(field("=a,b"), "\"'=a,b\"");
}

int main(void) {
    RUN(test_formula_starts_are_guarded);
    RUN(test_quoting);
    return check_summary();
}
