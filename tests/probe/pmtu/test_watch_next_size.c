/* The watch's one pure rule: the next size up of the discovery's table (the
 * size a reprobe adds to the current path MTU), whatever the table's order. */
#include "check.h"
#include "fragprobe.h"

static void test_next_size_is_the_smallest_above(void) {
    static const int table[] = {1280, 1360, 1400, 1500, 8000, 9000};
    CHECK_INT(probe_pmtu_next_size(table, 6, 1280), 1360);
    CHECK_INT(probe_pmtu_next_size(table, 6, 1400), 1500);
    CHECK_INT(probe_pmtu_next_size(table, 6, 1300), 1360); /* between two sizes */
    CHECK_INT(probe_pmtu_next_size(table, 6, 0), 1280);    /* nothing acknowledged yet */
    CHECK_INT(probe_pmtu_next_size(table, 6, 9000), 0);    /* at the local MTU: nothing above */
    CHECK_INT(probe_pmtu_next_size(table, 4, 1500), 0);    /* only the first n count */
}

static void test_next_size_does_not_assume_an_order(void) {
    static const int table[] = {1500, 1280, 1450, 1400};
    CHECK_INT(probe_pmtu_next_size(table, 4, 1280), 1400);
    CHECK_INT(probe_pmtu_next_size(table, 4, 1400), 1450);
    CHECK_INT(probe_pmtu_next_size(table, 0, 1280), 0);
}

int main(void) {
    RUN(test_next_size_is_the_smallest_above);
    RUN(test_next_size_does_not_assume_an_order);
    return check_summary();
}
