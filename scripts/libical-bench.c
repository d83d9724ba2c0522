/* Times Debian's libical parsing one .ics file, for comparison with ICalendarBenchmarks.
 * Build and run through scripts/ics-bench.sh. Usage: libical-bench FILE [ITERATIONS] */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [ITERATIONS]\n", argv[0]);
        return 2;
    }
    int iterations = argc > 2 ? atoi(argv[2]) : 50;
    FILE *file = fopen(argv[1], "rb");
    if (!file) {
        perror(argv[1]);
        return 1;
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc(size + 1);
    if (!text || fread(text, 1, size, file) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 1;
    }
    text[size] = 0;
    fclose(file);

    int events = 0;
    double best = 1e9, total = 0;
    for (int i = 0; i < iterations; i++) {
        double start = now();
        icalcomponent *calendar = icalparser_parse_string(text);
        double elapsed = now() - start;
        if (!calendar) {
            fprintf(stderr, "libical could not parse %s\n", argv[1]);
            return 1;
        }
        if (i == 0) events = icalcomponent_count_components(calendar, ICAL_VEVENT_COMPONENT);
        icalcomponent_free(calendar);
        total += elapsed;
        if (elapsed < best) best = elapsed;
    }
    double mean = total / iterations;
    printf("libical %s: %ld bytes, %d VEVENTs, %d runs: best %.2f ms (%.1f MB/s), mean %.2f ms (%.1f MB/s)\n",
           ICAL_VERSION, size, events, iterations, best * 1e3, size / best / 1e6, mean * 1e3,
           size / mean / 1e6);
    free(text);
    return 0;
}
