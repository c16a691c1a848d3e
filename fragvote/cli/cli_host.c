/* The facts about this machine a session records beside its measurements
 * (serve, play, replay --remeasure): its host name and kernel. */
#include <stdio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"

void cli_host_facts(char *host, size_t hostlen, char *kernel, size_t kernellen) {
    if (gethostname(host, hostlen) < 0) snprintf(host, hostlen, "unknown");
    host[hostlen - 1] = '\0';
    struct utsname u;
    if (uname(&u) == 0) snprintf(kernel, kernellen, "%s %s", u.sysname, u.release);
    else snprintf(kernel, kernellen, "unknown");
}
