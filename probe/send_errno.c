/* An errno of send() as a catalog key, "errno.emsgsize" (docs/LANGUAGES.md
 * "Texts worded in C"): a why or evidence names the key, each catalog says
 * what it means (its English is the C library's strerror text), so "send()
 * failed: Message too long" reads in the page's language. Pure. */
#include <errno.h>
#include <stddef.h>

#include "send_errno.h"

static const struct {
    int code;
    const char *key;
} known[] = {
    {EMSGSIZE, "errno.emsgsize"},         {ENETUNREACH, "errno.enetunreach"},
    {EHOSTUNREACH, "errno.ehostunreach"}, {ECONNREFUSED, "errno.econnrefused"},
    {EPERM, "errno.eperm"},               {EACCES, "errno.eacces"},
    {ENOBUFS, "errno.enobufs"},           {EAGAIN, "errno.eagain"},
    {ECONNRESET, "errno.econnreset"},     {EPIPE, "errno.epipe"},
    {EINVAL, "errno.einval"},             {ENETDOWN, "errno.enetdown"},
    {EHOSTDOWN, "errno.ehostdown"},       {ETIMEDOUT, "errno.etimedout"},
    {EADDRNOTAVAIL, "errno.eaddrnotavail"}, {ENOMEM, "errno.enomem"},
    {ENOTCONN, "errno.enotconn"},         {EDESTADDRREQ, "errno.edestaddrreq"},
    {EAFNOSUPPORT, "errno.eafnosupport"}, {EOPNOTSUPP, "errno.eopnotsupp"},
};

const char *probe_errno_key(int code) {
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].code == code) return known[i].key;
    return NULL;
}
