#include "fragprobe.h"

const char *probe_version(void) { return "0.1.0"; }
