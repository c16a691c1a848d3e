/* Where the program's own data lives: its pages (web/) and its decks (decks/).
 *
 * Found relative to the program itself: <dir of the binary>/FRAGVOTE_DATADIR_REL,
 * which CMake derives from the install directories (../share/fragvote for
 * bin/ and share/). So one binary works wherever its tree was put: a package
 * in /usr, `cmake --install --prefix DIR`, and the build tree, where
 * build/share/fragvote/{web,decks} link to the sources. */
#ifndef FRAGVOTE_DATADIR_H
#define FRAGVOTE_DATADIR_H

#include <stddef.h>

/* Writes "<data dir>/sub" (sub "" = the data dir itself) into out, resolved to
 * an absolute path without ".." when it exists. Returns 0, or -1 with a
 * sentence in err when the program cannot find its own path or out is too small. */
int datadir_path(const char *sub, char *out, size_t outlen, char *err, size_t errlen);

/* The file a --deck argument names: the argument itself when it is an
 * existing file or contains a '/'; otherwise the installed deck of that name
 * (decks/NAME, then decks/NAME.json) when there is one; otherwise the argument
 * (opening it then fails with the usual message). Returns arg or buf. */
const char *datadir_deck(const char *arg, char *buf, size_t buflen);

#endif
