/* A one-shot libgps client, the peer of `locate once` in the benchmarks: connect, watch, print the
 * first TPV with a 2D or 3D fix as "LAT LON", exit. usage: libgps-once HOST PORT */
#include <gps.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    struct gps_data_t *data = calloc(1, sizeof *data);
    if (argc < 3 || gps_open(argv[1], argv[2], data) != 0) {
        fprintf(stderr, "libgps-once: cannot reach gpsd\n");
        return 69;
    }
    gps_stream(data, WATCH_ENABLE | WATCH_JSON, NULL);
    char message[8192];
    for (;;) {
        if (!gps_waiting(data, 10000000)) return 75;
        data->set = 0;
        if (gps_read(data, message, sizeof message) < 0) return 69;
        if (strstr(message, "\"class\":\"TPV\"") && data->fix.mode >= MODE_2D && isfinite(data->fix.latitude)) {
            printf("%.9f %.9f\n", data->fix.latitude, data->fix.longitude);
            fflush(stdout);
            return 0;
        }
    }
}
