/* libFuzzer target: the deck loader (JSON parse + validation + error positions). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > DECK_FILE_MAX) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    struct deck d;
    char err[512];
    if (deck_load_string(text, "fuzz.json", &d, err, sizeof err) == 0) deck_free(&d);
    free(text);
    return 0;
}
