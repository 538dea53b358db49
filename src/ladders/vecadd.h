/* The vecadd ladder's buffers, named for every backend's launchers: c = a + b. */
#ifndef WARPLAB_VECADD_H
#define WARPLAB_VECADD_H

enum { VECADD_A = 0, VECADD_B, VECADD_C, VECADD_BUFFERS };

#endif
