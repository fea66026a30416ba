/* The C libgps one-shot client of the epoch-latency bench: connect, watch, and print the first TPV
 * with a 2D or 3D fix, as libgps-once does, with what it carries, on one line:
 * "TIME MODE EPH EPV ALT" (an absent number as nan). usage: libgps-epoch-once HOST PORT */
#include <gps.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    struct gps_data_t *data = calloc(1, sizeof *data);
    if (argc < 3 || gps_open(argv[1], argv[2], data) != 0) {
        fprintf(stderr, "libgps-epoch-once: cannot reach gpsd\n");
        return 69;
    }
    gps_stream(data, WATCH_ENABLE | WATCH_JSON, NULL);
    char message[8192];
    for (;;) {
        if (!gps_waiting(data, 10000000)) return 75;
        data->set = 0;
        if (gps_read(data, message, sizeof message) < 0) return 69;
        if (strstr(message, "\"class\":\"TPV\"") && data->fix.mode >= MODE_2D && isfinite(data->fix.latitude)) {
            double alt = data->fix.mode == MODE_3D ? data->fix.altMSL : NAN;
            printf("%lld %d %f %f %f\n", (long long)data->fix.time.tv_sec, data->fix.mode, data->fix.eph,
                   data->fix.mode == MODE_3D ? data->fix.epv : NAN, alt);
            fflush(stdout);
            return 0;
        }
    }
}
