/* Text helpers shared by export, replay and sessions (see export_text.h). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "export_text.h"

void export_iso_time(char *buf, size_t len, double t) {
    if (!len) return;
    buf[0] = '\0';
    if (t <= 0) return;
    /* No libm: t > 0, so truncation is floor. */
    long long total_ms = (long long)(t * 1000.0 + 0.5);
    time_t s = (time_t)(total_ms / 1000);
    int ms = (int)(total_ms % 1000);
    struct tm tm;
    if (!gmtime_r(&s, &tm)) return;
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03dZ", base, ms);
}

void export_local_time(char *buf, size_t len, double t) {
    if (!len) return;
    buf[0] = '\0';
    if (t <= 0) return;
    time_t s = (time_t)t;
    struct tm tm;
    if (!localtime_r(&s, &tm)) return;
    strftime(buf, len, "%Y-%m-%d %H:%M", &tm);
}

void export_test_summary(const char *spec_json, char *buf, size_t len) {
    if (!len) return;
    buf[0] = '\0';
    json_error_t jerr;
    json_t *j = spec_json ? json_loads(spec_json, 0, &jerr) : NULL;
    const char *proto = json_string_value(json_object_get(j, "proto"));
    if (!proto) {
        /* Not a spec object we know: show it as stored, on one line. */
        snprintf(buf, len, "%s", spec_json ? spec_json : "");
        for (char *p = buf; *p; p++)
            if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
        json_decref(j);
        return;
    }
    size_t n = (size_t)snprintf(buf, len, "%s", proto);
    const char *mode = json_string_value(json_object_get(j, "mode"));
    if (mode && n < len) n += (size_t)snprintf(buf + n, len - n, " %s", mode);
    json_t *size = json_object_get(j, "size");
    if (json_is_integer(size) && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %lld B", (long long)json_integer_value(size));
    json_t *ttl = json_object_get(j, "ttl");
    if (json_is_integer(ttl) && json_integer_value(ttl) > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " TTL %lld", (long long)json_integer_value(ttl));
    const char *host = json_string_value(json_object_get(j, "host"));
    if (host && *host && n < len) snprintf(buf + n, len - n, " to %s", host);
    json_decref(j);
}

const char *export_verdict(double correct) {
    if (correct == 1) return "right";
    if (correct == 0) return "wrong";
    if (correct == 0.5) return "tie";
    return "unscored";
}

/* Markdown text shown as typed (docs/EXPORT.md, "Markdown"). */
void export_md_text(FILE *out, const char *s) {
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '\n': case '\r': fputc(' ', out); break;
        case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '~': case '#': case '!':
            fputc('\\', out);
            fputc(*p, out);
            break;
        default: fputc(*p, out);
        }
    }
}

/* Length of the valid UTF-8 sequence at p (2..4), or 0 if it is not one. */
static int utf8_seq(const unsigned char *p) {
    int n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : 0;
    if (p[0] >= 0xF5) return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0))) return 0; /* overlong, surrogates */
    if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))) return 0;
    return n;
}

/* XML text: escaped; control characters (invalid in XML 1.0) dropped; bytes
 * that are not UTF-8 (a --title from a Latin-1 terminal) become '?'. */
void export_xml_text(FILE *out, const char *s) {
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p >= 0x80) {
            int n = utf8_seq(p);
            if (!n) {
                fputc('?', out);
                continue;
            }
            fwrite(p, 1, (size_t)n, out);
            p += n - 1;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            if (*p >= 0x20 || *p == '\t' || *p == '\n') fputc(*p, out);
        }
    }
}
