/* src/core/core.h — the runtime's orchestration, above p2p and below GOAL: init/finalize order of the
 * layers (config, bootstrap, transports, p2p). The services every layer uses are src/base. */
#ifndef CREDO_CORE_H
#define CREDO_CORE_H

#include "base/base.h"

/* Brings up config, bootstrap, transports and p2p. 0 on success; -1 and a message on stderr. */
int credo_init(void);
/* Tears them down in reverse order (after an implicit barrier done by the caller). */
int credo_finalize(void);

#endif
