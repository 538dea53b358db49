/* The vector add's buffers, in the order the operation and its ladder pass
 * them, named for every backend's launchers: c = a + b. */
#ifndef WARPLAB_VECADD_H
#define WARPLAB_VECADD_H

enum { VECADD_A = 0, VECADD_B, VECADD_C, VECADD_BUFFERS };

#endif
