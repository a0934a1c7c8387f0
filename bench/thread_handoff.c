/* Why the batched environment keeps a pool of threads (envs/_vector.c) rather than
 * starting threads at every call: the cost of one call's hand-off, measured side by side
 * in one run.
 *
 *   gcc -O2 bench/thread_handoff.c -o /tmp/handoff -pthread && /tmp/handoff
 *
 * ``spawn+join``: pthread_create of a thread that does nothing, then pthread_join (what
 * a call would pay per extra thread if it started its threads);
 * ``pool round trip``: a parked thread woken by a condition variable and waited for
 * (what a call pays with the pool: _vector.c's pool_run, the same protocol).
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *nothing(void *arg) { return arg; }

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static unsigned long generation;
static int pending, stop;

static void *parked(void *arg) {
    unsigned long seen = 0;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (generation == seen && !stop) pthread_cond_wait(&go, &mu);
        if (stop) break;
        seen = generation;
        if (--pending == 0) pthread_cond_signal(&done);
    }
    pthread_mutex_unlock(&mu);
    return arg;
}

int main(void) {
    const int rounds = 20000;
    for (int trial = 0; trial < 3; trial++) {
        double t = now();
        for (int i = 0; i < rounds; i++) {
            pthread_t th;
            pthread_create(&th, NULL, nothing, NULL);
            pthread_join(th, NULL);
        }
        double spawn = (now() - t) / rounds;
        pthread_t th;
        stop = 0;
        pthread_create(&th, NULL, parked, NULL);
        t = now();
        for (int i = 0; i < rounds; i++) {
            pthread_mutex_lock(&mu);
            pending = 1;
            generation++;
            pthread_cond_broadcast(&go);
            while (pending) pthread_cond_wait(&done, &mu);
            pthread_mutex_unlock(&mu);
        }
        double pool = (now() - t) / rounds;
        pthread_mutex_lock(&mu);
        stop = 1;
        pthread_cond_broadcast(&go);
        pthread_mutex_unlock(&mu);
        pthread_join(th, NULL);
        generation = 0;
        printf("spawn+join %6.2f us   pool round trip %6.2f us   spawn / pool %.2fx\n",
               spawn * 1e6, pool * 1e6, spawn / pool);
    }
    return 0;
}
