/* Where phones reach us (join URL) and the QR code of it. No lws here. */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <qrencode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fv_route.h"
#include "hub.h"

/* bind_addr as the host part of a URL ("[::1]" for IPv6), 1 when it is one
 * address (not a wildcard), with *loopback set; 0 otherwise. */
static int bound_host(const char *bind_addr, char *host, size_t n, int *loopback) {
    struct in_addr a4;
    struct in6_addr a6;
    if (!bind_addr || !bind_addr[0]) return 0;
    if (inet_pton(AF_INET, bind_addr, &a4) == 1) {
        if (a4.s_addr == htonl(INADDR_ANY)) return 0;
        *loopback = (ntohl(a4.s_addr) >> 24) == 127;
        snprintf(host, n, "%s", bind_addr);
        return 1;
    }
    if (inet_pton(AF_INET6, bind_addr, &a6) == 1) {
        if (IN6_IS_ADDR_UNSPECIFIED(&a6)) return 0;
        *loopback = IN6_IS_ADDR_LOOPBACK(&a6);
        snprintf(host, n, "[%s]", bind_addr);
        return 1;
    }
    return 0;
}

int hub_join_url_make(const char *public_url, const char *bind_addr, int tls, int port, const char *code, char *out,
                      size_t outlen, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (public_url && public_url[0]) {
        size_t n = strlen(public_url);
        const char *sep = strchr(public_url, '?') ? "&" : (public_url[n - 1] == '/' ? "?" : "/?");
        snprintf(out, outlen, "%s%sroom=%s", public_url, sep, code);
        return 0;
    }
    char ifn[IF_NAMESIZE + 1] = "", addr[INET6_ADDRSTRLEN + 2] = "";
    int loopback = 0;
    if (bound_host(bind_addr, addr, sizeof addr, &loopback)) {
        if (loopback && err && errlen)
            snprintf(err, errlen, "serve listens on %s only (--bind): phones cannot reach the join URL; bind a "
                                  "venue address or pass a public URL", bind_addr);
    } else if (fv_route_default_iface(AF_INET, ifn, sizeof ifn) || fv_route_iface_addr(ifn, AF_INET, addr, sizeof addr)) {
        snprintf(addr, sizeof addr, "127.0.0.1");
        if (err && errlen)
            snprintf(err, errlen, "no IPv4 default route: the join URL uses 127.0.0.1, which phones cannot reach; "
                                  "connect to the venue network or pass a public URL");
    }
    const char *scheme = tls ? "https" : "http";
    if ((tls && port == 443) || (!tls && port == 80))
        snprintf(out, outlen, "%s://%s/?room=%s", scheme, addr, code);
    else
        snprintf(out, outlen, "%s://%s:%d/?room=%s", scheme, addr, port, code);
    return 0;
}

char *hub_qr_svg(const char *text, char *err, size_t errlen) {
    QRcode *qr = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!qr) {
        snprintf(err, errlen, "cannot encode \"%s\" as a QR code", text);
        return NULL;
    }
    const int quiet = 4, w = qr->width, size = w + 2 * quiet;
    /* Each dark module: "M%d %dh1v1h-1z" <= 20 bytes. */
    size_t cap = 512 + (size_t)w * (size_t)w * 20;
    char *svg = malloc(cap);
    if (!svg) {
        QRcode_free(qr);
        snprintf(err, errlen, "out of memory drawing the QR code");
        return NULL;
    }
    size_t n = (size_t)snprintf(svg, cap,
                                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
                                "shape-rendering=\"crispEdges\">"
                                "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/><path fill=\"#000\" d=\"",
                                size, size, size, size);
    for (int y = 0; y < w; y++)
        for (int x = 0; x < w; x++)
            if (qr->data[y * w + x] & 1) n += (size_t)snprintf(svg + n, cap - n, "M%d %dh1v1h-1z", x + quiet, y + quiet);
    snprintf(svg + n, cap - n, "\"/></svg>\n");
    QRcode_free(qr);
    return svg;
}
