/* Poisoning memory a pool keeps but nobody may touch (a freed block still in its slab),
 * so AddressSanitizer catches a use after free; nothing without it. */
#ifndef SIM_ASAN_POISON_H
#define SIM_ASAN_POISON_H

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SIM_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SIM_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define SIM_POISON(p, n) ((void)(p), (void)(n))
#define SIM_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif
