/* src/core/biglock.h — turning the big lock (src/base/lock.h) on and off, and the hooks through
 * which p2p's waits let go of it: the runtime's part of the lock. */
#ifndef CREDO_BIGLOCK_H
#define CREDO_BIGLOCK_H

#include "base/lock.h"

/* Turns the lock on for `why` (a CREDO_LOCK_FOR_* bit) or off for it, and installs the matching
 * p2p hooks. Only while no other thread is inside the library. */
void credo_lock_set(int why, int on);

#endif
