/* The floor of a libgps client, for the benchmarks: read TPVs as fast as possible and do nothing
 * with them. usage: libgps-loop HOST PORT COUNT MODE
 *   MODE 0: gps_read() per report, as libgps's examples do
 *   MODE 2: recv() into a big buffer and gps_unpack() each line, as GPSDClient does
 *   MODE 1: recv() and split lines only, no parsing */
#include <gps.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/socket.h>
#include <errno.h>
int main(int argc, char **argv) {
    struct gps_data_t *d = calloc(1, sizeof *d);
    if (gps_open(argv[1], argv[2], d) != 0) { perror("open"); return 69; }
    long want = atol(argv[3]); int mode = atoi(argv[4]);
    gps_stream(d, WATCH_ENABLE | WATCH_JSON, NULL);
    long tpv = 0;
    if (mode == 0) {
        char msg[8192];
        while (tpv < want) {
            d->set = 0;
            int r = gps_read(d, msg, sizeof msg);
            if (r < 0) break;
            if (r > 0 && strstr(msg, "\"class\":\"TPV\"")) tpv++;
        }
    } else {
        static char buf[1 << 16]; size_t have = 0;
        while (tpv < want) {
            ssize_t n = recv(d->gps_fd, buf + have, sizeof buf - have - 1, 0);
            if (n < 0 && errno == EAGAIN) { struct pollfd p = {d->gps_fd, POLLIN, 0}; poll(&p, 1, -1); continue; }
            if (n <= 0) break;
            have += n;
            char *start = buf, *end = buf + have, *nl;
            while ((nl = memchr(start, '\n', end - start))) {
                *nl = 0;
                if (mode == 2) { d->set = 0; gps_unpack(start, d); }
                if (strstr(start, "\"class\":\"TPV\"")) tpv++;
                start = nl + 1;
            }
            have = end - start; memmove(buf, start, have);
        }
    }
    printf("%ld\n", tpv);
    return 0;
}
